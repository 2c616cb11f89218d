import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config/config.ts";
import { DocumentStore } from "../../store/document-store.ts";
import { openDatabase } from "../../store/open.ts";
import { ingestDocs, ingestOptionsFromConfig } from "../ingest.ts";
import type { CrawlPages } from "./crawl.ts";
import { CrawlDocSource, withoutSiteName } from "./crawl-doc-source.ts";
import { readCrawlState, recordCrawledPage, writeCrawlState } from "./crawl-state.ts";

const page = (filePath: string, markdown: string) => ({ filePath, markdown, links: [] });

const PAGES: CrawlPages = {
  "https://docs.example.com/guide/install.html": page(
    "guide/install.md",
    `---\ntitle: Install\n---\n\n# Install {#install}\n\n${"Run the installer from the release page. ".repeat(12)}\n\n## On Linux {#linux-setup}\n\n${"Use the package manager of the distribution. ".repeat(12)}\n`,
  ),
  // A URL path with a segment starting with "_" is a page here, not a partial.
  "https://docs.example.com/_internals/": page(
    "_internals/index.md",
    "# Internals\n\nHow it works.\n",
  ),
};

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-crawl-source-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("withoutSiteName", () => {
  const titled = (title: string) => `---\ntitle: ${JSON.stringify(title)}\n---\n\nText.\n`;
  it.each([
    [
      ["Install - Handbook", "Usage - Handbook", "Pre- and post-scripts"],
      ["Install", "Usage", "Pre- and post-scripts"],
    ],
    [
      ["Install | Handbook", "Usage | Handbook"],
      ["Install", "Usage"],
    ],
    [
      ["Install - Handbook", "Usage", "FAQ", "Limits"],
      ["Install - Handbook", "Usage", "FAQ", "Limits"],
    ],
    [
      ["Install - Linux", "Usage - Handbook"],
      ["Install - Linux", "Usage - Handbook"],
    ],
  ])("takes a suffix most titles share off them: %j", (titles, expected) => {
    const out = withoutSiteName(titles.map(titled));
    expect(out.map((text) => /title: (.*)/.exec(text)?.[1]?.replace(/^"|"$/g, ""))).toEqual(
      expected,
    );
    expect(out.every((text) => text.endsWith("\n\nText.\n"))).toBe(true);
  });
});

describe("CrawlDocSource", () => {
  it("gives each page the URL it was fetched from and each section its page's anchor", async () => {
    const config = loadConfig({
      env: {},
      overrides: { dataDir: path.join(workDir, "ingest"), baseUrl: "https://elsewhere.example" },
    });
    const db = await openDatabase(config);
    try {
      const store = new DocumentStore(db, config.collection);
      const options = ingestOptionsFromConfig(
        config,
        new CrawlDocSource(PAGES, "https://docs.example.com/"),
      );
      const report = await ingestDocs(store, {
        ...options,
        chunking: { ...options.chunking, targetTokens: 50, maxTokens: 100 },
      });
      expect(report.added).toEqual(["_internals/index.md", "guide/install.md"]);
      const urls = (await store.allChunks()).map((chunk) => chunk.url);
      expect(urls).toContain("https://docs.example.com/guide/install.html#linux-setup");
      expect(urls).toContain("https://docs.example.com/_internals/");
      expect(urls.every((url) => url.startsWith("https://docs.example.com/"))).toBe(true);
    } finally {
      await db.close();
    }
  });
});

describe("crawl state", () => {
  it("keeps a crawl's pages for the next crawl of the same site, a partial crawl on top", async () => {
    const dataDir = path.join(workDir, "state");
    const site = "https://docs.example.com/";
    expect(await readCrawlState(dataDir, "default", site)).toBeUndefined();
    await writeCrawlState(dataDir, "default", { url: site, pages: PAGES });
    expect(await readCrawlState(dataDir, "default", site)).toEqual(PAGES);
    expect(await readCrawlState(dataDir, "default", "https://other.example/")).toBeUndefined();

    const changed = { ...page("guide/install.md", "# Install\n\nNew text.\n"), etag: '"v2"' };
    await recordCrawledPage(
      dataDir,
      "default",
      site,
      "https://docs.example.com/guide/install.html",
      changed,
    );
    expect(await readCrawlState(dataDir, "default", site)).toEqual({
      ...PAGES,
      "https://docs.example.com/guide/install.html": changed,
    });
    // A completed crawl replaces the partial one.
    await writeCrawlState(dataDir, "default", { url: site, pages: PAGES });
    expect(await readCrawlState(dataDir, "default", site)).toEqual(PAGES);
  });
});
