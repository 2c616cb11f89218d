import type { Block } from "./markdown.ts";

/**
 * A page's parsed blocks as clean Markdown for agents and `llms.txt` readers (`/page.md`,
 * `/llms-full.txt`, the MCP `get_page` tool): the title as the level-1 heading, headings at their
 * level, prose as the text a reader sees (MDX components reduced to their children, imports and
 * JSX gone), tables with their header rule back, and code in fences with its language.
 */
export function renderMarkdown(title: string, blocks: Block[]): string {
  const parts = [`# ${title}`];
  for (const [index, block] of blocks.entries()) {
    if (block.kind === "heading") {
      // The page's own level-1 heading is its title, written above.
      if (block.depth === 1 && index === 0) continue;
      const level = Math.min(6, Math.max(2, block.depth));
      parts.push(`${"#".repeat(level)} ${block.text}`);
    } else if (block.kind === "code") {
      const fence = "`".repeat(Math.max(3, longestBacktickRun(block.code) + 1));
      parts.push(`${fence}${block.lang}\n${block.code}\n${fence}`);
    } else {
      parts.push(proseMarkdown(block.text));
    }
  }
  return `${parts.join("\n\n")}\n`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/** Tables come from the parser as `a | b` rows: they become GFM tables with a header rule. */
function proseMarkdown(text: string): string {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.every((line) => line.includes(" | "))) {
    const rows = lines.map((line) => `| ${line.replace(/\n/g, " ")} |`);
    const columns = (lines[0] ?? "").split(" | ").length;
    rows.splice(1, 0, `|${" --- |".repeat(columns)}`);
    return rows.join("\n");
  }
  return text;
}
