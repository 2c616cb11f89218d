/**
 * Markdown written as text: what the chunker and the answer path need of Markdown without the
 * parser (markdown.ts loads the whole remark stack, which a server answering from an existing
 * index never needs).
 */

/** A list item's marker opening a prose block: the block is a list. */
export const LIST_START = /^(?:[-*+]|\d{1,3}[.)])\s/;

/** The longest run of backticks in the code, plus one (at least three). */
export function fenceMarker(code: string): string {
  const longestRun = Math.max(2, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length));
  return "`".repeat(longestRun + 1);
}

/** Code as a fenced block whose fence no line of the code can close. */
export function fence(lang: string, code: string, marker = fenceMarker(code)): string {
  return `${marker}${lang}\n${code}\n${marker}`;
}
