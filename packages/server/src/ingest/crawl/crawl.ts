// Over 300 lines on purpose: one crawler, whose discovery, politeness and handling of each answer read top to bottom.
/**
 * Crawls a documentation site into Markdown pages: the pages its sitemaps list and those its pages
 * link to, within the start URL's folder, as robots.txt allows, a few requests at a time. Pages
 * the previous crawl fetched are asked for with their validators (ETag, Last-Modified): a 304
 * keeps the stored page. Nothing is written here; the caller ingests the result in one run.
 */
import { createError, isLecternError } from "@lectern/engine/errors";
import { extractPage } from "./extract.ts";
import {
  decodeHtml,
  type FetchOutcome,
  type FetchSettings,
  fetchPage,
  isHtml,
} from "./fetch-page.ts";
import {
  ALLOW_ALL,
  filePathOf,
  inScope,
  looksLikePage,
  parseRobots,
  parseSitemap,
  pathFilter,
  type Robots,
  scopeOf,
} from "./site-rules.ts";

export interface CrawlOptions {
  /** The site's start page; the crawl stays within its origin and folder. */
  url: string;
  /** Take the pages from this sitemap (or sitemap index) only, instead of discovering them. */
  sitemap?: string;
  /** Globs on URL paths: only matching pages are crawled (all when empty). */
  include: string[];
  /** Globs on URL paths: matching pages are not crawled. */
  exclude: string[];
  /** At most this many pages are kept. */
  maxPages: number;
  /** Requests in flight at once (1 when robots.txt sets a Crawl-delay). */
  concurrency: number;
  userAgent: string;
  /** A larger HTML page is skipped with CRAWL_PAGE_TOO_LARGE. */
  maxPageBytes: number;
  timeoutMs: number;
  /** The previous crawl's pages, for conditional requests. */
  previous: CrawlPages | undefined;
  onProgress?: (event: { done: number; total: number; file: string }) => void;
  /** Told of each page as it is crawled (to keep a partial crawl for the next run). */
  onPage?: (url: string, page: CrawledPage) => void;
  /** Waits between requests when robots.txt asks for it (injected by tests). */
  sleep?: (milliseconds: number) => Promise<void>;
}

/** One page of the site, by its URL. */
export interface CrawledPage {
  /** The page's path in the book (see filePathOf). */
  filePath: string;
  markdown: string;
  /** In-scope links found on the page, to crawl again on a 304. */
  links: string[];
  etag?: string;
  lastModified?: string;
}

export type CrawlPages = Record<string, CrawledPage>;

export interface CrawlWarning {
  url: string;
  code: string;
  message: string;
}

export interface CrawlResult {
  pages: CrawlPages;
  /** Pages downloaded (200). */
  fetched: number;
  /** Pages the server said had not changed (304). */
  notModified: number;
  warnings: CrawlWarning[];
}

/** Crawl-delay values above this are read as this (seconds). */
const MAX_CRAWL_DELAY_SECONDS = 30;
/** Sitemap indexes are followed this deep. */
const MAX_SITEMAP_DEPTH = 3;

export function crawlSite(options: CrawlOptions): Promise<CrawlResult> {
  return new SiteCrawler(options).run();
}

class SiteCrawler {
  private readonly start: URL;
  private readonly scope: { origin: string; pathPrefix: string };
  private readonly wanted: (path: string) => boolean;
  private robots: Robots = ALLOW_ALL;
  private readonly queue: string[] = [];
  private readonly seen = new Set<string>();
  /** The URL each file path was kept under. */
  private readonly filePaths = new Map<string, string>();
  /** The previous crawl's pages by file path, for a page reached by another URL. */
  private readonly previousByFile = new Map<string, CrawledPage>();
  private readonly result: CrawlResult = { pages: {}, fetched: 0, notModified: 0, warnings: [] };
  private visited = 0;
  private lastRequestAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: CrawlOptions) {
    this.start = new URL(options.url);
    this.start.hash = "";
    this.scope = scopeOf(this.start);
    this.wanted = pathFilter(options.include, options.exclude);
    for (const page of Object.values(options.previous ?? {})) {
      this.previousByFile.set(page.filePath, page);
    }
  }

  async run(): Promise<CrawlResult> {
    this.robots = await this.readRobots();
    if (this.options.sitemap) {
      for (const url of await this.sitemapPages(this.options.sitemap, 0, true)) this.enqueue(url);
    } else {
      this.enqueue(this.start.href, true);
      const sitemaps =
        this.robots.sitemaps.length > 0
          ? this.robots.sitemaps
          : [new URL("sitemap.xml", this.start).href];
      for (const sitemap of sitemaps) {
        for (const url of await this.sitemapPages(sitemap, 0, false)) this.enqueue(url);
      }
    }
    await this.drain();
    this.options.onProgress?.({ done: this.visited, total: this.seen.size, file: "" });
    if (Object.keys(this.result.pages).length === 0) {
      const where = this.options.sitemap ?? this.start.href;
      throw createError(
        "CRAWL_NO_PAGES",
        `No HTML page to ingest was found from ${where}${this.result.warnings.length > 0 ? ` (${this.result.warnings[0]?.message})` : ""}.`,
        {
          details: { url: where },
        },
      );
    }
    return this.result;
  }

  /** robots.txt of the site: none (4xx) allows everything; an unreachable site stops the crawl. */
  private async readRobots(): Promise<Robots> {
    const robotsUrl = new URL("/robots.txt", this.start).href;
    const outcome = await this.request(robotsUrl, true);
    if (outcome.kind !== "page") return ALLOW_ALL;
    const text = new TextDecoder().decode(outcome.body);
    return parseRobots(robotsUrl, text, "Lectern");
  }

  /** GET with the site's rules; network errors become CRAWL_UNREACHABLE when `essential`. */
  private async request(url: string, essential: boolean): Promise<FetchOutcome> {
    await this.waitForTurn();
    const settings: FetchSettings = {
      userAgent: this.options.userAgent,
      maxBytes: this.options.maxPageBytes,
      timeoutMs: this.options.timeoutMs,
      mayVisit: (target) => inScope(target, this.scope) && this.robots.isAllowed(target.href),
      claim: (target) => {
        if (this.seen.has(target.href)) return false;
        this.seen.add(target.href);
        return true;
      },
      validatorsOf: (target) => this.previousOf(target),
    };
    try {
      return await fetchPage(url, settings);
    } catch (error) {
      if (isLecternError(error) || !essential) throw error;
      const reason =
        (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw createError("CRAWL_UNREACHABLE", `Cannot reach ${url} (${reason}).`, {
        details: { url },
        cause: error,
      });
    }
  }

  /** Spaces requests by the site's Crawl-delay, when it has one (requests are then one at a time). */
  private async waitForTurn(): Promise<void> {
    const delay = this.robots.crawlDelay;
    if (!delay || delay <= 0) return;
    const gap = Math.min(delay, MAX_CRAWL_DELAY_SECONDS) * 1000;
    const now = Date.now();
    const wait = Math.min(gap, this.lastRequestAt + gap - now);
    this.lastRequestAt = now + Math.max(0, wait);
    if (wait > 0) await (this.options.sleep ?? defaultSleep)(wait);
  }

  /** The page URLs of a sitemap, following sitemap indexes; [] for a missing optional one. */
  private async sitemapPages(
    sitemapUrl: string,
    depth: number,
    required: boolean,
  ): Promise<string[]> {
    if (depth > MAX_SITEMAP_DEPTH || /\.gz$/i.test(sitemapUrl)) return [];
    const outcome = await this.request(sitemapUrl, required);
    if (outcome.kind !== "page") {
      if (required) {
        throw createError(
          "CRAWL_UNREACHABLE",
          `Cannot read the sitemap ${sitemapUrl} (${describe(outcome)}).`,
          {
            details: { url: sitemapUrl },
          },
        );
      }
      return [];
    }
    let entries: ReturnType<typeof parseSitemap>;
    try {
      entries = parseSitemap(new TextDecoder().decode(outcome.body));
    } catch (error) {
      this.warn(
        sitemapUrl,
        "CRAWL_SITEMAP_INVALID",
        `not a sitemap (${(error as Error).message.split("\n")[0]})`,
      );
      return [];
    }
    const pages = [...entries.pages];
    for (const nested of entries.sitemaps) {
      pages.push(...(await this.sitemapPages(nested, depth + 1, false)));
    }
    return pages;
  }

  /** Adds a URL to crawl once, when it is in scope, wanted, allowed and looks like a page. */
  private enqueue(href: string, isStart = false): void {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return;
    }
    url.hash = "";
    if (this.seen.has(url.href) || url.search || !inScope(url, this.scope) || !looksLikePage(url))
      return;
    if (!isStart && !this.wanted(url.pathname)) return;
    this.seen.add(url.href);
    if (!this.robots.isAllowed(url.href)) return;
    this.queue.push(url.href);
  }

  /** Visits queued URLs, `concurrency` at a time, until none is left. */
  private async drain(): Promise<void> {
    const concurrency = this.robots.crawlDelay ? 1 : Math.max(1, this.options.concurrency);
    const running = new Set<Promise<void>>();
    while (this.queue.length > 0 || running.size > 0) {
      while (this.queue.length > 0 && running.size < concurrency && !this.full()) {
        const url = this.queue.shift() as string;
        const task: Promise<void> = this.visit(url).finally(() => running.delete(task));
        running.add(task);
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
    if (this.full() && this.queue.length > 0) {
      this.warn(
        this.start.href,
        "CRAWL_MAX_PAGES",
        `stopped at ${this.options.maxPages} pages (--max-pages); ${this.queue.length} more were found`,
      );
    }
  }

  private full(): boolean {
    return Object.keys(this.result.pages).length >= this.options.maxPages;
  }

  private async visit(url: string): Promise<void> {
    const isStart = url === this.start.href && !this.options.sitemap;
    const outcome = await this.request(url, isStart).catch((error: unknown) => {
      if (isLecternError(error) && (error.code !== "CRAWL_REDIRECT_LOOP" || isStart)) throw error;
      return error as Error;
    });
    this.visited++;
    this.options.onProgress?.({ done: this.visited, total: this.seen.size, file: url });
    if (outcome instanceof Error) {
      this.keepPrevious(
        url,
        isLecternError(outcome) ? outcome.code : "CRAWL_PAGE_FAILED",
        outcome.message,
      );
      return;
    }
    if (isStart && outcome.kind === "failed") {
      throw createError("CRAWL_UNREACHABLE", `${url} answered HTTP ${outcome.status}.`, {
        details: { url },
      });
    }
    this.handle(url, outcome, isStart);
  }

  private handle(url: string, outcome: FetchOutcome, isStart: boolean): void {
    const previous = this.previousOf(outcome.url);
    if (outcome.kind === "page") {
      this.readPage(outcome, isStart);
    } else if (outcome.kind === "not-modified" && previous) {
      this.result.notModified++;
      this.accept(outcome.url, previous, isStart);
    } else if (outcome.kind === "not-modified") {
      this.warn(url, "CRAWL_PAGE_FAILED", "304 Not Modified for a page never fetched; skipped");
    } else if (outcome.kind === "too-large") {
      this.warn(
        url,
        "CRAWL_PAGE_TOO_LARGE",
        `skipped, ${outcome.size} bytes is more than the ${this.options.maxPageBytes} a page may have`,
      );
    } else if (outcome.kind === "known") {
      // A redirect to a page crawled anyway ("/old" → "/new/"): nothing more to do.
    } else if (outcome.kind === "outside") {
      this.warn(
        url,
        "CRAWL_OUTSIDE_SITE",
        `redirects to ${outcome.target}, outside the crawled site or disallowed by robots.txt; skipped`,
      );
    } else if (outcome.status === 404 || outcome.status === 410) {
      // Gone: a page the index holds is removed with this run.
      this.warn(url, "CRAWL_PAGE_FAILED", `HTTP ${outcome.status}; not ingested`);
    } else {
      this.keepPrevious(url, "CRAWL_PAGE_FAILED", `HTTP ${outcome.status}`);
    }
  }

  private readPage(outcome: Extract<FetchOutcome, { kind: "page" }>, isStart: boolean): void {
    if (!isHtml(outcome.contentType)) return;
    const decoded = decodeHtml(outcome.body, outcome.contentType);
    if ("charset" in decoded) {
      this.warn(
        outcome.url,
        "CRAWL_CHARSET_UNSUPPORTED",
        `skipped, its charset "${decoded.charset}" is not one this runtime decodes`,
      );
      return;
    }
    const extracted = extractPage(decoded.text, outcome.url);
    this.result.fetched++;
    const links = extracted.links.filter((link) => inScope(new URL(link), this.scope));
    this.follow(links);
    if (extracted.noindex) return;
    const page: CrawledPage = {
      filePath: filePathOf(new URL(outcome.url)),
      markdown: extracted.markdown,
      links: [...new Set(links)],
      ...(outcome.etag ? { etag: outcome.etag } : {}),
      ...(outcome.lastModified ? { lastModified: outcome.lastModified } : {}),
    };
    this.accept(outcome.url, page, isStart);
  }

  /** Queues a page's links, unless the pages come from a given sitemap alone. */
  private follow(links: string[]): void {
    if (this.options.sitemap) return;
    for (const link of links) this.enqueue(link);
  }

  /** What the previous crawl found at this URL, or at another URL of the same page. */
  private previousOf(url: string): CrawledPage | undefined {
    return this.options.previous?.[url] ?? this.previousByFile.get(filePathOf(new URL(url)));
  }

  /**
   * Keeps a page, once per file path: "/a/" and "/a/index.html" are one page, kept under the
   * shorter URL whichever answers first, so that its URL does not change from crawl to crawl.
   */
  private accept(url: string, page: CrawledPage, isStart: boolean): void {
    this.follow(page.links);
    if (isStart && !this.wanted(new URL(url).pathname)) return;
    this.seen.add(url);
    const kept = this.filePaths.get(page.filePath);
    if (kept !== undefined) {
      if (kept.length < url.length || (kept.length === url.length && kept <= url)) return;
      delete this.result.pages[kept];
    } else if (this.full()) {
      return;
    }
    this.filePaths.set(page.filePath, url);
    this.result.pages[url] = page;
    this.options.onPage?.(url, page);
  }

  /** A page that failed for now (a 5xx, a timeout) keeps what the previous crawl found. */
  private keepPrevious(url: string, code: string, reason: string): void {
    const previous = this.previousOf(url);
    this.warn(
      url,
      code,
      previous ? `${reason}; the previous version is kept` : `${reason}; not ingested`,
    );
    if (previous) this.accept(url, previous, false);
  }

  private warn(url: string, code: string, reason: string): void {
    this.result.warnings.push({ url, code, message: `${url}: ${reason}` });
  }
}

function describe(outcome: FetchOutcome): string {
  switch (outcome.kind) {
    case "failed":
      return `HTTP ${outcome.status}`;
    case "too-large":
      return "too large";
    case "outside":
    case "known":
      return `redirects to ${outcome.target}`;
    default:
      return "not modified";
  }
}

function defaultSleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
