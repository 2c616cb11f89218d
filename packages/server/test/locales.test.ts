import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { analyze } from "@lectern/engine/search/analyzer";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInsights } from "../src/cli/commands/insights.ts";
import { loadConfig } from "../src/config/config.ts";
import { composeApp, sliceOf } from "../src/http/compose.ts";
import { createSite } from "../src/http/site.ts";
import { readVersionedSite } from "../src/ingest/versioned-site.ts";
import type { InsightsReport } from "../src/insights/report.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { runCli } from "./cli.ts";
import { askChat, createTestApp, expectError, postJson, type TestApp } from "./http-fixture.ts";

/**
 * A translated Docusaurus site written by the test: three pages of the sample book in English
 * (docs/), the sensor page translated into French and the URDF page into Japanese in Docusaurus's
 * i18n layout (short translations of a few paragraphs). Each locale's other pages are the English
 * ones, as Docusaurus builds them.
 */
const SAMPLE = fileURLToPath(new URL("../../../examples/robotics-primer/docs/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/i18n/", import.meta.url));
const TRANSLATED = "i18n/{locale}/docusaurus-plugin-content-docs/current";
const SITE: [string, string][] = [
  [`${SAMPLE}index.md`, "docs/index.md"],
  [
    `${SAMPLE}04-sensors-and-perception/01-sensor-types.md`,
    "docs/04-sensors-and-perception/01-sensor-types.md",
  ],
  [`${SAMPLE}03-robot-description/01-urdf.md`, "docs/03-robot-description/01-urdf.md"],
  [
    `${FIXTURES}fr-sensor-types.md`,
    `${TRANSLATED.replace("{locale}", "fr")}/04-sensors-and-perception/01-sensor-types.md`,
  ],
  [
    `${FIXTURES}ja-urdf.md`,
    `${TRANSLATED.replace("{locale}", "ja")}/03-robot-description/01-urdf.md`,
  ],
];

let siteDir: string;
let dataDir: string;
let lectern: Lectern;
let app: TestApp;

beforeAll(async () => {
  siteDir = await mkdtemp(path.join(tmpdir(), "lectern-i18n-site-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-i18n-"));
  for (const [from, to] of SITE) {
    await mkdir(path.dirname(path.join(siteDir, to)), { recursive: true });
    await copyFile(from, path.join(siteDir, to));
  }
  lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  const report = await lectern.ingest(await readVersionedSite(siteDir));
  expect(report.failures).toEqual([]);
  app = createTestApp(lectern).app;
}, 60_000);

afterAll(async () => {
  await lectern?.close();
  await rm(siteDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

function urlsOf(sources: { source_url?: string | null | undefined }[]): string[] {
  return sources.map((source) => new URL(source.source_url ?? "/", "http://localhost").pathname);
}

const FRENCH_QUESTION = "Quelle est la résolution des codeurs incrémentaux ?";

describe("a translated Docusaurus site", () => {
  it("is one book with every page in every locale, under /<locale>/", async () => {
    expect(lectern.served.locales.map((locale) => [locale.name, locale.default])).toEqual([
      ["en", true],
      ["fr", false],
      ["ja", false],
    ]);
    const urls = (await lectern.store.pages()).map((page) => page.url).sort();
    expect(urls).toEqual([
      "/docs",
      "/docs/description/urdf",
      "/docs/sensors-and-perception/sensor-types",
      "/fr/docs",
      "/fr/docs/description/urdf",
      "/fr/docs/sensors-and-perception/sensor-types",
      "/ja/docs",
      "/ja/docs/description/urdf",
      "/ja/docs/sensors-and-perception/sensor-types",
    ]);
  });

  it("answers a French question from the French page, citing /fr/docs/", async () => {
    const body = await askChat(app, { query: FRENCH_QUESTION, filters: { locale: "fr" } });
    expect(body.answer).toContain("impulsions par tour");
    expect(urlsOf(body.sources)[0]).toBe("/fr/docs/sensors-and-perception/sensor-types");
    expect(urlsOf(body.sources).every((url) => url.startsWith("/fr/docs/"))).toBe(true);
  });

  it("takes the locale from the reader's page when none is named", async () => {
    const body = await askChat(app, {
      query: FRENCH_QUESTION,
      source_url: "https://robots.example/fr/docs/description/urdf",
    });
    expect(urlsOf(body.sources)[0]).toBe("/fr/docs/sensors-and-perception/sensor-types");
  });

  it("matches the forms of a French word that the English analyzer keeps apart", async () => {
    // The page says "codeur incrémental"; the question "codeurs incrémentaux".
    expect(analyze("incrémentaux")).not.toEqual(analyze("incrémental"));
    const response = await app.request(
      `/search?q=${encodeURIComponent("incrémentaux ")}&locale=fr`,
    );
    const hits = ((await response.json()) as { results: { url: string }[] }).results;
    expect(hits[0]?.url).toMatch(/\/fr\/docs\/sensors-and-perception\/sensor-types/);
    const found = await lectern.served.retriever.search("incrémentaux", {
      filters: { locale: "fr", filePrefix: "i18n/fr/docs/" },
    });
    expect(found.decision).toBe("answer");
    expect(found.results[0]?.chunk.url).toMatch(
      /^\/fr\/docs\/sensors-and-perception\/sensor-types/,
    );
    const english = await lectern.served.retriever.search("incrémentaux", {
      filters: { filePrefix: "docs/" },
    });
    expect(english.results).toEqual([]);
  });

  it("answers in English by default, citing the English pages", async () => {
    const body = await askChat(app, { query: "How does a lidar measure distance?" });
    expect(urlsOf(body.sources)[0]).toBe("/docs/sensors-and-perception/sensor-types");
    expect(urlsOf(body.sources)).toEqual(
      urlsOf(body.sources).filter((url) => url.startsWith("/docs")),
    );
  });

  it("answers a Japanese question from the Japanese page", async () => {
    const body = await askChat(app, {
      query: "URDF のリンクとジョイントとは？",
      filters: { locale: "ja" },
    });
    expect(urlsOf(body.sources)[0]).toMatch(/^\/ja\/docs\/description\/urdf/);
    expect(body.answer).toContain("剛体");
  });

  it("reads a page's <html lang> as its locale, and refuses a locale the book lacks", async () => {
    const body = await askChat(app, { query: FRENCH_QUESTION, filters: { locale: "fr-FR" } });
    expect(urlsOf(body.sources)[0]).toMatch(/^\/fr\/docs\//);
    await expectError(
      await postJson(app, "/chat", { query: FRENCH_QUESTION, filters: { locale: "de" } }),
      400,
      "INVALID_FILTER",
    );
  });

  it("searches one locale's pages with ?locale=", async () => {
    const response = await app.request("/search?q=codeurs%20incr%C3%A9mentaux&locale=fr");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { url: string }[] };
    expect(body.results[0]?.url).toMatch(/\/fr\/docs\/sensors-and-perception\/sensor-types/);
    expect(
      body.results.every((hit) => new URL(hit.url, "http://x").pathname.startsWith("/fr/")),
    ).toBe(true);
  });

  it("lists the default locale's pages in llms.txt, and another locale's with ?locale=", async () => {
    const site = createTestApp(lectern, {
      deps: { site: createSite({ store: lectern.store, slice: sliceOf(lectern) }) },
    }).app;
    const linked = async (route: string) =>
      Array.from(
        (await (await site.request(route)).text()).matchAll(/\]\(https?:\/\/[^/]+(\/\S+?)\)/g),
        (match) => match[1],
      ).sort();
    expect(await linked("/llms.txt")).toEqual([
      "/docs.md",
      "/docs/description/urdf.md",
      "/docs/sensors-and-perception/sensor-types.md",
    ]);
    expect(await linked("/llms.txt?locale=fr")).toEqual([
      "/fr/docs.md",
      "/fr/docs/description/urdf.md",
      "/fr/docs/sensors-and-perception/sensor-types.md",
    ]);
    const french = await (await site.request("/llms-full.txt?locale=fr")).text();
    expect(french).toContain("codeur incrémental");
  });
});

describe("the command line on a translated site", () => {
  it("ingests the locales named with --locales and answers with --locale", async () => {
    const cliData = await mkdtemp(path.join(tmpdir(), "lectern-i18n-cli-"));
    try {
      const ingest = await runCli([
        "ingest",
        "--site",
        siteDir,
        "--locales",
        "fr",
        "--data-dir",
        cliData,
      ]);
      expect(ingest.stderr).toBe("");
      expect(ingest.code).toBe(0);
      expect(ingest.stdout).toContain("Locales: en (default), fr\n");
      const ask = (locale: string[]) =>
        runCli(["ask", FRENCH_QUESTION, "--data-dir", cliData, "--json", ...locale]);
      const french = JSON.parse((await ask(["--locale", "fr"])).stdout);
      expect(french.answer).toContain("impulsions par tour");
      expect(french.sources[0].source_url).toMatch(/^\/fr\/docs\/sensors-and-perception/);
      const japanese = await ask(["--locale", "ja"]);
      expect(japanese.code).toBe(1);
      expect(japanese.stderr).toMatch(/^error \[INVALID_FILTER\]: Unknown locale "ja"/);
      const bad = await runCli([
        "ingest",
        "--site",
        siteDir,
        "--locales",
        "fr;rm",
        "--data-dir",
        cliData,
      ]);
      expect(bad.code).toBe(2);
    } finally {
      await rm(cliData, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("insights of a translated site", () => {
  it("log the locale each question was answered in, and split unanswered questions by it", async () => {
    const config = loadConfig({
      env: {
        LOG_LEVEL: "silent",
        RATE_LIMIT_ENABLED: "false",
        INSIGHTS_FLUSH_MS: "10",
        LECTERN_ADMIN_TOKEN: "insights-token-0123456789",
      },
      overrides: { dataDir },
    });
    const served = composeApp(lectern, config, {
      logger: pino({ level: "silent" }),
      siteAndFeedback: true,
    });
    await askChat(served.app, { query: FRENCH_QUESTION, filters: { locale: "fr" } });
    await askChat(served.app, {
      query: "Comment régler le gyroscope du drone ?",
      filters: { locale: "fr" },
    });
    await askChat(served.app, { query: "How do I calibrate the drone's gyroscope?" });
    const response = await served.app.request("/admin?format=json&since=1d", {
      headers: { authorization: "Bearer insights-token-0123456789" },
    });
    expect(response.status).toBe(200);
    const report = (await response.json()) as InsightsReport;
    const slices = new Map(report.slices?.map((slice) => [slice.locale, slice]));
    const unanswered = (locale: string) =>
      slices.get(locale)?.unanswered.map((question) => question.text) ?? [];
    // The other tests of this file asked in French and English through the same log.
    expect(slices.get("fr")?.questions).toBeGreaterThanOrEqual(2);
    expect(unanswered("fr")).toContain("Comment régler le gyroscope du drone ?");
    expect(unanswered("fr")).not.toContain("How do I calibrate the drone's gyroscope?");
    expect(unanswered("en")).toContain("How do I calibrate the drone's gyroscope?");
    expect(unanswered("en")).not.toContain("Comment régler le gyroscope du drone ?");
    expect(slices.get("fr")?.version).toBe("current");
    expect(formatInsights(report, config)).toMatch(/In version current, locale fr: \d+ questions/);
    await served.close();
  });
});
