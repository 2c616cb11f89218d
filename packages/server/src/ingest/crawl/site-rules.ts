/**
 * What a crawl may fetch on a site: its scope (the start URL's origin and folder), the
 * `--include`/`--exclude` globs on URL paths, robots.txt, and the page lists of its sitemaps.
 */
import { XMLParser } from "fast-xml-parser";
import robotsModule from "robots-parser";

/** The package's one function (its types describe it as the module's default export). */
const robotsParser = robotsModule as unknown as (
  url: string,
  text: string,
) => {
  isAllowed(url: string, agent?: string): boolean | undefined;
  getCrawlDelay(agent?: string): number | undefined;
  getSitemaps(): string[];
};

export interface Robots {
  isAllowed(url: string): boolean;
  /** Seconds between requests the site asks for (Crawl-delay), if any. */
  crawlDelay: number | undefined;
  sitemaps: string[];
}

/** The rules of a robots.txt for this crawler (`agent` is its product token, "Lectern"). */
export function parseRobots(robotsUrl: string, text: string, agent: string): Robots {
  const robots = robotsParser(robotsUrl, text);
  return {
    isAllowed: (url) => robots.isAllowed(url, agent) !== false,
    crawlDelay: robots.getCrawlDelay(agent),
    sitemaps: robots.getSitemaps(),
  };
}

export const ALLOW_ALL: Robots = { isAllowed: () => true, crawlDelay: undefined, sitemaps: [] };

/** The folder a crawl stays in: the start URL's origin and path up to its last "/". */
export function scopeOf(start: URL): { origin: string; pathPrefix: string } {
  return { origin: start.origin, pathPrefix: start.pathname.replace(/[^/]*$/, "") };
}

export function inScope(url: URL, scope: { origin: string; pathPrefix: string }): boolean {
  return url.origin === scope.origin && url.pathname.startsWith(scope.pathPrefix);
}

/**
 * A glob on URL paths as a regular expression: `**` any characters, `*` any but "/", `?` one
 * character but "/". A pattern without a leading "/" matches at any depth.
 */
export function globPattern(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? "";
    if (char === "*" && glob[index + 1] === "*") {
      source += ".*";
      index++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(glob.startsWith("/") ? `^${source}$` : `(^|/)${source}$`);
}

/** Whether a URL path passes the include globs (any, when given) and none of the exclude globs. */
export function pathFilter(include: string[], exclude: string[]): (path: string) => boolean {
  const included = include.map(globPattern);
  const excluded = exclude.map(globPattern);
  return (path) =>
    (included.length === 0 || included.some((pattern) => pattern.test(path))) &&
    !excluded.some((pattern) => pattern.test(path));
}

export interface SitemapEntries {
  /** Page URLs of a `<urlset>`. */
  pages: string[];
  /** Sitemap URLs of a `<sitemapindex>`. */
  sitemaps: string[];
}

const xml = new XMLParser({
  ignoreAttributes: true,
  isArray: (name) => name === "url" || name === "sitemap",
});

/** The URLs a sitemap or sitemap index lists; throws when the text is not XML. */
export function parseSitemap(text: string): SitemapEntries {
  const document = xml.parse(text, true) as {
    urlset?: { url?: { loc?: unknown }[] } | "";
    sitemapindex?: { sitemap?: { loc?: unknown }[] } | "";
  };
  const locations = (entries: { loc?: unknown }[] | undefined) =>
    (entries ?? []).map((entry) => String(entry.loc ?? "").trim()).filter(Boolean);
  return {
    pages: document.urlset ? locations(document.urlset.url) : [],
    sitemaps: document.sitemapindex ? locations(document.sitemapindex.sitemap) : [],
  };
}

/** File extensions that are never pages: not worth a request. */
const NOT_A_PAGE =
  /\.(png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|json|xml|txt|pdf|zip|gz|tgz|woff2?|ttf|eot|mp4|webm|mp3|wasm|inv)$/i;

export function looksLikePage(url: URL): boolean {
  return !NOT_A_PAGE.test(url.pathname);
}

/**
 * The file path a crawled page gets in the book: its URL path, `index` for a folder, `.html`
 * dropped, `.md` added ("/guide/install.html" → "guide/install.md", "/" → "index.md").
 */
export function filePathOf(url: URL): string {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep the path as sent.
  }
  if (path.endsWith("/")) path += "index";
  path = path.replace(/^\/+/, "").replace(/\.x?html?$/i, "");
  return `${path || "index"}.md`;
}
