// Over 300 lines on purpose: one real Docusaurus build shared by all its checks.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { devices } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/src/config/config.ts";
import { crawlSite } from "../../server/src/ingest/crawl/crawl.ts";
import { CrawlDocSource } from "../../server/src/ingest/crawl/crawl-doc-source.ts";
import { openLectern } from "../../server/src/lectern.ts";
import { launchChromium, requireChromium } from "../../server/test/browser.ts";
import { run, runOk, stdoutOf } from "../../server/test/npm.ts";
import { serveStatic } from "../../server/test/static-site.ts";
import { serveBuiltSite } from "./built-site.ts";
import {
  docusaurusInstall,
  removeDocusaurusInstall,
  skipDocusaurusBuild as skip,
} from "./docusaurus-install.ts";
import { describeStaticSite } from "./static-mode.ts";
import { describeVersionsAndSampleBook } from "./versions-and-sample-book.ts";

/**
 * A real Docusaurus 3 site built with the plugin, as a site's author would: the plugin and
 * Lectern packed as they would be published (`npm pack`), installed with Docusaurus and React from
 * the npm registry into a temporary directory, `npx docusaurus build` (whose ingestion runs the
 * installed `lectern` by the plugin's default command), then the built HTML and the Lectern index
 * that the build's ingestion wrote are read. Slow (an npm install and two production builds, a few
 * minutes); SKIP_DOCUSAURUS_BUILD=1 skips it outside CI. A versioned site and the sample book are
 * built in the same install after it (versions-and-sample-book.ts).
 */

const SITE_URL = "https://handbook.example.com";
const BASE_URL = "/handbook/";
const ROUTE_BASE_PATH = "guide";
const API_URL = "https://api.example.com";

const WIDGET_OPTIONS = {
  apiUrl: API_URL,
  title: "Ask the handbook",
  placeholder: "How do I tune a servo?",
  primaryColor: "#2e8555",
  persist: false,
  navbarButton: true,
};

const DOCS = {
  "intro.md":
    "---\nsidebar_position: 1\n---\n\n# Introduction\n\nThis handbook explains how to look after the servos of a small robot arm.\n",
  "servo-tuning.md":
    "---\nsidebar_position: 2\n---\n\n# Servo tuning\n\n## Gains\n\nRaise the proportional gain until the servo oscillates, then halve it. Add derivative gain to damp the overshoot.\n",
  // Math as Docusaurus sites write it (remark-math): the MDX parser alone fails on `{…}` in `$$`.
  "gear-ratio.mdx":
    "---\nsidebar_position: 3\n---\n\n# Gear ratio\n\nThe output torque of a gearbox grows with its reduction ratio $n$:\n\n$$\n\\tau_{out} = n \\, \\eta \\, \\tau_{in}\n$$\n\nwhere the efficiency $\\eta$ of a planetary stage is about 0.9.\n",
};

function siteConfig(ingest: Record<string, unknown>): string {
  const plugin = { ...WIDGET_OPTIONS, ingest };
  return `// Written by docusaurus-build.test.ts
import remarkMath from "remark-math";
import rehypeKatex from "rehype-katex";

export default {
  title: "Servo Handbook",
  url: ${JSON.stringify(SITE_URL)},
  baseUrl: ${JSON.stringify(BASE_URL)},
  onBrokenLinks: "throw",
  presets: [
    [
      "classic",
      {
        docs: {
          routeBasePath: ${JSON.stringify(ROUTE_BASE_PATH)},
          remarkPlugins: [remarkMath],
          rehypePlugins: [rehypeKatex],
        },
        blog: false,
      },
    ],
  ],
  plugins: [["docusaurus-plugin-lectern", ${JSON.stringify(plugin, null, 2)}]],
  themeConfig: { navbar: { title: "Servo Handbook" } },
};
`;
}

/** The attributes of every `<script src="…/lectern.js">` in a page (the minifier may rewrite them). */
function widgetScripts(html: string): Record<string, string>[] {
  const scripts: Record<string, string>[] = [];
  for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) {
    const attributes: Record<string, string> = {};
    for (const match of tag.matchAll(/([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g)) {
      const name = match[1];
      if (!name || name === "script") continue;
      attributes[name] = match[2] ?? match[3] ?? match[4] ?? "";
    }
    if (attributes.src === `${API_URL}/lectern.js`) scripts.push(attributes);
  }
  return scripts;
}

/** The file Docusaurus wrote for a URL of the site, e.g. …/handbook/guide/intro → build/guide/intro/index.html. */
function builtPage(siteDir: string, url: string): string {
  const { pathname } = new URL(url);
  expect(pathname.startsWith(BASE_URL)).toBe(true);
  return path.join(siteDir, "build", pathname.slice(BASE_URL.length), "index.html");
}

afterAll(removeDocusaurusInstall);

describe.skipIf(skip)("a real Docusaurus 3 site with docusaurus-plugin-lectern", () => {
  let siteDir: string;
  let buildOutput: string;

  beforeAll(async () => {
    // The site is the install's own folder.
    siteDir = await docusaurusInstall();
    await mkdir(path.join(siteDir, "docs"));
    for (const [name, text] of Object.entries(DOCS)) {
      await writeFile(path.join(siteDir, "docs", name), text);
    }
    await mkdir(path.join(siteDir, "src", "pages"), { recursive: true });
    await writeFile(path.join(siteDir, "src", "pages", "index.md"), "# Servo Handbook\n");
    await writeFile(
      path.join(siteDir, "docusaurus.config.js"),
      siteConfig({ enabled: true, dataDir: ".lectern" }),
    );

    buildOutput = await runOk("npx", ["--no", "docusaurus", "build"], siteDir);
  }, 15 * 60_000);

  it("installed Docusaurus 3 and the packed plugin", async () => {
    const core = JSON.parse(
      await readFile(path.join(siteDir, "node_modules/@docusaurus/core/package.json"), "utf8"),
    ) as { version: string };
    expect(core.version).toMatch(/^3\./);
    const plugin = path.join(siteDir, "node_modules/docusaurus-plugin-lectern");
    expect(existsSync(path.join(plugin, "src/index.js"))).toBe(true);
    expect(existsSync(path.join(plugin, "README.md"))).toBe(true);
    expect(existsSync(path.join(plugin, "src/options.test.ts"))).toBe(false);
    expect(existsSync(path.join(siteDir, "node_modules/.bin/lectern"))).toBe(true);
  });

  it("puts the widget script with the configured data attributes on every page", async () => {
    for (const page of ["guide/servo-tuning", "guide/intro", ""]) {
      const html = await readFile(path.join(siteDir, "build", page, "index.html"), "utf8");
      const scripts = widgetScripts(html);
      expect(scripts, page).toHaveLength(1);
      const { defer, ...attributes } = scripts[0] ?? {};
      expect(defer, page).toBeDefined();
      expect(attributes, page).toEqual({
        src: `${API_URL}/lectern.js`,
        "data-api": API_URL,
        "data-title": "Ask the handbook",
        "data-placeholder": "How do I tune a servo?",
        "data-primary-color": "#2e8555",
        "data-persist": "false",
      });
    }
  });

  it("ran lectern ingest during the build, with URLs of the built pages", async () => {
    expect(buildOutput).toContain("[docusaurus-plugin-lectern] Ingesting the docs into Lectern");
    // Every page of the site is indexed, the math page included.
    expect(buildOutput).toMatch(/Files: 3 added/);
    expect(existsSync(path.join(siteDir, "build", "guide", "gear-ratio", "index.html"))).toBe(true);

    const answer = JSON.parse(
      await stdoutOf(
        "npx",
        [
          "--no",
          "--",
          "lectern",
          "ask",
          "How do I tune the servo gains?",
          "--data-dir",
          ".lectern",
          "--json",
        ],
        siteDir,
      ),
    ) as { mode: string; sources: { source_url: string; file_path: string }[] };
    expect(answer.mode).toBe("retrieval_only");
    const top = answer.sources[0];
    expect(top?.file_path).toBe("servo-tuning.md");
    expect(top?.source_url).toBe(`${SITE_URL}${BASE_URL}${ROUTE_BASE_PATH}/servo-tuning#gains`);

    // The citation is the page's own URL (its canonical link) and its anchor is on the page.
    const sourceUrl = new URL(top?.source_url ?? "");
    const html = await readFile(builtPage(siteDir, sourceUrl.href), "utf8");
    sourceUrl.hash = "";
    expect(html).toContain(`rel="canonical" href="${sourceUrl.href}"`);
    expect(html).toContain('id="gains"');

    // Every cited page exists in the build.
    for (const source of answer.sources) {
      expect(existsSync(builtPage(siteDir, source.source_url)), source.source_url).toBe(true);
    }

    // The math page answers too.
    const math = JSON.parse(
      await stdoutOf(
        "npx",
        [
          "--no",
          "--",
          "lectern",
          "ask",
          "How does the reduction ratio change the output torque?",
          "--data-dir",
          ".lectern",
          "--json",
        ],
        siteDir,
      ),
    ) as { sources: { file_path: string }[] };
    expect(math.sources[0]?.file_path).toBe("gear-ratio.mdx");
  });

  it("wrote llms.txt, llms-full.txt and each page as .md beside its HTML in the build output", async () => {
    expect(buildOutput).toContain("[docusaurus-plugin-lectern] Writing llms.txt");
    const llms = await readFile(path.join(siteDir, "build", "llms.txt"), "utf8");
    expect(llms.split("\n")[0]).toBe("# Servo Handbook");
    const links = Array.from(llms.matchAll(/^- \[(.+?)\]\((\S+?)\)/gm), (match) => ({
      title: match[1] ?? "",
      url: match[2] ?? "",
    }));
    expect(links.map((link) => link.title).sort()).toEqual([
      "Gear ratio",
      "Introduction",
      "Servo tuning",
    ]);
    for (const link of links) {
      // The .md sits at the page's URL + .md: where a static host serves it.
      expect(link.url).toMatch(
        new RegExp(`^${SITE_URL}${BASE_URL}${ROUTE_BASE_PATH}/[\\w-]+\\.md$`),
      );
      const file = path.join(siteDir, "build", new URL(link.url).pathname.slice(BASE_URL.length));
      const markdown = await readFile(file, "utf8");
      expect(markdown.split("\n")[0], file).toBe(`# ${link.title}`);
      // Its HTML page is beside it.
      expect(existsSync(path.join(file.replace(/\.md$/, ""), "index.html")), file).toBe(true);
    }
    const tuning = await readFile(
      path.join(siteDir, "build", ROUTE_BASE_PATH, "servo-tuning.md"),
      "utf8",
    );
    expect(tuning).toContain("## Gains\n\nRaise the proportional gain until the servo oscillates");
    const full = await readFile(path.join(siteDir, "build", "llms-full.txt"), "utf8");
    for (const title of ["Introduction", "Servo tuning", "Gear ratio"]) {
      expect(full).toContain(`# ${title}\n\nSource: ${SITE_URL}${BASE_URL}${ROUTE_BASE_PATH}/`);
    }
  });

  it("crawled by lectern ingest --url's crawler, ranks the same pages and anchors first as its Markdown", async () => {
    const site = await serveStatic(path.join(siteDir, "build"), { basePath: BASE_URL });
    const config = (dataDir: string) => loadConfig({ env: {}, overrides: { dataDir } });
    const fromMarkdown = await openLectern(config(path.join(siteDir, ".lectern")));
    const crawled = await openLectern(config(path.join(siteDir, ".lectern-crawled")));
    try {
      // The build's sitemap lists the production URLs: the docs are found from a page's sidebar.
      const start = new URL(`${BASE_URL}${ROUTE_BASE_PATH}/intro`, site.url).href;
      const crawl = await crawlSite({
        url: start,
        include: [],
        exclude: [],
        maxPages: 100,
        concurrency: 4,
        userAgent: "Lectern/test",
        maxPageBytes: 10 * 1024 * 1024,
        timeoutMs: 10_000,
        previous: undefined,
      });
      await crawled.ingest(new CrawlDocSource(crawl.pages, start));
      const pathOf = (url: string) => new URL(url).pathname.replace(/\/+$/, "");
      const docs = (await crawled.store.pages()).map((page) => pathOf(page.url)).sort();
      expect(docs).toEqual(
        expect.arrayContaining(
          ["gear-ratio", "intro", "servo-tuning"].map(
            (name) => `${BASE_URL}${ROUTE_BASE_PATH}/${name}`,
          ),
        ),
      );
      for (const question of [
        "How do I tune the servo gains?",
        "How does the reduction ratio change the output torque?",
        "What does this handbook explain?",
      ]) {
        const expected =
          (await fromMarkdown.served.retriever.search(question)).results[0]?.chunk.url ?? "";
        const found = (await crawled.served.retriever.search(question)).results[0]?.chunk.url ?? "";
        expect(pathOf(found), question).toBe(pathOf(expected));
        expect(new URL(found).hash, question).toBe(new URL(expected).hash);
        const anchor = new URL(found).hash.slice(1);
        if (anchor) expect(await (await fetch(found)).text()).toContain(`id="${anchor}"`);
      }
    } finally {
      await crawled.close();
      await fromMarkdown.close();
      await site.close();
    }
  });

  const serveSite = () =>
    serveBuiltSite({
      buildDir: path.join(siteDir, "build"),
      baseUrl: BASE_URL,
      dataDir: path.join(siteDir, ".lectern"),
      apiUrl: API_URL,
    });

  it("answers a reader who asks through the widget on a built page, against a running Lectern", async () => {
    if (!requireChromium()) return;
    const site = await serveSite();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await site.routeApi(page);
      await page.goto(`${site.siteOrigin}${BASE_URL}${ROUTE_BASE_PATH}/intro`);
      const launcher = page.getByRole("button", { name: new RegExp(WIDGET_OPTIONS.title) });
      await launcher.click();
      const box = page.getByRole("textbox");
      await box.fill("How do I tune the servo gains?");
      await box.press("Enter");
      const answer = page.getByRole("article", { name: "Answer" }).last();
      await expect
        .poll(async () => (await answer.textContent()) ?? "", { timeout: 20_000 })
        .toMatch(/gain/i);
      const link = answer.getByRole("link", { name: /^Source 1:/ }).first();
      expect(await link.getAttribute("href")).toMatch(
        new RegExp(`^${SITE_URL}${BASE_URL}${ROUTE_BASE_PATH}/servo-tuning#gains`),
      );
    } finally {
      await browser.close();
      await site.close();
    }
  });

  it("names the navbar button's label in every built page and bundles its client module", async () => {
    for (const page of ["guide/servo-tuning", "guide/intro", ""]) {
      const html = await readFile(path.join(siteDir, "build", page, "index.html"), "utf8");
      expect(html, page).toMatch(
        /<meta name="docusaurus-plugin-lectern:navbar-button" content="Ask AI"\s*\/?>/,
      );
    }
    const scripts = await readdir(path.join(siteDir, "build", "assets", "js"));
    const bundled = await Promise.all(
      scripts.map((name) => readFile(path.join(siteDir, "build", "assets", "js", name), "utf8")),
    );
    expect(bundled.some((code) => code.includes("lectern-navbar-button"))).toBe(true);
  });

  it("opens the chat from the navbar's Ask AI button, on a desktop and on a phone", async () => {
    if (!requireChromium()) return;
    const site = await serveSite();
    const browser = await launchChromium();
    try {
      for (const [screen, options] of [
        ["desktop", { viewport: { width: 1280, height: 860 } }],
        ["phone", { ...devices["Pixel 7"] }],
      ] as const) {
        const context = await browser.newContext(options);
        const page = await context.newPage();
        await site.routeApi(page);
        await page.goto(`${site.siteOrigin}${BASE_URL}${ROUTE_BASE_PATH}/intro`);
        const askAi = page.locator("nav.navbar").getByRole("button", { name: "Ask AI" });
        await askAi.waitFor({ state: "visible" });
        // Beside the navbar's other items, inside the screen (Infima hides its items on phones).
        const box = await askAi.boundingBox();
        const width = page.viewportSize()?.width ?? 0;
        expect(box && box.x >= 0 && box.x + box.width <= width, screen).toBe(true);
        // Nor does it make the page wider than the screen.
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          screen,
        ).toBe(true);
        const chat = page.getByRole("dialog", { name: WIDGET_OPTIONS.title });
        expect(await chat.count(), screen).toBe(0);

        if (screen === "phone") await askAi.tap();
        else await askAi.click();
        await chat.waitFor({ state: "visible" });
        const question = chat.getByRole("textbox");
        await expect
          .poll(() => question.evaluate((el) => el.matches(":focus")), { message: screen })
          .toBe(true);
        await question.fill("How do I tune the servo gains?");
        await question.press("Enter");
        await expect
          .poll(
            async () =>
              (await chat.getByRole("article", { name: "Answer" }).last().textContent()) ?? "",
            { timeout: 20_000 },
          )
          .toMatch(/gain/i);
        await page.keyboard.press("Escape");
        await chat.waitFor({ state: "hidden" });

        // The home page has a layout of its own, so following the navbar's title link (a
        // client-side route change) renders a new navbar: the button is added to it once.
        // (The phone's menu drawer has a title link of its own, outside .navbar__inner.)
        await page.locator("nav.navbar .navbar__inner a.navbar__brand").click();
        await page.waitForURL(`${site.siteOrigin}${BASE_URL}`);
        await expect
          .poll(() => page.locator("nav.navbar .lectern-navbar-button").count(), {
            message: screen,
          })
          .toBe(1);
        await askAi.click();
        await chat.waitFor({ state: "visible" });
        await context.close();
      }
    } finally {
      await browser.close();
      await site.close();
    }
  });

  it(
    "fails the build with Lectern's error when ingestion fails",
    async () => {
      await writeFile(
        path.join(siteDir, "docusaurus.config.js"),
        siteConfig({ enabled: true, dataDir: ".lectern", docsDir: "missing-docs" }),
      );
      const build = await run("npx", ["--no", "docusaurus", "build"], siteDir);
      expect(build.code).not.toBe(0);
      expect(build.output).toContain("docusaurus-plugin-lectern: Lectern ingestion failed:");
      expect(build.output).toMatch(
        /error \[DOCS_DIR_NOT_FOUND\]: Docs directory not found: .*missing-docs/,
      );
    },
    5 * 60_000,
  );
});

describeVersionsAndSampleBook();

describeStaticSite();
