import { urlPath } from "@lectern/engine/util/url-path";
import type { PageSummary } from "../store/document-store.ts";

/**
 * The book for language models, in the llms.txt format (llmstxt.org): `/llms.txt` is the book's
 * title as a level-1 heading, what it is about as a blockquote, then one level-2 section per part
 * of the book listing its pages as `- [Title](url.md): description`; `/llms-full.txt` is every page's
 * Markdown in reading order. Each page's Markdown is served at its own URL with `.md` appended
 * (`/index.md` for the root page). The server, `lectern llms-txt` and the Docusaurus plugin all
 * write the same text from here.
 */

export interface LlmsBook {
  title: string;
  /** What the book is about (the synopsis); undefined: no summary line. */
  description: string | undefined;
  pages: PageSummary[];
  /** Each page's Markdown by file path. */
  markdown: Map<string, string>;
}

/** The section of llms.txt for pages at the top of the book (outside any category). */
export const TOP_LEVEL_SECTION = "Docs";

/** Longest page description in llms.txt, in characters. */
const DESCRIPTION_CHARS = 200;

/** `/docs/intro` → `/docs/intro.md`; the root page `/` → `/index.md`; a trailing slash is dropped. */
export function markdownPath(pageUrl: string): string {
  const path = urlPath(pageUrl).replace(/\/+$/, "");
  return path === "" ? "/index.md" : `${path}.md`;
}

/** The page's URL with `.md` appended, on the same host as the page (or as a path, for a path). */
export function markdownUrl(pageUrl: string): string {
  if (pageUrl.startsWith("/")) return markdownPath(pageUrl);
  try {
    const url = new URL(pageUrl);
    url.hash = "";
    url.search = "";
    url.pathname = markdownPath(url.pathname);
    return url.href;
  } catch {
    return markdownPath(pageUrl);
  }
}

/**
 * Pages in reading order: the top-level pages first, then each part in the order of its folder
 * (numbered folders sort as the sidebar shows them); in a part, by position, then path.
 */
export function readingOrder(pages: PageSummary[]): PageSummary[] {
  const folderOf = (page: PageSummary) =>
    page.categories.length === 0 ? "" : page.filePath.split("/").slice(0, -1).join("/");
  const partOrder = new Map<string, string>();
  for (const page of pages) {
    const part = page.categories.join("/");
    const folder = folderOf(page);
    const known = partOrder.get(part);
    if (known === undefined || folder.localeCompare(known) < 0) partOrder.set(part, folder);
  }
  const partKey = (page: PageSummary) => partOrder.get(page.categories.join("/")) ?? "";
  return [...pages].sort(
    (left, right) =>
      partKey(left).localeCompare(partKey(right)) ||
      (left.position ?? 999) - (right.position ?? 999) ||
      left.filePath.localeCompare(right.filePath),
  );
}

/**
 * llms.txt. `linkOf` gives each page's link (its `.md` URL where this text is served, by default
 * the page's own URL with `.md`).
 */
export function llmsTxt(
  book: LlmsBook,
  linkOf: (page: PageSummary) => string = (page) => markdownUrl(page.url),
): string {
  const lines = [`# ${oneLine(book.title)}`, ""];
  if (book.description) lines.push(`> ${oneLine(book.description)}`, "");
  const sections = new Map<string, PageSummary[]>();
  for (const page of readingOrder(book.pages)) {
    const name = page.categories.length > 0 ? page.categories.join(" › ") : TOP_LEVEL_SECTION;
    sections.set(name, [...(sections.get(name) ?? []), page]);
  }
  for (const [name, pages] of sections) {
    lines.push(`## ${oneLine(name)}`, "");
    for (const page of pages) {
      const description = pageDescription(page, book.markdown.get(page.filePath));
      lines.push(
        `- [${linkText(page.title)}](${linkOf(page)})${description ? `: ${description}` : ""}`,
      );
    }
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** llms-full.txt: the book's heading and summary, then every page's Markdown with its URL. */
export function llmsFullTxt(book: LlmsBook): string {
  const parts = [`# ${oneLine(book.title)}`];
  if (book.description) parts.push(`> ${oneLine(book.description)}`);
  for (const page of readingOrder(book.pages)) {
    const markdown = book.markdown.get(page.filePath);
    if (markdown === undefined) continue;
    parts.push(withSource(markdown, page.url).trimEnd());
  }
  return `${parts.join("\n\n")}\n`;
}

/** The page's Markdown with a `Source: <url>` line under its title. */
export function withSource(markdown: string, url: string): string {
  const newline = markdown.indexOf("\n");
  if (newline < 0) return `${markdown}\n\nSource: ${url}\n`;
  return `${markdown.slice(0, newline)}\n\nSource: ${url}\n${markdown.slice(newline)}`;
}

/** The frontmatter description, else the first sentence of the page's first paragraph. */
export function pageDescription(page: PageSummary, markdown: string | undefined): string {
  const text = page.description?.trim() || firstSentence(markdown ?? "");
  const flat = oneLine(text);
  return flat.length > DESCRIPTION_CHARS
    ? `${flat.slice(0, DESCRIPTION_CHARS - 1).replace(/\s+\S*$/, "")}…`
    : flat;
}

function firstSentence(markdown: string): string {
  const paragraph = markdown
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "")
    .split(/\n{2,}/)
    .map((block) => block.trim())
    .find((block) => block.length > 0 && !/^(#|[-*+] |\d+\. |\||>|:::|!\[)/.test(block));
  if (!paragraph) return "";
  return paragraph.replace(/\s+/g, " ").split(/(?<=[.!?])\s+(?=[A-Z0-9`"'([])/)[0] ?? "";
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function linkText(title: string): string {
  return oneLine(title).replace(/[[\]]/g, "\\$&");
}
