import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { crawlSite } from "../src/ingest/crawl/crawl.ts";
import { CrawlDocSource } from "../src/ingest/crawl/crawl-doc-source.ts";
import { escapeHtml } from "../src/ingest/render-html.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import type { PageSummary } from "../src/store/document-store.ts";
import { SAMPLE_QUESTIONS } from "./cli.ts";
import { openSampleBook } from "./http-fixture.ts";
import { type StaticSite, serveStatic } from "./static-site.ts";

/**
 * The sample book ingested from its Markdown, and again by crawling it as a Docusaurus-shaped
 * site (each page's rendered HTML inside Docusaurus' layout: navbar, sidebar, breadcrumbs, the
 * `theme-doc-markdown` article, "edit this page", pagination, footer). For the book's questions,
 * the crawled index must rank the same page first as the Markdown index, for 95 % of them or more.
 */

const SAME_TOP_PAGE_AT_LEAST = 0.95;

let markdownBook: Awaited<ReturnType<typeof openSampleBook>>;
let crawledLectern: Lectern;
let workDir: string;
let site: StaticSite;

/** A page as Docusaurus lays it out, with the chrome that is not content. */
function docusaurusPage(page: PageSummary, article: string, sidebar: string): string {
  const title = escapeHtml(page.title);
  const description = page.description
    ? `<meta name="description" content="${escapeHtml(page.description)}">`
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>${title} | Robotics Primer</title>${description}</head><body>
<div id="__docusaurus"><nav class="navbar"><a class="navbar__brand" href="/">Robotics Primer</a><div class="dropdown">Version 2.0</div></nav>
<div class="main-wrapper"><aside class="theme-doc-sidebar-container"><nav aria-label="Docs sidebar">${sidebar}</nav></aside>
<main class="docMainContainer"><div class="container"><nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><ul><li>Home</li><li>${title}</li></ul></nav>
<article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${article}</div>
<footer class="theme-doc-footer"><a class="theme-edit-this-page" href="https://github.com/example/edit">Edit this page</a></footer></article>
<nav class="pagination-nav" aria-label="Docs pages"><a href="/">Previous</a></nav></div></main></div>
<footer class="footer">Copyright © Robotics Primer</footer></div></body></html>`;
}

/** Writes every page of the Markdown-ingested book as a built site; its folder. */
async function writeSite(lectern: Lectern, root: string): Promise<void> {
  const pages = await lectern.store.pages();
  const sidebar = pages
    .map((page) => `<a href="${page.url}">${escapeHtml(page.title)}</a>`)
    .join("");
  for (const page of pages) {
    const html = (await lectern.store.pageHtml(page.filePath)) ?? "";
    const folder = path.join(root, page.url);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "index.html"), docusaurusPage(page, html, sidebar));
  }
}

beforeAll(async () => {
  markdownBook = await openSampleBook();
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-crawl-parity-"));
  await writeSite(markdownBook.lectern, path.join(workDir, "site"));
  site = await serveStatic(path.join(workDir, "site"));
  const crawl = await crawlSite({
    url: `${site.url}docs/`,
    include: [],
    exclude: [],
    maxPages: 1000,
    concurrency: 4,
    userAgent: "Lectern/test",
    maxPageBytes: 10 * 1024 * 1024,
    timeoutMs: 10_000,
    previous: undefined,
  });
  crawledLectern = await openLectern(
    loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "crawled") } }),
  );
  await crawledLectern.ingest(new CrawlDocSource(crawl.pages, site.url));
}, 120_000);

afterAll(async () => {
  await crawledLectern?.close();
  await site?.close();
  await markdownBook?.cleanup();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The page a URL shows, the same for "/docs/intro", "http://host/docs/intro/#x". */
function pageOf(url: string): string {
  return new URL(url, "http://book").pathname.replace(/\/+$/, "");
}

describe("a Docusaurus-shaped site of the sample book, crawled", () => {
  it("holds every page of the book", async () => {
    const markdownPages = (await markdownBook.lectern.store.pages()).map((page) =>
      pageOf(page.url),
    );
    const crawledPages = (await crawledLectern.store.pages()).map((page) => pageOf(page.url));
    expect(crawledPages.sort()).toEqual(markdownPages.sort());
  });

  it("ranks the same page first as the Markdown index for the book's questions", async () => {
    const questions = (await readFile(SAMPLE_QUESTIONS, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { question: string; expected_pages: string[] })
      .filter((entry) => entry.expected_pages.length > 0);
    const differing: string[] = [];
    for (const { question } of questions) {
      const fromMarkdown = await markdownBook.lectern.served.retriever.search(question);
      const fromCrawl = await crawledLectern.served.retriever.search(question);
      const expected = fromMarkdown.results[0]?.chunk.url;
      const found = fromCrawl.results[0]?.chunk.url;
      if (expected === undefined) continue;
      if (found === undefined || pageOf(found) !== pageOf(expected)) {
        differing.push(`${question}: ${expected} vs ${found}`);
      }
    }
    const same = 1 - differing.length / questions.length;
    expect(same, differing.join("\n")).toBeGreaterThanOrEqual(SAME_TOP_PAGE_AT_LEAST);
  });
});
