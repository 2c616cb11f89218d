import { checkSameBook, recordBook } from "../../book.ts";
import type { Config } from "../../config/config.ts";
import { type CrawlResult, crawlSite } from "../../ingest/crawl/crawl.ts";
import { CrawlDocSource } from "../../ingest/crawl/crawl-doc-source.ts";
import {
  readCrawlState,
  recordCrawledPage,
  writeCrawlState,
} from "../../ingest/crawl/crawl-state.ts";
import { refuseIfLocked } from "../../ingest/ingest-lock.ts";
import { openLectern } from "../../lectern.ts";
import { VERSION } from "../../version.ts";
import type { Flags } from "../flags.ts";
import { createProgressBar } from "../progress.ts";
import { maxPages, siteUrl } from "../usage.ts";
import { runIngest } from "./run-ingest.ts";

/** Where the crawler's User-Agent sends a site's operator to read what it is. */
const CRAWLER_INFO_URL = "https://www.npmjs.com/package/@lectern/server";
/** Requests in flight at once: polite to a docs site, fast enough for a few thousand pages. */
const CONCURRENCY = 4;
/** HTML pages larger than this are skipped (10 MiB). */
const MAX_HTML_BYTES = 10 * 1024 * 1024;
/** One request may take this long (30 s). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `lectern ingest --url <site> [--sitemap <url>] [--include <glob>]… [--exclude <glob>]…
 * [--max-pages N] [--replace]`: crawls the site, then ingests its pages in one run, as a docs folder is.
 * The crawl's state (validators and Markdown per URL) is written only once the ingest committed.
 */
export async function ingestSiteCommand(config: Config, flags: Flags): Promise<number> {
  // With a sitemap alone, the site is its origin.
  const start = flags.url
    ? siteUrl(flags.url, "url")
    : new URL("/", siteUrl(flags.sitemap ?? "", "sitemap"));
  start.hash = "";
  const site = start.href;
  await refuseIfLocked(config.dataDir, config.collection);
  const json = Boolean(flags.json);
  const result = await crawl(config, flags, site);
  if (!json) {
    for (const warning of result.warnings) process.stderr.write(`⚠ ${warning.message}\n`);
    const pages = Object.keys(result.pages).length;
    process.stdout.write(
      `Crawled ${site}: ${pages} pages (${result.fetched} fetched, ${result.notModified} not modified)\n`,
    );
  }
  const reembed = Boolean(flags.reembed);
  const lectern = await openLectern(config, { reembed, workload: "ingest" });
  try {
    // Another book (a folder, another site) is replaced only when asked, as with --docs.
    if (!flags.replace) await checkSameBook(lectern.store, config, site);
    if (reembed) await lectern.vectors?.deleteAll();
    const code = await runIngest(lectern, new CrawlDocSource(result.pages, site), {
      json,
      strict: Boolean(flags.strict),
      extra: { crawl: crawlSummary(site, result) },
    });
    await recordBook(lectern.store, config, site);
    await writeCrawlState(config.dataDir, config.collection, { url: site, pages: result.pages });
    return code;
  } finally {
    await lectern.close();
  }
}

async function crawl(config: Config, flags: Flags, site: string): Promise<CrawlResult> {
  const progress = createProgressBar(process.stderr, "Crawling");
  const previous = await readCrawlState(config.dataDir, config.collection, site);
  // Each page is kept as it comes, so that an interrupted crawl is resumed with 304s.
  let recording = Promise.resolve();
  try {
    return await crawlSite({
      url: site,
      ...(flags.sitemap ? { sitemap: flags.sitemap } : {}),
      include: flags.include ?? [],
      exclude: flags.exclude ?? [],
      maxPages: maxPages(flags["max-pages"]),
      concurrency: CONCURRENCY,
      userAgent: `Lectern/${VERSION} (+${CRAWLER_INFO_URL})`,
      maxPageBytes: MAX_HTML_BYTES,
      timeoutMs: REQUEST_TIMEOUT_MS,
      previous,
      onProgress: (event) => progress.update(event),
      onPage: (url, page) => {
        recording = recording
          .then(() => recordCrawledPage(config.dataDir, config.collection, site, url, page))
          .catch(() => undefined);
      },
    });
  } finally {
    await recording;
    progress.finish();
  }
}

function crawlSummary(site: string, result: CrawlResult) {
  return {
    url: site,
    pages: Object.keys(result.pages).length,
    fetched: result.fetched,
    notModified: result.notModified,
    warnings: result.warnings,
  };
}
