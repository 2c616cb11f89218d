import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import {
  buildMkdocsSite,
  buildSphinxSite,
  HANDBOOK,
  HANDBOOK_QUESTIONS,
  hasCommand,
} from "./generated-sites.ts";
import { type StaticSite, serveStatic } from "./static-site.ts";

/**
 * `lectern ingest --url` on sites built by real generators (MkDocs, Sphinx) and served over HTTP
 * on 127.0.0.1: every page indexed, answers citing URLs and anchors that exist on the served
 * pages, a re-crawl made of conditional requests that changes nothing, one edited page
 * re-indexed alone, robots.txt obeyed. A generator that is not installed skips its suite
 * locally; under CI=true it fails. Run by crawl-mkdocs.test.ts and crawl-sphinx.test.ts.
 */

export interface Generator {
  name: string;
  command: string;
  build(directory: string, rebuild?: boolean): Promise<string>;
  /** The source file of a page, to edit and rebuild. */
  sourceOf(directory: string, page: string): string;
}

export const MKDOCS: Generator = {
  name: "MkDocs",
  command: "mkdocs",
  build: buildMkdocsSite,
  sourceOf: (directory, page) => path.join(directory, "docs", `${page}.md`),
};

export const SPHINX: Generator = {
  name: "Sphinx",
  command: "sphinx-build",
  build: buildSphinxSite,
  sourceOf: (directory, page) => path.join(directory, "source", `${page}.rst`),
};

const ON_CI = process.env.CI === "true";

/** The handbook page a URL shows: "/safety/", "/safety.html" → "safety"; "/" → "index". */
function pageOf(url: string): string {
  const name = new URL(url).pathname.replace(/^\/|\/$/g, "").replace(/(\/index)?\.html$/, "");
  return name || "index";
}

/** The handbook page of a crawled file: "safety/index.md", "safety.md" → "safety". */
function pageOfFile(filePath: string): string {
  return filePath.replace(/\.md$/, "").replace(/\/index$/, "");
}

interface IngestJson {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  changed: boolean;
  crawl: { pages: number; fetched: number; notModified: number };
}

async function ingest(site: StaticSite, dataDir: string): Promise<IngestJson> {
  const result = await runCli(["ingest", "--url", site.url, "--data-dir", dataDir, "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as IngestJson;
}

/** The suite of one generator (a test file each, so that they run side by side). */
export async function crawlGeneratorSuite(generator: Generator): Promise<void> {
  const installed = await hasCommand(generator.command);
  if (!installed && !ON_CI) {
    console.warn(
      `${generator.command} is not installed: the ${generator.name} crawl tests are skipped.`,
    );
  }

  describe.skipIf(!installed && !ON_CI)(`lectern ingest --url on a ${generator.name} site`, () => {
    let directory: string;
    let site: StaticSite;
    const dataDir = () => path.join(directory, "lectern-data");

    beforeAll(async () => {
      if (!installed) throw new Error(`${generator.command} is not installed (CI=true needs it).`);
      directory = await mkdtemp(path.join(tmpdir(), `lectern-${generator.command}-`));
      site = await serveStatic(await generator.build(directory));
    }, 60_000);
    afterAll(async () => {
      await site?.close();
      if (directory) await rm(directory, { recursive: true, force: true });
    });

    it("indexes every page and cites URLs and anchors that exist on the served pages", async () => {
      const report = await ingest(site, dataDir());
      expect(report.crawl.pages).toBe(HANDBOOK.length);
      expect(report.added).toHaveLength(HANDBOOK.length);
      for (const { question, page } of HANDBOOK_QUESTIONS) {
        const result = await runCli(["ask", question, "--data-dir", dataDir(), "--json"]);
        expect(result.code).toBe(0);
        const sources = (JSON.parse(result.stdout) as { sources: { source_url: string }[] })
          .sources;
        const top = sources[0]?.source_url ?? "";
        expect(pageOf(top), question).toBe(page);
        expect(new URL(top).hash, question).not.toBe("");
        for (const { source_url: cited } of sources) {
          const response = await fetch(cited);
          expect(response.status, cited).toBe(200);
          const anchor = decodeURIComponent(new URL(cited).hash.slice(1));
          if (anchor) expect(await response.text(), cited).toContain(`id="${anchor}"`);
        }
      }
    }, 60_000);

    it("crawls again with conditional requests and changes nothing", async () => {
      site.requests.length = 0;
      const report = await ingest(site, dataDir());
      expect(report).toMatchObject({ changed: false, added: [], updated: [], removed: [] });
      expect(report.crawl).toMatchObject({ pages: HANDBOOK.length, fetched: 0 });
      expect(report.crawl.notModified).toBeGreaterThanOrEqual(HANDBOOK.length);
      const pageRequests = site.requests.filter(
        (request) => request.path.endsWith("/") || request.path.endsWith(".html"),
      );
      expect(pageRequests.length).toBeGreaterThanOrEqual(HANDBOOK.length);
      expect(pageRequests.filter((request) => request.status !== 304)).toEqual([]);
    }, 30_000);

    it("re-indexes an edited page alone", async () => {
      const source = generator.sourceOf(directory, "install");
      const text = await readFile(source, "utf8");
      await writeFile(
        source,
        text.replace(
          "while the bus power switch is off",
          "while the bus power switch is off and the arm is folded",
        ),
      );
      await generator.build(directory, true);
      const report = await ingest(site, dataDir());
      expect(report.updated.map(pageOfFile)).toEqual(["install"]);
      expect(report).toMatchObject({ added: [], removed: [], unchanged: HANDBOOK.length - 1 });
    }, 30_000);

    it("leaves out what robots.txt disallows, and drops it from the index", async () => {
      site.route("/robots.txt", () => ({
        status: 200,
        headers: { "content-type": "text/plain" },
        body: "User-agent: *\nDisallow: /safety\n",
      }));
      site.requests.length = 0;
      const report = await ingest(site, dataDir());
      expect(report.removed.map(pageOfFile)).toEqual(["safety"]);
      expect(site.requests.some((request) => request.path.startsWith("/safety"))).toBe(false);
      expect(site.requests.every((request) => request.userAgent.startsWith("Lectern/"))).toBe(true);
    }, 30_000);

    it("keeps the site's book: another site is not ingested over it without --replace", async () => {
      const other = `${site.url}${generator.name === "MkDocs" ? "install/" : "install.html"}`;
      const result = await runCli(["ingest", "--url", other, "--data-dir", dataDir()]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error [BOOK_MISMATCH]`);
      expect(result.stderr).toContain(`holds the book ingested from ${site.url}`);
      const ask = await runCli([
        "ask",
        HANDBOOK_QUESTIONS[1]?.question ?? "",
        "--data-dir",
        dataDir(),
        "--json",
      ]);
      expect(JSON.parse(ask.stdout).sources.length).toBeGreaterThan(0);
    }, 30_000);
  });
}
