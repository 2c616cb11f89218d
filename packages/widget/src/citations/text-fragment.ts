/** How many leading words of a snippet identify its passage on the page. */
const FRAGMENT_WORDS = 8;
/** The server's snippets are the first 200 characters of what the answer quotes of a passage. */
const SNIPPET_LENGTH = 200;

/**
 * The first words of a snippet as they appear on the rendered page: its first paragraph with
 * Markdown punctuation removed. Code is left out, since highlighting prefers prose.
 */
export function leadingWords(snippet: string, count = FRAGMENT_WORDS): string {
  const prose = snippet.split(/```|~~~/)[0] ?? "";
  const firstParagraph = prose.split(/\n\s*\n/).find((paragraph) => paragraph.trim() !== "") ?? "";
  // Markdown marks sit at the edges of words; underscores inside a word (`primer_bot`) stay.
  const words = firstParagraph
    .split(/\s+/)
    .map((word) => word.replace(/^[`*_#>[(]+|[`*_\])]+$/g, ""))
    .filter((word) => word !== "");
  // The snippet stops at 200 characters: when this paragraph runs to that end, its last word
  // may be cut short.
  const cutShort =
    snippet.length >= SNIPPET_LENGTH && snippet.trimEnd().endsWith(firstParagraph.trimEnd());
  const complete = cutShort ? words.slice(0, -1) : words;
  return complete.slice(0, count).join(" ");
}

/** Browsers that understand `:~:text=` expose `document.fragmentDirective`. */
export function supportsTextFragments(): boolean {
  return typeof document !== "undefined" && "fragmentDirective" in document;
}

/**
 * Adds a Text Fragment (`#anchor:~:text=…`) so the browser scrolls to the cited passage and
 * highlights it. Only where supported: elsewhere the directive would spoil the anchor.
 */
export function withTextFragment(
  url: string,
  snippet: string,
  supported = supportsTextFragments(),
): string {
  const words = supported ? leadingWords(snippet) : "";
  if (!words) return url;
  const encoded = encodeURIComponent(words).replace(/-/g, "%2D");
  return `${url}${url.includes("#") ? "" : "#"}:~:text=${encoded}`;
}
