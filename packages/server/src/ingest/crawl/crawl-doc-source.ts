import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import type { DocListing, DocSource } from "../doc-source.ts";
import type { CrawlPages } from "./crawl.ts";

/**
 * The pages of a crawl as a book's files: each page's Markdown under its file path, and its URL as
 * the page's URL (not a route computed from the path).
 */
export class CrawlDocSource implements DocSource {
  private readonly files = new Map<string, { url: string; bytes: Uint8Array }>();

  constructor(
    pages: CrawlPages,
    readonly location: string,
  ) {
    const encoder = new TextEncoder();
    const markdown = withoutSiteName(Object.values(pages).map((page) => page.markdown));
    for (const [index, [url, page]] of Object.entries(pages).entries()) {
      this.files.set(page.filePath, {
        url,
        bytes: encoder.encode(markdown[index] ?? page.markdown),
      });
    }
  }

  async list(): Promise<DocListing> {
    return {
      markdownFiles: [...this.files.keys()].sort(),
      categoryLabels: new Map(),
      problems: [],
      pageUrls: new Map([...this.files].map(([filePath, file]) => [filePath, file.url])),
    };
  }

  async read(filePath: string): Promise<Uint8Array> {
    const file = this.files.get(filePath);
    if (!file)
      throw Object.assign(new Error(`ENOENT: no such page: ${filePath}`), { code: "ENOENT" });
    return file.bytes;
  }
}

const FRONTMATTER = /^---\n([\s\S]*?)\n---\n/;
/** The end of a head title naming the site after the page: " - Site", " | Site", " — Site". */
const SITE_SUFFIX = /\s+[-|–—·]\s+[^-|–—·]+$/;

/**
 * The pages' Markdown with the site's name taken off their titles: a page without an `<h1>` is
 * titled by its `<title>`, which most generators write as "Page - Site". A suffix shared by at
 * least half the pages (and two) is the site's name, not the page's.
 */
export function withoutSiteName(markdown: string[]): string[] {
  const titles = markdown.map((text) => {
    const fields = FRONTMATTER.exec(text)?.[1];
    const parsed = fields ? (parseYaml(fields) as Record<string, unknown> | null) : null;
    return typeof parsed?.title === "string" ? { parsed, title: parsed.title } : undefined;
  });
  const counts = new Map<string, number>();
  for (const entry of titles) {
    const suffix = entry && SITE_SUFFIX.exec(entry.title)?.[0];
    if (suffix) counts.set(suffix, (counts.get(suffix) ?? 0) + 1);
  }
  const [suffix, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  if (count < 2 || count * 2 < markdown.length) return markdown;
  return markdown.map((text, index) => {
    const entry = titles[index];
    if (!entry?.title.endsWith(suffix) || entry.title.length === suffix.length) return text;
    const fields = { ...entry.parsed, title: entry.title.slice(0, -suffix.length) };
    return text.replace(FRONTMATTER, `---\n${stringifyYaml(fields)}---\n`);
  });
}
