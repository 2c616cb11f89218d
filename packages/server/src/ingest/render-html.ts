import type { Block } from "./markdown.ts";

/**
 * A page's parsed blocks as simple, safe HTML for the demo book site: headings carry the same
 * anchors as the citations, prose is escaped (lists and tables recognised), code keeps its
 * language. Nothing from the source is passed through as HTML.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function renderBlocks(
  blocks: Block[],
  anchorOf: (heading: Extract<Block, { kind: "heading" }>) => string,
): string {
  const html: string[] = [];
  let skippedTitle = false;
  for (const [index, block] of blocks.entries()) {
    if (block.kind === "heading") {
      const anchor = anchorOf(block);
      // The first level-1 heading is the page title, shown by the page template.
      if (block.depth === 1 && !skippedTitle && index === 0) {
        skippedTitle = true;
        continue;
      }
      const level = Math.min(6, Math.max(2, block.depth));
      // The "#" link is a pointer convenience, hidden from assistive tech: so out of the Tab order.
      html.push(
        `<h${level} id="${escapeHtml(anchor)}">${escapeHtml(block.text)}<a class="anchor" href="#${escapeHtml(anchor)}" aria-hidden="true" tabindex="-1">#</a></h${level}>`,
      );
    } else if (block.kind === "code") {
      const language = block.lang.replace(/[^\w+-]/g, "");
      html.push(
        `<pre><code${language ? ` class="language-${language}"` : ""}>${escapeHtml(block.code)}</code></pre>`,
      );
    } else {
      html.push(renderProse(block.text));
    }
  }
  return html.join("\n");
}

function renderProse(text: string): string {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.every((line) => line.includes(" | "))) {
    const [head, ...rows] = lines.map((line) => line.split(" | "));
    const cells = (row: string[] | undefined, tag: "th" | "td") =>
      (row ?? []).map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join("");
    return `<table><thead><tr>${cells(head, "th")}</tr></thead><tbody>${rows.map((row) => `<tr>${cells(row, "td")}</tr>`).join("")}</tbody></table>`;
  }
  const bullet = /^\s*(?:[-*]|\d+\.)\s+/;
  if (lines.every((line) => bullet.test(line) || /^\s{2,}/.test(line))) {
    const ordered = /^\s*\d+\./.test(lines[0] ?? "");
    const items = lines
      .filter((line) => bullet.test(line))
      .map((line) => `<li>${escapeHtml(line.replace(bullet, ""))}</li>`);
    return ordered ? `<ol>${items.join("")}</ol>` : `<ul>${items.join("")}</ul>`;
  }
  return `<p>${escapeHtml(text).replace(/\n/g, "<br>")}</p>`;
}
