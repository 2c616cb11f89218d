import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/src/config/config.ts";
import { crawlSite } from "../../server/src/ingest/crawl/crawl.ts";
import { CrawlDocSource } from "../../server/src/ingest/crawl/crawl-doc-source.ts";
import { type Lectern, openLectern } from "../../server/src/lectern.ts";
import { launchChromium, requireChromium } from "../../server/test/browser.ts";
import { SAMPLE_DOCS, SAMPLE_QUESTIONS } from "../../server/test/cli.ts";
import { runOk } from "../../server/test/npm.ts";
import { serveStatic } from "../../server/test/static-site.ts";
import { serveBuiltSite } from "./built-site.ts";
import { buildSiteFolder, docusaurusInstall, skipDocusaurusBuild } from "./docusaurus-install.ts";

/**
 * A second site, built in the install of docusaurus-build.test.ts (one npm install, one more
 * production build for both checks): its docs are versioned with `docusaurus docs:version` and
 * the plugin ingests every version; a second docs plugin instance holds the whole sample book,
 * which is crawled from the build and compared with its Markdown ingest.
 */

const SITE_FOLDER = "books";
const SITE_URL = "https://gripper.example.com";
const API_URL = "https://api.example.com";
const WIDGET_TITLE = "Ask the gripper handbook";
const PRIMER_ROUTE = "primer";
const SAME_TOP_PAGE_AT_LEAST = 0.95;
// Where the screenshots of the widget on versioned pages are left, for a person to look at.
const SCREENSHOTS = path.join(tmpdir(), "lectern-docusaurus-versions");

const TORQUE_QUESTION = "What torque limit should I set for the gripper?";

/** The gripper's torque limit as each version states it: versioned 1.0, then 2.0, then changed. */
const TORQUE = { "1.0": "2", "2.0": "3", current: "5" } as const;

const INTRO =
  "---\nsidebar_position: 1\n---\n\n# Introduction\n\nThis handbook explains how to set up the gripper of a small robot arm.\n";

const limits = (newtonMetres: string) =>
  `---\nsidebar_position: 2\n---\n\n# Gripper limits\n\n## Torque limit\n\nSet the gripper's torque limit to ${newtonMetres} newton metres; a higher limit crushes soft parts.\n`;

const CONFIG = `// Written by versions-and-sample-book.ts
export default {
  title: "Gripper Handbook",
  url: ${JSON.stringify(SITE_URL)},
  baseUrl: "/",
  onBrokenLinks: "throw",
  presets: [["classic", { docs: {}, blog: false }]],
  plugins: [
    [
      "@docusaurus/plugin-content-docs",
      { id: "primer", path: "primer", routeBasePath: ${JSON.stringify(PRIMER_ROUTE)} },
    ],
    [
      "docusaurus-plugin-lectern",
      ${JSON.stringify({ apiUrl: API_URL, title: WIDGET_TITLE, persist: false, ingest: { enabled: true, dataDir: ".lectern" } })},
    ],
  ],
  themeConfig: { navbar: { title: "Gripper Handbook" } },
};
`;

/**
 * Writes the site with 1.0's docs, versions them as 1.0 with Docusaurus's own command, changes
 * the torque limit and versions 2.0, then changes it again in the current docs.
 */
async function writeVersionedSite(siteDir: string): Promise<void> {
  await mkdir(path.join(siteDir, "docs"), { recursive: true });
  await mkdir(path.join(siteDir, "src", "pages"), { recursive: true });
  await writeFile(path.join(siteDir, "docusaurus.config.js"), CONFIG);
  await writeFile(path.join(siteDir, "src", "pages", "index.md"), "# Gripper Handbook\n");
  await writeFile(path.join(siteDir, "docs", "intro.md"), INTRO);
  await cp(SAMPLE_DOCS, path.join(siteDir, "primer"), { recursive: true });
  for (const version of ["1.0", "2.0"] as const) {
    await writeFile(path.join(siteDir, "docs", "limits.md"), limits(TORQUE[version]));
    await runOk("npx", ["--no", "docusaurus", "docs:version", version], siteDir);
  }
  await writeFile(path.join(siteDir, "docs", "limits.md"), limits(TORQUE.current));
}

/** The path of a URL's page, the same for "/docs/intro", "http://host/docs/intro/#x". */
function pageOf(url: string): string {
  return new URL(url, "http://book").pathname.replace(/\/+$/, "");
}

export function describeVersionsAndSampleBook(): void {
  describe.skipIf(skipDocusaurusBuild)(
    "a versioned Docusaurus site with the sample book beside it, built in the same install",
    () => {
      let siteDir: string;
      let buildOutput: string;

      beforeAll(async () => {
        const root = await docusaurusInstall();
        siteDir = path.join(root, SITE_FOLDER);
        await writeVersionedSite(siteDir);
        buildOutput = await buildSiteFolder(root, SITE_FOLDER);
      }, 10 * 60_000);

      it("ingested every version of the docs during the build, each at the URLs Docusaurus built", async () => {
        expect(buildOutput).toContain("Versions: Next, 2.0 (latest), 1.0");
        const lectern = await openLectern(
          loadConfig({ env: {}, overrides: { dataDir: path.join(siteDir, ".lectern") } }),
        );
        try {
          expect(
            lectern.served.versions.map(({ name, urlSegment, latest }) => [
              name,
              urlSegment,
              latest,
            ]),
          ).toEqual([
            ["current", "next", false],
            ["2.0", "", true],
            ["1.0", "1.0", false],
          ]);
          const urls = (await lectern.store.pages()).map((page) => page.url).sort();
          const built = ["1.0/intro", "1.0/limits", "intro", "limits", "next/intro", "next/limits"];
          expect(urls).toEqual(built.map((page) => `${SITE_URL}/docs/${page}`));
          for (const page of built) {
            const file = path.join(siteDir, "build", "docs", page, "index.html");
            expect(existsSync(file), page).toBe(true);
          }
        } finally {
          await lectern.close();
        }
      });

      it("answers through the widget from the version of the page being read, citing that version's page", async () => {
        if (!requireChromium()) return;
        await askOnVersionedPages(siteDir);
      });

      it("crawled from the build, the sample book ranks the same pages first as its Markdown, at anchors its pages have", async () => {
        await compareCrawlWithMarkdown(siteDir);
      });
    },
  );
}

/** Each version's reader, on a page of that version: the page, its version's fact and citation. */
const READERS = [
  { page: "docs/1.0/intro", torque: TORQUE["1.0"], cited: "docs/1.0/limits", shot: "1.0" },
  { page: "docs/next/intro", torque: TORQUE.current, cited: "docs/next/limits", shot: "next" },
  { page: "docs/intro", torque: TORQUE["2.0"], cited: "docs/limits", shot: "2.0" },
];

async function askOnVersionedPages(siteDir: string): Promise<void> {
  const site = await serveBuiltSite({
    buildDir: path.join(siteDir, "build"),
    baseUrl: "/",
    dataDir: path.join(siteDir, ".lectern"),
    apiUrl: API_URL,
  });
  const browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
  try {
    for (const reader of READERS) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      await site.routeApi(page);
      await page.goto(`${site.siteOrigin}/${reader.page}`);
      await page.getByRole("button", { name: new RegExp(WIDGET_TITLE) }).click();
      const box = page.getByRole("textbox");
      await box.fill(TORQUE_QUESTION);
      await box.press("Enter");
      const answer = page.getByRole("article", { name: "Answer" }).last();
      await expect
        .poll(async () => (await answer.textContent()) ?? "", { timeout: 20_000 })
        .toMatch(new RegExp(`torque limit to ${reader.torque} newton metres`));
      expect(await answer.textContent(), reader.page).not.toMatch(/Not in version/);
      const link = answer.getByRole("link", { name: /^Source 1:/ }).first();
      // The link goes to the section, and may highlight the passage (a text fragment).
      const href = (await link.getAttribute("href")) ?? "";
      expect(href.replace(/:~:.*$/, ""), reader.page).toBe(
        `${SITE_URL}/${reader.cited}#torque-limit`,
      );
      await page.screenshot({ path: path.join(SCREENSHOTS, `widget-${reader.shot}.png`) });
      await context.close();
    }
  } finally {
    await browser.close();
    await site.close();
  }
}

interface Indexes {
  markdown: Lectern;
  crawled: Lectern;
}

/**
 * The sample book's Markdown ingested at the routes of its docs instance, and its built pages
 * crawled from a static server; the crawled index holds the same pages, ranks the same page first
 * for the book's questions (95 % of them or more), and every anchor it cites is on its page.
 */
async function compareCrawlWithMarkdown(siteDir: string): Promise<void> {
  const site = await serveStatic(path.join(siteDir, "build"));
  const config = (folder: string, routeBasePath?: string) =>
    loadConfig({
      env: {},
      overrides: {
        dataDir: path.join(siteDir, folder),
        ...(routeBasePath ? { routeBasePath } : {}),
      },
    });
  const indexes: Indexes = {
    markdown: await openLectern(config(".lectern-primer-markdown", `/${PRIMER_ROUTE}`)),
    crawled: await openLectern(config(".lectern-primer-crawled")),
  };
  try {
    await indexes.markdown.ingest(SAMPLE_DOCS);
    const start = `${site.url}${PRIMER_ROUTE}/`;
    const crawl = await crawlSite({
      url: start,
      include: [],
      exclude: [],
      maxPages: 1000,
      concurrency: 4,
      userAgent: "Lectern/test",
      maxPageBytes: 10 * 1024 * 1024,
      timeoutMs: 10_000,
      previous: undefined,
    });
    await indexes.crawled.ingest(new CrawlDocSource(crawl.pages, start));
    const pages = async (lectern: Lectern) =>
      (await lectern.store.pages()).map((page) => pageOf(page.url)).sort();
    const markdownPages = await pages(indexes.markdown);
    expect(markdownPages).toHaveLength(25);
    expect(await pages(indexes.crawled)).toEqual(markdownPages);
    await compareTopPages(indexes);
  } finally {
    await indexes.crawled.close();
    await indexes.markdown.close();
    await site.close();
  }
}

async function compareTopPages({ markdown, crawled }: Indexes): Promise<void> {
  const questions = (await readFile(SAMPLE_QUESTIONS, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { question: string; expected_pages: string[] })
    .filter((entry) => entry.expected_pages.length > 0);
  const differing: string[] = [];
  const missingAnchors: string[] = [];
  let anchorsSeen = 0;
  for (const { question } of questions) {
    const expected = (await markdown.served.retriever.search(question)).results[0]?.chunk.url ?? "";
    const found = (await crawled.served.retriever.search(question)).results[0]?.chunk.url ?? "";
    if (!found || pageOf(found) !== pageOf(expected)) {
      differing.push(`${question}: ${expected} vs ${found}`);
    }
    const anchor = found ? decodeURIComponent(new URL(found).hash.slice(1)) : "";
    if (!anchor) continue;
    anchorsSeen++;
    if (!(await (await fetch(found)).text()).includes(`id="${anchor}"`)) missingAnchors.push(found);
  }
  const same = 1 - differing.length / questions.length;
  expect(same, differing.join("\n")).toBeGreaterThanOrEqual(SAME_TOP_PAGE_AT_LEAST);
  expect(missingAnchors).toEqual([]);
  // Most answers cite a section, so most citations were checked.
  expect(anchorsSeen).toBeGreaterThan(questions.length / 2);
}
