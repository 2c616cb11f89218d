import { leadingWords } from "./text-fragment.ts";

export const HIGHLIGHT_ATTRIBUTE = "data-lectern-highlight";

/** How much page text after the anchor is searched for the passage. */
const SEARCH_LIMIT = 50_000;
const SKIPPED_PARENTS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEXTAREA", "TEMPLATE"]);

/**
 * On the page being read: scrolls to the section's anchor and wraps the start of the cited passage
 * in `<mark>`. Returns whether anything was found. The previous highlight is removed first.
 */
export function revealPassage(
  doc: Document,
  anchorId: string | null,
  snippet: string | null,
): boolean {
  clearHighlights(doc);
  const anchor = anchorId ? doc.getElementById(anchorId) : null;
  const mark = snippet ? highlightPassage(doc, anchor ?? doc.body, snippet) : null;
  const target = mark ?? anchor;
  if (typeof target?.scrollIntoView === "function") {
    target.scrollIntoView({ behavior: "smooth", block: mark ? "center" : "start" });
  }
  return target !== null;
}

export function clearHighlights(doc: Document): void {
  for (const mark of doc.querySelectorAll(`mark[${HIGHLIGHT_ATTRIBUTE}]`)) {
    const parent = mark.parentNode;
    if (!parent) continue;
    mark.replaceWith(...mark.childNodes);
    parent.normalize();
  }
}

interface Position {
  node: Text;
  /** Offsets of the character in the node's text (a surrogate pair spans two). */
  start: number;
  end: number;
}

/**
 * Finds the snippet's leading words in the text after `start`, comparing letters and digits only
 * (the snippet is Markdown, the page is rendered HTML), and marks the match.
 */
function highlightPassage(doc: Document, start: Node, snippet: string): HTMLElement | null {
  const page = collectText(doc, start);
  for (const wordCount of [12, 5]) {
    const probe = foldText(leadingWords(snippet, wordCount));
    if (!probe) return null;
    const at = page.folded.indexOf(probe);
    if (at === -1) continue;
    const from = page.positions[at];
    const to = page.positions[at + probe.length - 1];
    if (from && to) return wrap(doc, page.nodes, from, to);
  }
  return null;
}

const isWordCharacter = (char: string) => /[\p{L}\p{N}]/u.test(char);

/** Letters and digits lower-cased, every other run of characters as one space. */
function foldText(value: string): string {
  let folded = "";
  let pendingSpace = false;
  for (const char of value) {
    if (!isWordCharacter(char)) {
      pendingSpace = true;
      continue;
    }
    if (pendingSpace && folded !== "") folded += " ";
    pendingSpace = false;
    folded += char.toLowerCase();
  }
  return folded;
}

/** The page's text from `start` on, folded like foldText, with each folded character's position. */
function collectText(doc: Document, start: Node) {
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement && SKIPPED_PARENTS.has(node.parentElement.tagName)
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  walker.currentNode = start;
  const nodes: Text[] = [];
  const positions: Position[] = [];
  let folded = "";
  let pendingSpace = false;
  for (
    let node = walker.nextNode();
    node && folded.length < SEARCH_LIMIT;
    node = walker.nextNode()
  ) {
    const text = node as Text;
    nodes.push(text);
    let offset = 0;
    for (const char of text.data) {
      const position = { node: text, start: offset, end: offset + char.length };
      offset = position.end;
      if (!isWordCharacter(char)) {
        pendingSpace = true;
        continue;
      }
      if (pendingSpace && folded !== "") {
        folded += " ";
        positions.push(position);
      }
      pendingSpace = false;
      for (const lower of char.toLowerCase()) {
        folded += lower;
        positions.push(position);
      }
    }
  }
  return { nodes, folded, positions };
}

/** Wraps the text between two positions in one `<mark>` per text node it crosses. */
function wrap(doc: Document, nodes: Text[], from: Position, to: Position): HTMLElement | null {
  const first = nodes.indexOf(from.node);
  const last = nodes.indexOf(to.node);
  let firstMark: HTMLElement | null = null;
  for (let index = first; index <= last; index++) {
    let node = nodes[index];
    if (!node?.parentNode) continue;
    const start = index === first ? from.start : 0;
    const end = index === last ? to.end : node.data.length;
    if (end <= start) continue;
    if (start > 0) node = node.splitText(start);
    if (end - start < node.data.length) node.splitText(end - start);
    const mark = doc.createElement("mark");
    mark.setAttribute(HIGHLIGHT_ATTRIBUTE, "");
    node.replaceWith(mark);
    mark.append(node);
    firstMark ??= mark;
  }
  return firstMark;
}
