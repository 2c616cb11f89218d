import { chunkBlocks } from "@lectern/engine/book/chunk-blocks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestSchema, requirePostgres } from "../../test/postgres.ts";
import { type ChunkRecord, type DocumentRecord, DocumentStore } from "./document-store.ts";
import { migrate } from "./migrations.ts";
import { openPglite } from "./pglite.ts";
import { openPgliteThread } from "./pglite-thread.ts";
import { openPostgres } from "./postgres.ts";
import type { SqlClient } from "./sql-client.ts";

/** One suite, run against every adapter: the same SQL must behave the same on PGlite and PostgreSQL. */

function documentRecord(filePath: string, hash = "h1", chunkCount = 2): DocumentRecord {
  return {
    collection: "default",
    version: "",
    filePath,
    title: `Title of ${filePath}`,
    url: `https://book.example/docs/${filePath.replace(/\.mdx?$/, "")}`,
    sourceHash: hash,
    tags: ["ros2"],
    metadata: { frontmatter: { sidebar_position: 1 } },
    chunkCount,
  };
}

function chunkRecords(filePath: string, count = 2, label = "v1"): ChunkRecord[] {
  return Array.from({ length: count }, (_, index) => {
    const text = `Chunk ${index} of ${filePath} (${label}) with "quotes" and ünïcödé.`;
    return {
      id: `${filePath}-${index}-${label}`,
      collection: "default",
      version: "",
      filePath,
      chunkIndex: index,
      totalChunks: count,
      title: `Title of ${filePath}`,
      section: `Section ${index}`,
      headingPath: [`Title of ${filePath}`, `Section ${index}`],
      url: `https://book.example/docs/x#section-${index}`,
      tags: ["ros2"],
      searchText: `Nodes that publish "topics" ${label}`,
      // The first chunk has a small section merged into it.
      ...(index === 0
        ? {
            sectionAnchors: [
              { heading: "Sub “quoted”", anchor: "sub-quoted", headingPath: ["T", "Sub “quoted”"] },
            ],
          }
        : {}),
      // Blocks are stored as given, not read again from the text: the first chunk's say otherwise.
      blocks:
        index === 0
          ? [
              { kind: "heading", text: "Stored" },
              { kind: "list", items: ["- as ingest read it"] },
            ]
          : chunkBlocks(text),
      text,
      contentHash: `hash-${index}-${label}`,
      tokenCount: 12,
    } satisfies ChunkRecord;
  });
}

/** A page of one docs version whose content (text, blocks, HTML, Markdown) is `label`'s alone. */
function versionedCopy(filePath: string, label: string, collection = "versioned-book") {
  const texts = [`Intro text (${label}) said once.`, `More text (${label}) said once.`];
  const chunks = texts.map(
    (text, index) =>
      ({
        id: `${collection}/${filePath}-${index}-${label}`,
        collection,
        version: "",
        filePath,
        chunkIndex: index,
        totalChunks: texts.length,
        title: "Intro",
        section: "Intro",
        headingPath: ["Intro"],
        url: `https://book.example/${filePath}#part-${index}`,
        tags: [],
        searchText: "",
        blocks: chunkBlocks(text),
        text,
        contentHash: `hash-${index}-${label}`,
        tokenCount: 5,
      }) satisfies ChunkRecord,
  );
  const document: DocumentRecord = {
    ...documentRecord(filePath, `source-${label}`, texts.length),
    collection,
    title: "Intro",
    url: `https://book.example/${filePath}`,
    html: `<p>Text ${label}</p>`,
    markdown: `# Intro\n\nText ${label}`,
  };
  return { document, chunks };
}

/** How many rows of shared chunk and page content a collection holds. */
async function sharedRows(db: SqlClient, collection: string) {
  const [row] = await db.query<{ chunks: string | number; pages: string | number }>(
    `SELECT (SELECT count(*) FROM chunk_contents WHERE collection = $1) AS chunks,
            (SELECT count(*) FROM page_contents WHERE collection = $1) AS pages`,
    [collection],
  );
  return { chunks: Number(row?.chunks), pages: Number(row?.pages) };
}

const adapters: {
  name: string;
  open: () => Promise<{ db: SqlClient; cleanup: () => Promise<void> }>;
}[] = [
  {
    name: "pglite",
    async open() {
      const db = await openPglite();
      return { db, cleanup: () => db.close() };
    },
  },
  {
    name: "pglite on a worker thread",
    async open() {
      const db = await openPgliteThread();
      return { db, cleanup: () => db.close() };
    },
  },
  {
    name: "postgres",
    async open() {
      const schema = await createTestSchema();
      const db = await openPostgres(schema.url);
      return {
        db,
        async cleanup() {
          await db.close();
          await schema.drop();
        },
      };
    },
  },
];

const postgresReady = await requirePostgres();

for (const adapter of adapters) {
  const run = adapter.name === "postgres" && !postgresReady ? describe.skip : describe;
  // Skipped only outside CI when no PostgreSQL is reachable (requirePostgres throws under CI).
  run(`document store on ${adapter.name}`, () => {
    let db: SqlClient;
    let cleanup: () => Promise<void>;
    let store: DocumentStore;

    beforeAll(async () => {
      ({ db, cleanup } = await adapter.open());
      await migrate(db);
      await migrate(db); // a second run is a no-op
      store = new DocumentStore(db);
    });
    afterAll(async () => cleanup());

    it("starts empty at index version 0", async () => {
      expect(await store.listDocuments()).toEqual([]);
      expect(await store.indexState()).toEqual({ indexVersion: 0, settingsHash: "" });
    });

    it("stores documents with their chunks and bumps the index version", async () => {
      const version = await store.apply({
        upserts: [
          { document: documentRecord("a.md"), chunks: chunkRecords("a.md") },
          { document: documentRecord("b.md", "h1", 3), chunks: chunkRecords("b.md", 3) },
        ],
        deletes: [],
        settingsHash: "s1",
      });
      expect(version).toBe(1);
      expect(await store.counts()).toEqual({ documents: 2, chunks: 5 });
      const chunks = await store.allChunks();
      expect(chunks.map((chunk) => chunk.id)).toEqual([
        "a.md-0-v1",
        "a.md-1-v1",
        "b.md-0-v1",
        "b.md-1-v1",
        "b.md-2-v1",
      ]);
      expect(chunks[0]).toEqual(chunkRecords("a.md")[0]);
      expect(await store.indexState()).toEqual({ indexVersion: 1, settingsHash: "s1" });
    });

    it("replaces a changed document's chunks and cascades deletes", async () => {
      await store.apply({
        upserts: [
          { document: documentRecord("a.md", "h2", 1), chunks: chunkRecords("a.md", 1, "v2") },
        ],
        deletes: ["b.md"],
        settingsHash: "s1",
      });
      expect(await store.listDocuments()).toEqual([{ filePath: "a.md", sourceHash: "h2" }]);
      expect((await store.allChunks()).map((chunk) => chunk.id)).toEqual(["a.md-0-v2"]);
      expect((await store.indexState()).indexVersion).toBe(2);
      expect(await store.chunkIdsOf(["a.md", "b.md"])).toEqual(["a.md-0-v2"]);
      expect(await store.chunkIdsOf([])).toEqual([]);
    });

    it("rolls back the whole run when one write fails", async () => {
      const before = await store.allChunks();
      const broken = chunkRecords("c.md", 2);
      // Violates CHECK (chunk_index < total_chunks): the database rejects it mid-transaction.
      broken[1] = { ...(broken[1] as ChunkRecord), chunkIndex: 5 };
      await expect(
        store.apply({
          upserts: [
            { document: documentRecord("d.md", "h1", 1), chunks: chunkRecords("d.md", 1) },
            { document: documentRecord("c.md"), chunks: broken },
          ],
          deletes: ["a.md"],
          settingsHash: "s2",
        }),
      ).rejects.toThrow();
      expect(await store.allChunks()).toEqual(before);
      expect(await store.indexState()).toEqual({ indexVersion: 2, settingsHash: "s1" });
    });

    it("keeps collections apart", async () => {
      const other = new DocumentStore(db, "other-book");
      await other.apply({
        upserts: [
          {
            document: { ...documentRecord("a.md"), collection: "other-book" },
            chunks: chunkRecords("a.md", 1, "other").map((chunk) => ({
              ...chunk,
              collection: "other-book",
            })),
          },
        ],
        deletes: [],
        settingsHash: "x",
      });
      expect((await other.allChunks()).map((chunk) => chunk.id)).toEqual(["a.md-0-other"]);
      expect((await store.allChunks()).map((chunk) => chunk.id)).toEqual(["a.md-0-v2"]);
    });

    it("stores content that pages of two versions hold alike once, and keeps it while one holds it", async () => {
      const shared = new DocumentStore(db, "versioned-book");
      const copies = ["docs/intro.md", "versioned_docs/version-1.0/intro.md"];
      await shared.apply({
        upserts: copies.map((filePath) => versionedCopy(filePath, "v1")),
        deletes: [],
        settingsHash: "s",
      });
      expect(await shared.counts()).toEqual({ documents: 2, chunks: 4 });
      expect(await sharedRows(db, "versioned-book")).toEqual({ chunks: 2, pages: 1 });
      const [current, released] = copies;
      for (const filePath of copies) {
        expect((await shared.chunksOfPages([filePath])).get(filePath)).toEqual(
          versionedCopy(filePath, "v1").chunks,
        );
        expect(await shared.pageMarkdown(filePath)).toBe("# Intro\n\nText v1");
        expect(await shared.pageHtml(filePath)).toBe("<p>Text v1</p>");
      }
      // One version's page changes: the other's copy keeps its content.
      await shared.apply({
        upserts: [versionedCopy(current as string, "v2")],
        deletes: [],
        settingsHash: "s",
      });
      expect(await sharedRows(db, "versioned-book")).toEqual({ chunks: 4, pages: 2 });
      expect((await shared.chunksOfPages([released as string])).get(released as string)).toEqual(
        versionedCopy(released as string, "v1").chunks,
      );
      expect(await shared.pageMarkdown(released as string)).toBe("# Intro\n\nText v1");
      expect(await shared.pageMarkdown(current as string)).toBe("# Intro\n\nText v2");
      // The released page goes: the content only it held goes with it, the other's stays.
      await shared.apply({ upserts: [], deletes: [released as string], settingsHash: "s" });
      expect(await sharedRows(db, "versioned-book")).toEqual({ chunks: 2, pages: 1 });
      expect((await shared.allChunks()).map((chunk) => chunk.text)).toEqual([
        "Intro text (v2) said once.",
        "More text (v2) said once.",
      ]);
      // The same content in another collection is that collection's own.
      const other = new DocumentStore(db, "other-versioned-book");
      await other.apply({
        upserts: [versionedCopy("docs/intro.md", "v2", "other-versioned-book")],
        deletes: [],
        settingsHash: "s",
      });
      await shared.apply({ upserts: [], deletes: [current as string], settingsHash: "s" });
      expect(await sharedRows(db, "versioned-book")).toEqual({ chunks: 0, pages: 0 });
      expect((await other.allChunks()).map((chunk) => chunk.text)).toEqual([
        "Intro text (v2) said once.",
        "More text (v2) said once.",
      ]);
    });

    // PGlite runs one transaction at a time; PostgreSQL lets two ingests' transactions overlap.
    it.skipIf(adapter.name !== "postgres")(
      "keeps shared content that an overlapping ingest points at while another drops its last holder",
      async () => {
        const racing = new DocumentStore(db, "racing-book");
        const page = (filePath: string) => versionedCopy(filePath, "v1", "racing-book");
        await racing.apply({ upserts: [page("docs/a.md")], deletes: [], settingsHash: "s" });
        let releaseFirst = () => {};
        const firstHolds = new Promise<void>((resolve) => {
          releaseFirst = resolve;
        });
        let firstDeleted = () => {};
        const deleted = new Promise<void>((resolve) => {
          firstDeleted = resolve;
        });
        // The first ingest removes the content's only holder and waits before it commits...
        const first = racing.sync("s", async (writer) => {
          await writer.delete("docs/a.md");
          firstDeleted();
          await firstHolds;
        });
        await deleted;
        // ...while a second one adds a page holding the same content.
        let secondWrote = false;
        const second = racing.sync("s", async (writer) => {
          await writer.replace(page("docs/b.md"));
          secondWrote = true;
        });
        await vi.waitFor(
          async () => {
            const [waiting] = await db.query<{ count: string | number }>(
              `SELECT count(*) AS count FROM pg_locks
                WHERE locktype = 'advisory' AND classid = 7283002 AND NOT granted`,
            );
            expect(secondWrote || Number(waiting?.count) > 0).toBe(true);
          },
          { timeout: 5_000, interval: 20 },
        );
        releaseFirst();
        await Promise.all([first, second]);
        expect((await racing.allChunks()).map((chunk) => chunk.text)).toEqual([
          "Intro text (v1) said once.",
          "More text (v1) said once.",
        ]);
      },
    );

    it("records a book's docs versions, and none for a book without versions", async () => {
      const versions = [
        {
          name: "current",
          label: "Next",
          urlSegment: "next",
          filePrefix: "docs/",
          latest: false,
        },
        {
          name: "1.0",
          label: "1.0",
          urlSegment: "",
          filePrefix: "versioned_docs/version-1.0/",
          latest: true,
        },
      ];
      await store.saveBook({ docsPath: "site", title: "Site", versions });
      expect(await store.book()).toEqual({ docsPath: "site", title: "Site", versions });
      await store.saveBook({ docsPath: "docs", title: undefined });
      expect(await store.book()).toEqual({ docsPath: "docs", title: undefined });
    });

    it("records a translated book's locales, and none for an untranslated book", async () => {
      const locales = [
        { name: "en", urlSegment: "", filePrefix: "", default: true },
        { name: "fr", urlSegment: "fr", filePrefix: "i18n/fr/", default: false },
      ];
      await store.saveBook({ docsPath: "site", title: "Site", locales });
      expect(await store.book()).toEqual({ docsPath: "site", title: "Site", locales });
      await store.saveBook({ docsPath: "site", title: "Site" });
      expect(await store.book()).toEqual({ docsPath: "site", title: "Site" });
    });
  });
}

/** A page's rows as the version before shared content wrote them: the content in each row, no key. */
async function insertUnsharedRows(db: SqlClient, document: DocumentRecord, chunks: ChunkRecord[]) {
  await db.query(
    `INSERT INTO documents (collection, version, file_path, title, url, source_hash, chunk_count, html, markdown)
       VALUES ($1, '', $2, $3, $4, $5, $6, $7, $8)`,
    [
      document.collection,
      document.filePath,
      document.title,
      document.url,
      document.sourceHash,
      chunks.length,
      document.html,
      document.markdown,
    ],
  );
  for (const chunk of chunks) {
    await db.query(
      `INSERT INTO chunks (id, collection, version, file_path, chunk_index, total_chunks, title, section,
           heading_path, url, tags, text, content_hash, token_count, search_text, blocks)
         VALUES ($1, $2, '', $3, $4, $5, $6, $7, $8, $9, '[]', $10, $11, $12, '', $13)`,
      [
        chunk.id,
        chunk.collection,
        chunk.filePath,
        chunk.chunkIndex,
        chunk.totalChunks,
        chunk.title,
        chunk.section,
        JSON.stringify(chunk.headingPath),
        chunk.url,
        chunk.text,
        chunk.contentHash,
        chunk.tokenCount,
        JSON.stringify(chunk.blocks),
      ],
    );
  }
}

describe("pages stored before content was shared, on pglite", () => {
  it("are read from their own rows, and share their content once re-indexed", async () => {
    const db = await openPglite();
    try {
      await migrate(db);
      const store = new DocumentStore(db, "versioned-book");
      const { document, chunks } = versionedCopy("docs/intro.md", "v1");
      await insertUnsharedRows(db, document, chunks);
      expect(await store.allChunks()).toEqual(chunks);
      expect(await store.pageHtml("docs/intro.md")).toBe(document.html);
      expect(await store.allPageMarkdown()).toEqual(
        new Map([["docs/intro.md", document.markdown]]),
      );
      // The same page in another version, then the first re-indexed: one copy of the content.
      const released = versionedCopy("versioned_docs/version-1.0/intro.md", "v1");
      await store.apply({ upserts: [released], deletes: [], settingsHash: "s" });
      expect(await store.allChunks()).toEqual([...chunks, ...released.chunks]);
      await store.apply({
        upserts: [{ document, chunks }],
        deletes: [],
        settingsHash: "s",
      });
      expect(await store.allChunks()).toEqual([...chunks, ...released.chunks]);
      const [shared] = await db.query<{ chunks: number; pages: number; inline: number }>(
        `SELECT (SELECT count(*)::int FROM chunk_contents) AS chunks,
                (SELECT count(*)::int FROM page_contents) AS pages,
                (SELECT count(*)::int FROM chunks WHERE content_key IS NULL) AS inline`,
      );
      expect(shared).toEqual({ chunks: chunks.length, pages: 1, inline: 0 });
    } finally {
      await db.close();
    }
  });
});

describe("chunks stored before their blocks were, on pglite", () => {
  it("have their blocks read from their text when loaded", async () => {
    const db = await openPglite();
    try {
      await migrate(db);
      const store = new DocumentStore(db);
      await store.apply({
        upserts: [
          { document: documentRecord("old.md", "h1", 1), chunks: chunkRecords("old.md", 1) },
        ],
        deletes: [],
        settingsHash: "s",
      });
      // The database as the version before blocks left it (content in the chunk's own row).
      await db.query(
        `UPDATE chunks c SET text = s.text, content_key = NULL
           FROM chunk_contents s WHERE s.content_key = c.content_key`,
      );
      await db.query("ALTER TABLE chunks DROP COLUMN blocks");
      await db.query("DELETE FROM lectern_migrations WHERE version = 17");
      await migrate(db);
      const [loaded] = await store.allChunks();
      expect(loaded?.blocks).toEqual([
        { kind: "paragraph", text: 'Chunk 0 of old.md (v1) with "quotes" and ünïcödé.' },
      ]);
    } finally {
      await db.close();
    }
  });
});
