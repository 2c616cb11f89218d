// Over 300 lines on purpose: a self-contained parser; block and inline parsing share its cursor helpers.
/**
 * A small Markdown parser for answers: paragraphs, headings, lists, block quotes, fenced code,
 * tables, rules, emphasis, inline code, links, images and `[n]` citation markers. It builds a tree of
 * plain data; raw HTML is never interpreted and stays visible as text.
 */

export type Inline =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong"; children: Inline[] }
  | { type: "emphasis"; children: Inline[] }
  | { type: "link"; href: string; children: Inline[] }
  | { type: "image"; src: string; alt: string }
  | { type: "citation"; number: number }
  | { type: "break" };

export type Block =
  | { type: "paragraph"; children: Inline[] }
  | { type: "heading"; level: number; children: Inline[] }
  | { type: "code"; language: string; text: string }
  | { type: "quote"; children: Block[] }
  | { type: "list"; ordered: boolean; start: number; items: Block[][] }
  | { type: "table"; header: Inline[][]; rows: Inline[][][] }
  | { type: "rule" };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
/** A table's delimiter row: "| --- | :---: |" (the outer pipes may be left out). */
const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

export function parseMarkdown(source: string): Block[] {
  return parseBlocks(source.replace(/\r\n?/g, "\n").split("\n"));
}

function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    LIST_ITEM.test(line)
  );
}

function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      index++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      index++;
      // An unclosed fence runs to the end: a code block still streaming shows as code.
      while (index < lines.length && !isClosingFence(lines[index] ?? "", marker)) {
        body.push(lines[index] ?? "");
        index++;
      }
      index++;
      blocks.push({ type: "code", language: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({
        type: "heading",
        level: heading[1]?.length ?? 1,
        children: parseInline(heading[2] ?? ""),
      });
      index++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ type: "rule" });
      index++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (index < lines.length && (lines[index] ?? "").trim() !== "") {
        body.push((lines[index] ?? "").replace(QUOTE, ""));
        index++;
      }
      blocks.push({ type: "quote", children: parseBlocks(body) });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      index = parseList(lines, index, blocks);
      continue;
    }
    if (isTableStart(lines, index)) {
      const header = tableCells(line);
      const rows: Inline[][][] = [];
      index += 2;
      while (index < lines.length && (lines[index] ?? "").includes("|")) {
        const cells = tableCells(lines[index] ?? "");
        // Each row has the header's cells: missing ones are empty, extra ones are dropped.
        rows.push(header.map((_, column) => parseInline(cells[column] ?? "")));
        index++;
      }
      blocks.push({ type: "table", header: header.map(parseInline), rows });
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length) {
      const next = lines[index] ?? "";
      if (
        next.trim() === "" ||
        (paragraph.length > 0 && (startsBlock(next) || isTableStart(lines, index)))
      )
        break;
      paragraph.push(next);
      index++;
    }
    blocks.push({ type: "paragraph", children: parseInline(paragraph.join("\n").trim()) });
  }
  return blocks;
}

/** A row with pipes followed by a delimiter row with as many columns (GitHub's tables). */
function isTableStart(lines: string[], index: number): boolean {
  const line = lines[index] ?? "";
  const delimiter = lines[index + 1] ?? "";
  return (
    line.includes("|") &&
    TABLE_DELIMITER.test(delimiter) &&
    delimiter.includes("-") &&
    tableCells(delimiter).length === tableCells(line).length
  );
}

/** A row's cells, trimmed; an escaped pipe ("\|") stays in its cell. */
function tableCells(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed === (marker[0] ?? "`").repeat(trimmed.length);
}

/** Reads one list from `start`; items hold the lines indented under their marker. */
function parseList(lines: string[], start: number, blocks: Block[]): number {
  const first = LIST_ITEM.exec(lines[start] ?? "");
  const ordered = /\d/.test(first?.[2] ?? "");
  const items: string[][] = [];
  let index = start;
  let contentIndent = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const item = LIST_ITEM.exec(line);
    // A marker indented as far as the item's text starts a nested list inside that item.
    const nested = items.length > 0 && (item?.[1]?.length ?? 0) >= contentIndent;
    if (item && !nested && /\d/.test(item[2] ?? "") === ordered) {
      contentIndent = (item[0] ?? "").length;
      items.push([line.slice(contentIndent)]);
      index++;
      continue;
    }
    const current = items[items.length - 1];
    if (!current) break;
    if (line.trim() === "") {
      // A blank line continues the list only when indented content or another item follows.
      const next = lines[index + 1] ?? "";
      const nextItem = LIST_ITEM.exec(next);
      if (/^\s/.test(next) && next.trim() !== "") {
        current.push("");
        index++;
        continue;
      }
      if (nextItem && /\d/.test(nextItem[2] ?? "") === ordered) {
        index++;
        continue;
      }
      break;
    }
    if (/^\s/.test(line)) {
      current.push(line.replace(new RegExp(`^[ \\t]{1,${Math.max(contentIndent, 1)}}`), ""));
      index++;
      continue;
    }
    if (startsBlock(line)) break;
    current.push(line); // a lazy continuation of the item's paragraph
    index++;
  }
  blocks.push({
    type: "list",
    ordered,
    start: ordered ? Number.parseInt(first?.[2] ?? "1", 10) : 1,
    items: items.map(parseBlocks),
  });
  return index;
}

const ESCAPABLE = "\\`*_{}[]()#+-.!<>|~";
const CITATION = /^\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/;
const AUTOLINK = /^<(https?:\/\/[^\s<>]+)>/i;
const BARE_URL = /^https?:\/\/[^\s<>]*[^\s<>.,:;"'!?)\]]/i;
const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);
const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char);

export function parseInline(source: string): Inline[] {
  const nodes: Inline[] = [];
  let text = "";
  const flush = () => {
    if (text) nodes.push({ type: "text", text });
    text = "";
  };
  const push = (node: Inline) => {
    flush();
    nodes.push(node);
  };

  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? "";
    const rest = source.slice(index);

    if (char === "\\" && ESCAPABLE.includes(source[index + 1] ?? "")) {
      text += source[index + 1];
      index += 2;
      continue;
    }
    if (char === "\\" && source[index + 1] === "\n") {
      push({ type: "break" });
      index += 2;
      continue;
    }
    if (char === "\n") {
      if (text.endsWith("  ")) {
        text = text.trimEnd();
        push({ type: "break" });
      } else {
        text += "\n";
      }
      index++;
      continue;
    }
    if (char === "`") {
      const run = /^`+/.exec(rest)?.[0] ?? "`";
      const close = findClosingBackticks(source, index + run.length, run.length);
      if (close !== -1) {
        let code = source.slice(index + run.length, close).replace(/\n/g, " ");
        if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
        push({ type: "code", text: code });
        index = close + run.length;
      } else {
        text += run;
        index += run.length;
      }
      continue;
    }
    if (char === "!" && source[index + 1] === "[") {
      const link = readLink(source, index + 1);
      if (link) {
        push({ type: "image", src: link.destination, alt: link.label });
        index = link.end;
        continue;
      }
    }
    if (char === "[") {
      const citation = CITATION.exec(rest);
      if (citation) {
        for (const number of (citation[1] ?? "").split(",")) {
          push({ type: "citation", number: Number.parseInt(number.trim(), 10) });
        }
        index += citation[0].length;
        continue;
      }
      const link = readLink(source, index);
      if (link) {
        push({ type: "link", href: link.destination, children: parseInline(link.label) });
        index = link.end;
        continue;
      }
    }
    if (char === "<") {
      const autolink = AUTOLINK.exec(rest);
      if (autolink?.[1]) {
        push({ type: "link", href: autolink[1], children: [{ type: "text", text: autolink[1] }] });
        index += autolink[0].length;
        continue;
      }
    }
    if ((char === "h" || char === "H") && !isWordChar(source[index - 1])) {
      const url = BARE_URL.exec(rest)?.[0];
      if (url) {
        push({ type: "link", href: url, children: [{ type: "text", text: url }] });
        index += url.length;
        continue;
      }
    }
    if (char === "*" || char === "_") {
      const emphasis = readEmphasis(source, index);
      if (emphasis) {
        push(emphasis.node);
        index = emphasis.end;
        continue;
      }
      const run = char === "*" ? /^\*+/.exec(rest) : /^_+/.exec(rest);
      text += run?.[0] ?? char;
      index += run?.[0].length ?? 1;
      continue;
    }
    text += char;
    index++;
  }
  flush();
  return nodes;
}

function findClosingBackticks(source: string, from: number, length: number): number {
  let index = source.indexOf("`", from);
  while (index !== -1) {
    const run = /^`+/.exec(source.slice(index))?.[0].length ?? 0;
    if (run === length) return index;
    index = source.indexOf("`", index + run);
  }
  return -1;
}

/** `[label](destination "title")` starting at the `[`; the title is dropped. */
function readLink(
  source: string,
  open: number,
): { label: string; destination: string; end: number } | null {
  let depth = 0;
  let close = -1;
  for (let index = open; index < source.length; index++) {
    const char = source[index];
    if (char === "\\") index++;
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) {
      close = index;
      break;
    }
  }
  if (close === -1 || source[close + 1] !== "(") return null;
  const target =
    /^\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+("[^"]*"|'[^']*'))?\s*\)/.exec(
      source.slice(close + 1),
    );
  if (!target) return null;
  const destination = (target[1] ?? "").replace(/^<|>$/g, "");
  return { label: source.slice(open + 1, close), destination, end: close + 1 + target[0].length };
}

/**
 * `*em*`, `**strong**`, `***both***` and the `_` forms. An underscore inside a word
 * (`ros2_control`, `primer_bot`) is not emphasis, as in CommonMark.
 */
function readEmphasis(source: string, open: number): { node: Inline; end: number } | null {
  const marker = source[open] ?? "*";
  let length = 0;
  while (source[open + length] === marker) length++;
  if (length > 3) return null;
  const contentStart = open + length;
  if (isSpace(source[contentStart])) return null;
  if (marker === "_" && isWordChar(source[open - 1])) return null;

  const closer = marker.repeat(length);
  let search = contentStart + 1;
  while (search < source.length) {
    const close = source.indexOf(closer, search);
    if (close === -1) return null;
    const runEnd = close + length;
    const validClose =
      source[runEnd] !== marker &&
      !isSpace(source[close - 1]) &&
      !(marker === "_" && isWordChar(source[runEnd]));
    if (validClose && !insideCodeSpan(source, contentStart, close)) {
      const children = parseInline(source.slice(contentStart, close));
      const node: Inline =
        length === 1
          ? { type: "emphasis", children }
          : length === 2
            ? { type: "strong", children }
            : { type: "strong", children: [{ type: "emphasis", children }] };
      return { node, end: runEnd };
    }
    search = close + 1;
  }
  return null;
}

/** Whether `position` falls inside a code span that opens after `from` (an odd backtick count). */
function insideCodeSpan(source: string, from: number, position: number): boolean {
  return (source.slice(from, position).match(/`/g)?.length ?? 0) % 2 === 1;
}
