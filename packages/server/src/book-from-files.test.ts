import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "./config/config.ts";
import type { DocSource } from "./ingest/doc-source.ts";
import { type BookReader, type Lectern, openLectern, readBookFromFiles } from "./lectern.ts";
import { createChatPipeline } from "./pipeline/answering.ts";
import { bookFilePath, readBookFile, setBookFileAside } from "./search/book-file.ts";
import { createSafeLogger } from "./util/safe-log.ts";

/** The book read from its files must be the book read from the database, and never a stale one. */

let root: string;
let docs: string;
let dataDir: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "lectern-book-file-"));
  docs = path.join(root, "docs");
  dataDir = path.join(root, "data");
  await mkdir(path.join(docs, "guide"), { recursive: true });
  await writeFile(path.join(docs, "index.md"), "# Garden\n\nA book about growing vegetables.\n");
  await writeFile(
    path.join(docs, "guide", "watering.md"),
    "# Watering\n\n## How often\n\nWater tomatoes every second day in summer.\n\n## Mulch\n\nMulch keeps the soil moist for longer.\n",
  );
  await writeFile(
    path.join(docs, "Zucchini.md"),
    "# Zucchini\n\nZucchini plants need a square metre each.\n",
  );
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const config = () => loadConfig({ env: {}, overrides: { dataDir } });

async function ingested(): Promise<Lectern> {
  const lectern = await openLectern(config());
  await lectern.ingest(docs);
  return lectern;
}

async function answer(book: BookReader, question: string) {
  const { pipeline } = createChatPipeline(book, createSafeLogger("warn"));
  const outcome = await pipeline.run({
    requestId: "r",
    sessionId: "s",
    query: question,
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
    history: [],
  });
  return { answer: outcome.answer, sources: outcome.sources.map((source) => source.source_url) };
}

describe("the book read from its files", () => {
  it("holds the store's pages and chunks, in the store's order, after an ingest", async () => {
    const lectern = await ingested();
    try {
      const file = await readBookFile(dataDir, "default");
      const normal = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
      expect(file?.indexVersion).toBe(lectern.indexVersion());
      expect(file?.chunks).toEqual(normal(await lectern.store.allChunks()));
      expect(file?.pages).toEqual(normal(await lectern.store.pages()));
    } finally {
      await lectern.close();
    }
  });

  it("answers as the database does", async () => {
    const questions = [
      "How often should I water tomatoes?",
      "How much space does a zucchini need?",
      "What is this book about?",
    ];
    const lectern = await ingested();
    const fromDatabase = [];
    for (const question of questions) fromDatabase.push(await answer(lectern, question));
    await lectern.close();
    const book = await readBookFromFiles(config());
    expect(book).toBeDefined();
    const fromFiles = [];
    for (const question of questions) fromFiles.push(await answer(book as BookReader, question));
    expect(fromFiles).toEqual(fromDatabase);
    expect(fromFiles[0]?.answer).toContain("second day");
  });

  it("follows a second ingest that changes a page, and survives one that changes nothing", async () => {
    let lectern = await ingested();
    await writeFile(
      path.join(docs, "guide", "watering.md"),
      "# Watering\n\n## How often\n\nWater tomatoes every third day in spring.\n",
    );
    await lectern.ingest(docs);
    const version = lectern.indexVersion();
    await lectern.close();
    expect((await readBookFile(dataDir, "default"))?.indexVersion).toBe(version);
    const changed = await readBookFromFiles(config());
    expect(
      (await answer(changed as BookReader, "How often should I water tomatoes?")).answer,
    ).toContain("third day");

    lectern = await openLectern(config());
    const report = await lectern.ingest(docs);
    expect(report.changed).toBe(false);
    await lectern.close();
    expect((await readBookFile(dataDir, "default"))?.indexVersion).toBe(version);
  });

  it("is not there while an ingest writes, nor after one that failed, until the database is read again", async () => {
    const lectern = await ingested();
    await writeFile(path.join(docs, "Zucchini.md"), "# Zucchini\n\nOne plant feeds a family.\n");
    const seenWhileWriting: boolean[] = [];
    await lectern.ingest(docs, () =>
      seenWhileWriting.push(existsSync(bookFilePath(dataDir, "default"))),
    );
    expect(seenWhileWriting.length).toBeGreaterThan(0);
    expect(seenWhileWriting.every((seen) => !seen)).toBe(true);
    const failing: DocSource = {
      location: "a source that fails",
      list: async () => {
        throw createError("DOCS_DIR_NOT_FOUND", "the source is gone");
      },
      read: async () => new Uint8Array(),
    };
    await expect(lectern.ingest(failing)).rejects.toThrow();
    await lectern.close();
    // The failed run rolled back and the index was loaded again from the store: the file is back.
    expect(await readBookFromFiles(config())).toBeDefined();

    // An ingest that stopped half-way (the process killed) leaves the file set aside.
    await setBookFileAside(dataDir, "default");
    expect(await readBookFromFiles(config())).toBeUndefined();
    const reopened = await openLectern(config());
    await reopened.close();
    expect(await readBookFromFiles(config())).toBeDefined();
  });

  it("is left out, and the ingest stands, when it cannot be written", async () => {
    const lectern = await ingested();
    // The file's temporary name taken by a folder: the write fails as on a full disk.
    await mkdir(`${bookFilePath(dataDir, "default")}.${process.pid}.tmp`);
    await writeFile(path.join(docs, "Zucchini.md"), "# Zucchini\n\nOne plant feeds a family.\n");
    const report = await lectern.ingest(docs);
    expect(report.changed).toBe(true);
    await lectern.close();
    expect(await readBookFromFiles(config())).toBeUndefined();
    const reopened = await openLectern(config());
    expect((await answer(reopened, "How much does one zucchini plant feed?")).answer).toContain(
      "feeds a family",
    );
    await reopened.close();
  });

  it.each([
    ["a book file that is not JSON", async () => writeFile(bookFilePath(dataDir, "default"), "{")],
    [
      "a BM25 snapshot of another index version",
      async () => {
        const file = path.join(dataDir, "index", "default.bm25.json");
        const text = await readFile(file, "utf8");
        await writeFile(file, text.replace(/"indexVersion":\d+/, '"indexVersion":999'));
      },
    ],
  ])("is not used with %s", async (_, spoil) => {
    const lectern = await ingested();
    await lectern.close();
    await spoil();
    expect(await readBookFromFiles(config())).toBeUndefined();
  });

  it("is not used with a PostgreSQL database or an embedding model, whose book is not kept in files", async () => {
    const lectern = await ingested();
    await lectern.close();
    expect(await readBookFromFiles(config())).toBeDefined();
    for (const env of [
      { DATABASE_URL: "postgres://127.0.0.1:1/none" },
      { EMBEDDINGS_PROVIDER: "openai", OPENAI_API_KEY: "k" },
    ])
      expect(
        await readBookFromFiles(loadConfig({ env, overrides: { dataDir } })),
        JSON.stringify(env),
      ).toBeUndefined();
  });
});
