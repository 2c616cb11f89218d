import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type StaticSite, serveStatic } from "../../../test/static-site.ts";
import { type CrawlOptions, crawlSite } from "./crawl.ts";

/**
 * The crawler against a real HTTP server (node:http on 127.0.0.1) serving a small hand-written
 * site shaped like a Docusaurus build.
 */

const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title} | Site</title></head><body><nav class="navbar"><a href="/">Home</a> <a href="/docs/intro/">Intro</a> <a href="/docs/setup/">Setup</a></nav><main><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div></article></main></body></html>`;

const FILES: Record<string, string> = {
  "index.html": html(
    "Home",
    '<p>Welcome.</p><a href="/docs/intro/">Start</a> <a href="/styles.css">css</a> <a href="/data">data</a> <a href="/private/secret.html">secret</a> <a href="https://elsewhere.example/">away</a>',
  ),
  "docs/intro/index.html": html(
    "Intro",
    '<h2 id="what-it-is">What it is</h2><p>An introduction.</p><a href="/docs/setup/#install">setup</a> <a href="/old-setup">old</a>',
  ),
  "docs/setup/index.html": html("Setup", '<h2 id="install">Install</h2><p>Run the installer.</p>'),
  "docs/listed-only/index.html": html("Listed only", "<p>Found through the sitemap.</p>"),
  "private/secret.html": html("Secret", "<p>Not for crawlers.</p>"),
  "styles.css": "body { color: red }",
  "sitemap.xml": `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{ORIGIN}/docs/listed-only/</loc></url><url><loc>https://elsewhere.example/x/</loc></url></urlset>`,
  "empty-sitemap.xml": `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`,
  "robots.txt": "User-agent: *\nDisallow: /private/\n",
};

let root: string;
let site: StaticSite;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "lectern-crawl-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(root, { recursive: true, force: true });
  site = await serveStatic(root);
  const origin = site.url.replace(/\/$/, "");
  for (const [file, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text.replaceAll("{ORIGIN}", origin));
  }
  site.route("/data", () => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: "{}",
  }));
  site.route("/old-setup", () => ({ status: 301, headers: { location: "/docs/setup/" } }));
});
afterEach(async () => {
  await site.close();
});

function options(overrides: Partial<CrawlOptions> = {}): CrawlOptions {
  return {
    url: site.url,
    include: [],
    exclude: [],
    maxPages: 100,
    concurrency: 4,
    userAgent: "Lectern/0.0.0 (+https://docs.example/lectern)",
    maxPageBytes: 1024 * 1024,
    timeoutMs: 10_000,
    previous: undefined,
    ...overrides,
  };
}

const pathsOf = (pages: Record<string, unknown>) =>
  Object.keys(pages)
    .map((url) => new URL(url).pathname)
    .sort();

describe("crawlSite", () => {
  it("finds the site's pages by its sitemap and links, as robots.txt allows, with its User-Agent", async () => {
    const result = await crawlSite(options());
    expect(pathsOf(result.pages)).toEqual([
      "/",
      "/docs/intro/",
      "/docs/listed-only/",
      "/docs/setup/",
    ]);
    expect(result.pages[`${site.url}docs/setup/`]).toMatchObject({
      filePath: "docs/setup/index.md",
      markdown: expect.stringContaining("## Install {#install}"),
    });
    const requested = site.requests.map((request) => request.path);
    expect(requested).not.toContain("/private/secret.html");
    expect(requested).not.toContain("/styles.css");
    // The redirect was followed to a page already crawled, which is fetched once.
    expect(requested.filter((request) => request === "/docs/setup/")).toHaveLength(1);
    expect(new Set(site.requests.map((request) => request.userAgent))).toEqual(
      new Set(["Lectern/0.0.0 (+https://docs.example/lectern)"]),
    );
  });

  it("asks again with the previous validators: 304s keep every page as it was", async () => {
    const first = await crawlSite(options());
    site.requests.length = 0;
    const second = await crawlSite(options({ previous: first.pages }));
    expect(second.pages).toEqual(first.pages);
    expect(second.notModified).toBe(4);
    expect(second.fetched).toBe(0);
    const pageRequests = site.requests.filter(
      (request) => request.path.startsWith("/docs/") || request.path === "/",
    );
    expect(pageRequests.every((request) => request.status === 304 || request.status === 301)).toBe(
      true,
    );
  });

  it("downloads a changed page again and keeps its previous version when the server fails", async () => {
    const first = await crawlSite(options());
    await writeFile(
      path.join(root, "docs/setup/index.html"),
      html("Setup", '<h2 id="install">Install</h2><p>Run the new installer.</p>'),
    );
    site.route("/docs/intro/", () => ({ status: 503 }));
    const second = await crawlSite(options({ previous: first.pages }));
    expect(second.fetched).toBe(1);
    expect(second.pages[`${site.url}docs/setup/`]?.markdown).toContain("Run the new installer.");
    expect(second.pages[`${site.url}docs/intro/`]).toEqual(first.pages[`${site.url}docs/intro/`]);
    expect(second.warnings).toContainEqual(
      expect.objectContaining({
        code: "CRAWL_PAGE_FAILED",
        message: expect.stringContaining("previous version is kept"),
      }),
    );
  });

  it("takes the pages of a given sitemap alone, without following their links", async () => {
    const result = await crawlSite(options({ sitemap: `${site.url}sitemap.xml` }));
    expect(pathsOf(result.pages)).toEqual(["/docs/listed-only/"]);
  });

  it("keeps to --include and --exclude globs and --max-pages", async () => {
    const included = await crawlSite(
      options({ include: ["/docs/**"], exclude: ["**/listed-only/"] }),
    );
    expect(pathsOf(included.pages)).toEqual(["/docs/intro/", "/docs/setup/"]);
    const capped = await crawlSite(options({ maxPages: 2 }));
    expect(Object.keys(capped.pages)).toHaveLength(2);
    expect(capped.warnings.map((warning) => warning.code)).toContain("CRAWL_MAX_PAGES");
  });

  it("skips a page larger than the limit, with a warning", async () => {
    await writeFile(
      path.join(root, "docs/setup/index.html"),
      html("Setup", `<p>${"long text ".repeat(2000)}</p>`),
    );
    const result = await crawlSite(options({ maxPageBytes: 8 * 1024 }));
    expect(pathsOf(result.pages)).not.toContain("/docs/setup/");
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ code: "CRAWL_PAGE_TOO_LARGE", url: `${site.url}docs/setup/` }),
    );
  });

  it("decodes a page by its declared charset and skips one it cannot decode", async () => {
    const latin1 = Buffer.from(
      html("Caf\xe9", "<p>cr\xe8me br\xfbl\xe9e</p>").replace(
        'charset="utf-8"',
        'charset="windows-1252"',
      ),
      "latin1",
    );
    site.route("/docs/intro/", () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: latin1,
    }));
    site.route("/docs/setup/", () => ({
      status: 200,
      headers: { "content-type": "text/html; charset=x-no-such-charset" },
      body: "<p>?</p>",
    }));
    const result = await crawlSite(options());
    expect(result.pages[`${site.url}docs/intro/`]?.markdown).toContain("crème brûlée");
    expect(pathsOf(result.pages)).not.toContain("/docs/setup/");
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ code: "CRAWL_CHARSET_UNSUPPORTED" }),
    );
  });

  it("waits between requests as robots.txt's Crawl-delay asks, one at a time", async () => {
    await writeFile(path.join(root, "robots.txt"), "User-agent: *\nCrawl-delay: 2\n");
    const waits: number[] = [];
    const result = await crawlSite(
      options({ sleep: async (milliseconds) => void waits.push(milliseconds) }),
    );
    expect(Object.keys(result.pages).length).toBeGreaterThan(0);
    expect(waits.length).toBeGreaterThanOrEqual(Object.keys(result.pages).length);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2000);
  });

  it.each([
    ["an unreachable site", () => options({ url: "http://127.0.0.1:9/" }), "CRAWL_UNREACHABLE"],
    [
      "a start page that is not there",
      () => options({ url: `${site.url}nothing/` }),
      "CRAWL_UNREACHABLE",
    ],
    [
      "an empty sitemap",
      () => options({ sitemap: `${site.url}empty-sitemap.xml` }),
      "CRAWL_NO_PAGES",
    ],
    [
      "a missing sitemap",
      () => options({ sitemap: `${site.url}no-sitemap.xml` }),
      "CRAWL_UNREACHABLE",
    ],
    [
      "a start page that redirects in a loop",
      () => {
        site.route("/loop/a", () => ({ status: 302, headers: { location: "/loop/b" } }));
        site.route("/loop/b", () => ({ status: 302, headers: { location: "/loop/a" } }));
        return options({ url: `${site.url}loop/a` });
      },
      "CRAWL_REDIRECT_LOOP",
    ],
    [
      "a start page that is not HTML",
      () => {
        site.route("/docs/data", () => ({
          status: 200,
          headers: { "content-type": "application/json" },
          body: "{}",
        }));
        return options({ url: `${site.url}docs/data` });
      },
      "CRAWL_NO_PAGES",
    ],
  ])("%s fails with its code", async (_name, crawlOptions, code) => {
    await expect(crawlSite(crawlOptions())).rejects.toMatchObject({ code });
  });
});
