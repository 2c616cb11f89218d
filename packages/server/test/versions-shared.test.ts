import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { readVersionedSite } from "../src/ingest/versioned-site.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { bookFilePath } from "../src/search/book-file.ts";
import { askChat, createTestApp, type TestApp } from "./http-fixture.ts";
import { createTestSchema, requirePostgres } from "./postgres.ts";

/**
 * A versioned Docusaurus site written by the test whose three versions (the current docs, 2.0 the
 * latest, 1.0) hold the same page on customs forms word for word, and a page on retries that
 * differs in each. The customs page is stored once; each version still cites its own URL.
 */
const CUSTOMS = `---
title: Customs forms
---

# Customs forms

## Declaring contents

Every parcel that crosses a border carries a customs form listing its contents, their weight and
their declared value in the sender's currency.

## Restricted goods

Batteries, liquids and seeds need a signed restricted goods declaration attached to the form.
`;

const retries = (times: string) => `---
title: Retries
---

# Retries

A failed delivery is retried ${times} times by default before the parcel is returned to its sender.
`;

const SITE: Record<string, string> = {
  "versions.json": JSON.stringify(["2.0", "1.0"]),
  "docs/customs.md": CUSTOMS,
  "docs/retries.md": retries("nine"),
  "versioned_docs/version-2.0/customs.md": CUSTOMS,
  "versioned_docs/version-2.0/retries.md": retries("five"),
  "versioned_docs/version-1.0/customs.md": CUSTOMS,
  "versioned_docs/version-1.0/retries.md": retries("three"),
};

const CUSTOMS_QUESTION = "What goes on the customs form of a parcel?";
const RESTRICTED_QUESTION = "Do batteries need a restricted goods declaration?";
/** Each version's URL of the customs page. */
const CUSTOMS_URLS: Record<string, string> = {
  current: "/docs/next/customs",
  "2.0": "/docs/customs",
  "1.0": "/docs/1.0/customs",
};

function firstUrl(sources: { source_url?: string | null | undefined }[]): string {
  return new URL(sources[0]?.source_url ?? "/", "http://localhost").pathname;
}

const postgresReady = await requirePostgres();
const backends = [
  { name: "PGlite", run: describe, postgres: false },
  // Skipped only outside CI when no PostgreSQL is reachable (requirePostgres throws under CI).
  { name: "PostgreSQL", run: postgresReady ? describe : describe.skip, postgres: true },
];

for (const backend of backends) {
  backend.run(`a versioned site's pages held alike by its versions, on ${backend.name}`, () => {
    let siteDir: string;
    let dataDir: string;
    let dropSchema: (() => Promise<void>) | undefined;
    let lectern: Lectern;
    let app: TestApp;

    const ingest = async () => {
      const report = await lectern.ingest(await readVersionedSite(siteDir));
      expect(report.failures).toEqual([]);
      return report;
    };
    const ask = (query: string, version: string) => askChat(app, { query, filters: { version } });
    const sharedRows = async () => {
      const [row] = await lectern.db.query<Record<string, string | number>>(
        `SELECT (SELECT count(*) FROM chunk_contents) AS chunk_contents,
                (SELECT count(*) FROM page_contents) AS page_contents,
                (SELECT count(*) FROM chunks WHERE file_path LIKE '%customs.md') AS customs_chunks,
                (SELECT count(DISTINCT content_key) FROM chunks
                  WHERE file_path LIKE '%customs.md') AS customs_contents`,
      );
      return {
        chunk_contents: Number(row?.chunk_contents),
        page_contents: Number(row?.page_contents),
        customs_chunks: Number(row?.customs_chunks),
        customs_contents: Number(row?.customs_contents),
      };
    };

    beforeAll(async () => {
      siteDir = await mkdtemp(path.join(tmpdir(), "lectern-shared-site-"));
      dataDir = await mkdtemp(path.join(tmpdir(), "lectern-shared-"));
      for (const [file, text] of Object.entries(SITE)) {
        await mkdir(path.dirname(path.join(siteDir, file)), { recursive: true });
        await writeFile(path.join(siteDir, file), text);
      }
      let databaseUrl: string | undefined;
      if (backend.postgres) {
        const schema = await createTestSchema();
        databaseUrl = schema.url;
        dropSchema = schema.drop;
      }
      lectern = await openLectern(
        loadConfig({ env: {}, overrides: { dataDir, ...(databaseUrl ? { databaseUrl } : {}) } }),
      );
      await ingest();
      app = createTestApp(lectern).app;
    });

    afterAll(async () => {
      await lectern?.close();
      await dropSchema?.();
      await rm(siteDir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    });

    it("stores the page the three versions hold alike once, and each version's rows", async () => {
      const rows = await sharedRows();
      expect(rows.customs_chunks).toBeGreaterThan(0);
      expect(rows.customs_chunks % 3).toBe(0);
      // One content per chunk of one copy: the three copies point at the same content.
      expect(rows.customs_contents).toBe(rows.customs_chunks / 3);
      // The customs page once, and each version's own retries page.
      expect(rows.page_contents).toBe(1 + 3);
      expect(rows.chunk_contents).toBe(rows.customs_contents + 3);
      expect(await lectern.store.counts()).toEqual({
        documents: 6,
        chunks: 3 + rows.customs_chunks,
      });
    });

    // The book file is kept for the embedded database only.
    it.skipIf(backend.postgres)("writes the shared content once in the book file", async () => {
      const file = JSON.parse(await readFile(bookFilePath(dataDir, "default"), "utf8")) as {
        chunks: unknown[];
        contents: unknown[];
      };
      const rows = await sharedRows();
      expect(file.chunks).toHaveLength(3 + rows.customs_chunks);
      expect(file.contents).toHaveLength(rows.chunk_contents);
    });

    it("answers from the shared page in every version, citing that version's URL", async () => {
      const answers: string[] = [];
      for (const [version, url] of Object.entries(CUSTOMS_URLS)) {
        const body = await ask(CUSTOMS_QUESTION, version);
        expect(body.answer).toContain("declared value");
        expect(firstUrl(body.sources)).toBe(url);
        expect(body.answer).not.toMatch(/^Not in version/);
        answers.push((body.answer ?? "").replaceAll(url, "URL"));
      }
      expect(new Set(answers).size).toBe(1);
    });

    it("re-indexes only the page edited in one version, and the others keep the shared copy", async () => {
      await writeFile(
        path.join(siteDir, "docs/customs.md"),
        CUSTOMS.replace("Batteries, liquids and seeds", "Batteries, liquids, seeds and plants"),
      );
      const report = await ingest();
      expect(report.added).toEqual([]);
      expect(report.removed).toEqual([]);
      expect(report.updated).toEqual(["docs/customs.md"]);
      const next = await ask(RESTRICTED_QUESTION, "current");
      expect(next.answer).toContain("seeds and plants");
      expect(firstUrl(next.sources)).toBe(CUSTOMS_URLS.current);
      for (const version of ["2.0", "1.0"]) {
        const body = await ask(RESTRICTED_QUESTION, version);
        expect(body.answer).toContain("Batteries, liquids and seeds");
        expect(body.answer).not.toContain("plants");
        expect(firstUrl(body.sources)).toBe(CUSTOMS_URLS[version]);
      }
      // The current docs' page has content of its own; 2.0 and 1.0 still point at one copy.
      const [released] = await lectern.db.query<{
        chunks: string | number;
        contents: string | number;
      }>(
        `SELECT count(*) AS chunks, count(DISTINCT content_key) AS contents FROM chunks
          WHERE file_path LIKE 'versioned_docs/%/customs.md'`,
      );
      expect(Number(released?.contents)).toBe(Number(released?.chunks) / 2);
      const rows = await sharedRows();
      expect(rows.customs_contents).toBeGreaterThan(rows.customs_chunks / 3);
      expect(rows.page_contents).toBe(2 + 3);
    });

    it("keeps the content another version holds when one version's page is removed", async () => {
      await rm(path.join(siteDir, "versioned_docs/version-1.0/customs.md"));
      const report = await ingest();
      expect(report.removed).toEqual(["versioned_docs/version-1.0/customs.md"]);
      expect(report.updated).toEqual([]);
      const latest = await ask(RESTRICTED_QUESTION, "2.0");
      expect(latest.answer).toContain("Batteries, liquids and seeds");
      expect(firstUrl(latest.sources)).toBe(CUSTOMS_URLS["2.0"]);
      const released = await ask(RESTRICTED_QUESTION, "1.0");
      expect(released.sources.map((source) => source.source_url ?? "")).not.toContainEqual(
        expect.stringContaining("/docs/1.0/customs"),
      );
      expect(await lectern.store.pageMarkdown("versioned_docs/version-2.0/customs.md")).toContain(
        "restricted goods declaration",
      );
      expect((await sharedRows()).page_contents).toBe(2 + 3);
      // The last copies go: so does their content.
      await rm(path.join(siteDir, "versioned_docs/version-2.0/customs.md"));
      await rm(path.join(siteDir, "docs/customs.md"));
      await ingest();
      expect(await sharedRows()).toEqual({
        chunk_contents: 3,
        page_contents: 3,
        customs_chunks: 0,
        customs_contents: 0,
      });
    });
  });
}

describe("a translated site's page that a locale does not translate", () => {
  let siteDir: string;
  let dataDir: string;
  let lectern: Lectern;

  beforeAll(async () => {
    siteDir = await mkdtemp(path.join(tmpdir(), "lectern-shared-i18n-site-"));
    dataDir = await mkdtemp(path.join(tmpdir(), "lectern-shared-i18n-"));
    const files: Record<string, string> = {
      "docs/customs.md": CUSTOMS,
      "docs/retries.md": retries("five"),
      "i18n/fr/docusaurus-plugin-content-docs/current/retries.md": `---
title: Nouvelles tentatives
---

# Nouvelles tentatives

Une livraison échouée est tentée cinq fois avant le retour du colis à son expéditeur.
`,
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(siteDir, file)), { recursive: true });
      await writeFile(path.join(siteDir, file), text);
    }
    lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
    const report = await lectern.ingest(await readVersionedSite(siteDir));
    expect(report.failures).toEqual([]);
  });

  afterAll(async () => {
    await lectern?.close();
    await rm(siteDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it("is the default locale's content, stored once, at the locale's URL", async () => {
    const rows = await lectern.db.query<{ file_path: string; content_key: string }>(
      "SELECT file_path, content_key FROM chunks WHERE file_path LIKE '%customs.md' ORDER BY file_path, chunk_index",
    );
    const keysOf = (filePath: string) =>
      rows.filter((row) => row.file_path === filePath).map((row) => row.content_key);
    expect(keysOf("i18n/fr/docs/customs.md")).toEqual(keysOf("docs/customs.md"));
    expect(keysOf("docs/customs.md").length).toBeGreaterThan(0);
    const pages = await lectern.store.chunksOfPages(["docs/customs.md", "i18n/fr/docs/customs.md"]);
    const english = pages.get("docs/customs.md") ?? [];
    const french = pages.get("i18n/fr/docs/customs.md") ?? [];
    expect(french.map((chunk) => chunk.text)).toEqual(english.map((chunk) => chunk.text));
    expect(french.map((chunk) => new URL(chunk.url, "http://localhost").pathname)).toEqual(
      english.map(() => "/fr/docs/customs"),
    );
    expect(await lectern.store.pageMarkdown("i18n/fr/docs/customs.md")).toBe(
      await lectern.store.pageMarkdown("docs/customs.md"),
    );
  });
});
