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
    for (const [url, page] of Object.entries(pages)) {
      this.files.set(page.filePath, { url, bytes: encoder.encode(page.markdown) });
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
