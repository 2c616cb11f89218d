import { describe, expect, it } from "vitest";
import { filePathOf, globPattern, parseSitemap, pathFilter, scopeOf } from "./site-rules.ts";

describe("globPattern", () => {
  it.each([
    ["/guide/**", "/guide/install/linux.html", true],
    ["/guide/**", "/api/guide/x.html", false],
    ["/guide/*", "/guide/install.html", true],
    ["/guide/*", "/guide/install/linux.html", false],
    ["*.html", "/a/b/c.html", true],
    ["/v?/**", "/v2/intro", true],
    ["/v?/**", "/v10/intro", false],
    ["/a.b/*", "/axb/c", false],
  ])("%s on %s: %s", (glob, path, matches) => {
    expect(globPattern(glob).test(path)).toBe(matches);
  });

  it("includes what any include glob matches, less what an exclude glob matches", () => {
    const wanted = pathFilter(["/docs/**"], ["**/changelog/**"]);
    expect(wanted("/docs/intro/")).toBe(true);
    expect(wanted("/docs/changelog/v1/")).toBe(false);
    expect(wanted("/blog/post/")).toBe(false);
    expect(pathFilter([], [])("/anything")).toBe(true);
  });
});

describe("filePathOf", () => {
  it.each([
    ["https://x.example/", "index.md"],
    ["https://x.example/guide/", "guide/index.md"],
    ["https://x.example/guide/install.html", "guide/install.md"],
    ["https://x.example/guide/install", "guide/install.md"],
    ["https://x.example/caf%C3%A9/menu.htm", "café/menu.md"],
    ["https://x.example/_static/page.html", "_static/page.md"],
  ])("%s → %s", (url, filePath) => {
    expect(filePathOf(new URL(url))).toBe(filePath);
  });
});

describe("scopeOf", () => {
  it("keeps the crawl in the start page's folder", () => {
    expect(scopeOf(new URL("https://x.example/docs/v2/index.html"))).toEqual({
      origin: "https://x.example",
      pathPrefix: "/docs/v2/",
    });
  });
});

describe("parseSitemap", () => {
  it.each([
    [
      "a urlset",
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://x.example/a/ </loc><lastmod>2024-01-01</lastmod></url><url><loc>https://x.example/b/</loc></url></urlset>`,
      { pages: ["https://x.example/a/", "https://x.example/b/"], sitemaps: [] },
    ],
    [
      "a sitemap index",
      `<sitemapindex><sitemap><loc>https://x.example/s1.xml</loc></sitemap></sitemapindex>`,
      { pages: [], sitemaps: ["https://x.example/s1.xml"] },
    ],
    [
      "an empty urlset",
      `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`,
      { pages: [], sitemaps: [] },
    ],
    [
      "one url",
      `<urlset><url><loc>https://x.example/</loc></url></urlset>`,
      { pages: ["https://x.example/"], sitemaps: [] },
    ],
  ])("%s", (_name, xml, expected) => {
    expect(parseSitemap(xml)).toEqual(expected);
  });

  it("refuses text that is not XML", () => {
    expect(() => parseSitemap("<urlset><url>")).toThrow();
  });
});
