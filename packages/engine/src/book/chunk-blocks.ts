/**
 * A chunk's Markdown as blocks (headings, paragraphs, lists, code, tables): read once, when the
 * chunk is ingested, and stored with it, so that answering never parses a chunk's text again; and
 * blocks rendered back as valid Markdown, for the lists, code and tables an answer brings along.
 */

export type ChunkBlock =
  /** `inferred`: a short line standing alone ("**Articles**"), read as a heading. */
  | { kind: "heading"; text: string; inferred?: boolean }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; items: string[] }
  | { kind: "code"; fence: string; lines: string[] }
  | { kind: "table"; rows: string[] }
  | { kind: "other" };

/** Fewer words than this make no sentence worth quoting ("Symptom."), but a heading. */
export const MIN_WORDS = 4;
const FENCE = /^\s*(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+\S/;
const MAX_CODE_LINES = 40;
const MAX_LIST_ITEMS = 8;

/**
 * A chunk's blocks: those stored with it, or, for a record built without ingest (by hand, in a
 * tool), its text read now.
 */
export function blocksOf(chunk: { blocks?: ChunkBlock[] | undefined; text: string }): ChunkBlock[] {
  return chunk.blocks ?? chunkBlocks(chunk.text);
}

/** The blocks of a chunk's Markdown text (what ingest stores, and a reader's selection read alike). */
export function chunkBlocks(text: string): ChunkBlock[] {
  const blocks: ChunkBlock[] = [];
  const lines = text.split("\n");
  let paragraph: string[] = [];
  let list: string[] | null = null;
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    if (list) blocks.push({ kind: "list", items: list });
    paragraph = [];
    list = null;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const fence = FENCE.exec(line)?.[1];
    if (fence) {
      flush();
      const code: string[] = [line.trim()];
      // Code inside a list item is indented under it: its lines lose that indentation.
      const indent = new RegExp(`^ {0,${line.length - line.trimStart().length}}`);
      let closed = false;
      for (index++; index < lines.length; index++) {
        const inner = (lines[index] ?? "").replace(indent, "");
        code.push(inner);
        const closing = /^(`{3,}|~{3,})$/.exec(inner.trim())?.[1];
        if (closing && closing[0] === fence[0] && closing.length >= fence.length) {
          closed = true;
          break;
        }
      }
      if (!closed) code.push(fence);
      blocks.push({ kind: "code", fence: code[0] ?? fence, lines: code.slice(1, -1) });
      continue;
    }
    const trimmed = line.trim();
    if (!trimmed) {
      flush();
      continue;
    }
    if (/^#{1,6}\s/.test(trimmed)) {
      flush();
      blocks.push({
        kind: "heading",
        text: trimmed.replace(/^#+\s*/, "").replace(/\s*\{#[^}]*\}\s*$/, ""),
      });
      continue;
    }
    if (trimmed.startsWith("|") || trimmed.includes(" | ")) {
      flush();
      const previous = blocks[blocks.length - 1];
      if (previous?.kind === "table") previous.rows.push(trimmed);
      else blocks.push({ kind: "table", rows: [trimmed] });
      continue;
    }
    if (/^!\[/.test(trimmed) || /^:::/.test(trimmed)) {
      flush();
      blocks.push({ kind: "other" });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const indented = /^\s{2,}/.test(line);
      if (list && indented) {
        list[list.length - 1] = `${list[list.length - 1]}\n${line.replace(/\s+$/, "")}`;
        continue;
      }
      if (paragraph.length > 0) flush();
      list ??= [];
      list.push(trimmed);
      continue;
    }
    if (list) {
      // A continuation line of the last item.
      list[list.length - 1] = `${list[list.length - 1]} ${trimmed}`;
      continue;
    }
    paragraph.push(trimmed);
  }
  flush();
  return withInferredHeadings(blocks);
}

/**
 * The items of a list's Markdown: an unindented item line opens an item; an indented line (a
 * nested item, code under the item) stays on a line of its own in it; any other line continues the
 * item's text.
 */
export function listItemsOf(text: string): string[] {
  const items: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const last = items.length - 1;
    if (last < 0 || (LIST_ITEM.test(line) && !/^\s/.test(line))) items.push(line.trim());
    else if (/^\s/.test(line)) items[last] = `${items[last]}\n${line.replace(/\s+$/, "")}`;
    else items[last] = `${items[last]} ${line.trim()}`;
  }
  return items;
}

/** Blocks with each short line standing alone before more text (no closing punctuation) a heading. */
export function withInferredHeadings(blocks: ChunkBlock[]): ChunkBlock[] {
  for (const [index, block] of blocks.entries()) {
    const next = blocks[index + 1]?.kind;
    if (
      block.kind === "paragraph" &&
      index < blocks.length - 1 &&
      block.text.split(" ").length <= 10 &&
      (!/[.!?:;,)"']$/.test(block.text) ||
        (block.text.split(" ").length < MIN_WORDS &&
          next !== "paragraph" &&
          // "Useful flags:" before a table introduces it, as a longer sentence would, and so
          // does a label ending in a full stop before a list ("Causes and fixes.").
          !(block.text.endsWith(":") && (next === "list" || next === "code" || next === "table")) &&
          !(block.text.endsWith(".") && next === "list")))
    ) {
      blocks[index] = { kind: "heading", text: block.text, inferred: true };
    }
  }
  return blocks;
}

export function blockText(block: ChunkBlock): string {
  if (block.kind === "list") return block.items.join(" ");
  if (block.kind === "code") return block.lines.join(" ");
  if (block.kind === "table") return block.rows.join(" ");
  return "";
}

/** A table row's cells, trimmed, without the outer pipes; an escaped pipe (`\|`) stays in its cell. */
export function tableCells(row: string): string[] {
  return row
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** Whether a table row is the line under the header (`--- | ---`). */
export function isSeparatorRow(row: string): boolean {
  return /^\|?\s*:?-{3,}/.test(row);
}

/** A table as valid Markdown: its first row is the header; at most MAX_LIST_ITEMS rows. */
function renderTable(rows: string[]): string {
  const body = rows.slice(1).filter((row) => !isSeparatorRow(row));
  const header = tableCells(rows[0] ?? "");
  const line = (values: string[]) =>
    `| ${header.map((_, index) => values[index] ?? "").join(" | ")} |`;
  const shown = body.slice(0, MAX_LIST_ITEMS).map((row) => line(tableCells(row)));
  if (body.length > MAX_LIST_ITEMS) shown.push(line(header.map(() => "…")));
  return [line(header), `| ${header.map(() => "---").join(" | ")} |`, ...shown].join("\n");
}

export function renderBlock(block: ChunkBlock): string {
  if (block.kind === "table") return renderTable(block.rows);
  if (block.kind === "code") {
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(block.fence)?.[1] ?? "```";
    const lines =
      block.lines.length > MAX_CODE_LINES
        ? [...block.lines.slice(0, MAX_CODE_LINES), "…"]
        : block.lines;
    return [block.fence, ...lines, fenceMark].join("\n");
  }
  if (block.kind === "list") {
    const items = block.items.slice(0, MAX_LIST_ITEMS);
    if (block.items.length > MAX_LIST_ITEMS) {
      const ordered = /^\d/.test(block.items[0] ?? "");
      items.push(ordered ? `${MAX_LIST_ITEMS + 1}. …` : "- …");
    }
    return items.join("\n");
  }
  return "";
}
