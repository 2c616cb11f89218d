import { appendFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CrawledPage, CrawlPages } from "./crawl.ts";

/**
 * What the last crawl of a site found, beside the book's index (`index/<collection>.crawl.json`):
 * each page's Markdown, links and validators, so the next crawl asks with If-None-Match /
 * If-Modified-Since and a 304 keeps the page. Written only after the ingest committed, so the
 * file always matches the index. While a crawl runs, each page is also appended to
 * `<collection>.crawl.partial.jsonl`: a crawl that was interrupted is resumed by the next one,
 * whose requests for those pages are conditional.
 */
export interface CrawlState {
  url: string;
  pages: CrawlPages;
}

/** Raised when what the file holds changes shape; an older file is then ignored (a full crawl). */
const CRAWL_STATE_FORMAT = 1;

export function crawlStatePath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.crawl.json`);
}

function partialPath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.crawl.partial.jsonl`);
}

/**
 * The pages of the previous crawl of `url` (completed, then those of an interrupted one on top),
 * or undefined when there is none of this site.
 */
export async function readCrawlState(
  dataDir: string,
  collection: string,
  url: string,
): Promise<CrawlPages | undefined> {
  const pages: CrawlPages = {};
  try {
    const parsed = JSON.parse(await readFile(crawlStatePath(dataDir, collection), "utf8")) as {
      format?: unknown;
    } & Partial<CrawlState>;
    if (parsed.format === CRAWL_STATE_FORMAT && parsed.url === url && parsed.pages) {
      Object.assign(pages, parsed.pages);
    }
  } catch {
    // No previous crawl, or an unreadable one: every page is fetched.
  }
  const partial = await readFile(partialPath(dataDir, collection), "utf8").catch(() => "");
  for (const line of partial.split("\n")) {
    try {
      const entry = JSON.parse(line) as { url?: string; site?: string; page?: CrawledPage };
      if (entry.site === url && entry.url && entry.page) pages[entry.url] = entry.page;
    } catch {
      // A line cut by the interruption.
    }
  }
  return Object.keys(pages).length > 0 ? pages : undefined;
}

/** Keeps one crawled page of a crawl in progress (see CrawlState). */
export async function recordCrawledPage(
  dataDir: string,
  collection: string,
  site: string,
  url: string,
  page: CrawledPage,
): Promise<void> {
  await mkdir(path.join(dataDir, "index"), { recursive: true });
  await appendFile(partialPath(dataDir, collection), `${JSON.stringify({ site, url, page })}\n`);
}

/** Writes the state of a crawl whose pages were ingested (temp file + rename), dropping the partial one. */
export async function writeCrawlState(
  dataDir: string,
  collection: string,
  state: CrawlState,
): Promise<void> {
  const file = crawlStatePath(dataDir, collection);
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ format: CRAWL_STATE_FORMAT, ...state }));
  await rename(temporary, file);
  await rm(partialPath(dataDir, collection), { force: true });
}
