import { randomBytes } from "node:crypto";
import { chunkSparseVector } from "@lectern/engine/search/sparse-vector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startQdrantStandIn } from "../../test/doubles/qdrant-stand-in.ts";
import { type ChunkRecord, type DocumentRecord, DocumentStore } from "./document-store.ts";
import { ExternalVectorBacklog } from "./external-backlog.ts";
import { migrate } from "./migrations.ts";
import { openPglite } from "./pglite.ts";
import { openPgliteThread } from "./pglite-thread.ts";
import { PgvectorBacklog, PgvectorIndex } from "./pgvector-index.ts";
import { createQdrantClient, QdrantIndex } from "./qdrant-index.ts";
import type { SqlClient } from "./sql-client.ts";
import type { EmbeddingBacklog, EmbeddingModelInfo, VectorIndex } from "./vector-index.ts";

/**
 * One suite for every VectorIndex (and the EmbeddingBacklog paired with it). pgvector runs in
 * PGlite; the PostgreSQL used by the other contract suites has no pgvector here. Qdrant runs
 * against the local stand-in (test/doubles/qdrant-stand-in.ts) always, and against a real Qdrant
 * when QDRANT_URL is set (QDRANT_API_KEY if it needs one); without QDRANT_URL that run is skipped.
 * Its chunks and backlog live in PGlite.
 */

interface Scope {
  collection: string;
  version: string;
}

interface VectorBackend {
  /** An index and its backlog for one collection/version, not yet prepared. */
  create(scope: Scope): { index: VectorIndex; backlog: EmbeddingBacklog };
  /** Stores pages with `chunksPerPage` chunks each, so vectors have chunks to belong to. */
  addPages(scope: Scope, filePaths: string[], chunksPerPage: number): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** Qdrant at `url`, chunks and backlog in PGlite; every collection this run makes is dropped after. */
async function openQdrantBackend(
  url: string,
  apiKey: string | undefined,
  stop: () => Promise<void> = async () => {},
): Promise<VectorBackend> {
  const db: SqlClient = await openPglite();
  await migrate(db);
  const client = await createQdrantClient({ url, apiKey });
  const run = `lectern-contract-${randomBytes(4).toString("hex")}`;
  const names = new Set<string>();
  return {
    create(scope) {
      const collectionName = `${run}-${scope.collection}${scope.version ? `-${scope.version}` : ""}`;
      names.add(collectionName);
      const backlog = new ExternalVectorBacklog(
        db,
        collectionName,
        scope.collection,
        scope.version,
      );
      const index = new QdrantIndex({
        client,
        backlog,
        encodeSparse: chunkSparseVector,
        collectionName,
      });
      return { index, backlog };
    },
    addPages: (scope, filePaths, chunksPerPage) => addPages(db, scope, filePaths, chunksPerPage),
    async cleanup() {
      for (const name of names) await client.deleteCollection(name).catch(() => {});
      await db.close();
      await stop();
    },
  };
}

async function addPages(
  db: SqlClient,
  scope: Scope,
  filePaths: string[],
  chunksPerPage: number,
): Promise<string[]> {
  const store = new DocumentStore(db, scope.collection, scope.version);
  const upserts = filePaths.map((filePath) => page(scope, filePath, chunksPerPage));
  await store.apply({ upserts, deletes: [], settingsHash: "s" });
  return upserts.flatMap((change) => change.chunks.map((chunk) => chunk.id));
}

const backends: { name: string; open: () => Promise<VectorBackend>; skip?: boolean }[] = [
  ...(["calling thread", "worker thread"] as const).map((thread) => ({
    name: `pgvector in PGlite on the ${thread}`,
    async open(): Promise<VectorBackend> {
      const db: SqlClient = await (thread === "worker thread" ? openPgliteThread : openPglite)(
        undefined,
        { vector: true },
      );
      await migrate(db);
      return {
        create(scope) {
          const index = new PgvectorIndex(db, scope.collection, scope.version);
          return { index, backlog: new PgvectorBacklog(db, index) };
        },
        addPages: (scope, filePaths, chunksPerPage) =>
          addPages(db, scope, filePaths, chunksPerPage),
        cleanup: () => db.close(),
      };
    },
  })),
  {
    name: "Qdrant (local stand-in)",
    async open() {
      const standIn = await startQdrantStandIn();
      return openQdrantBackend(standIn.url, undefined, () => standIn.close());
    },
  },
  {
    name: `Qdrant at QDRANT_URL${process.env.QDRANT_URL ? "" : " (skipped: QDRANT_URL is not set)"}`,
    skip: !process.env.QDRANT_URL,
    open: () => openQdrantBackend(process.env.QDRANT_URL ?? "", process.env.QDRANT_API_KEY),
  },
];

const MODEL: EmbeddingModelInfo = { provider: "test", model: "axes-4", dimensions: 4 };
const BOOK: Scope = { collection: "default", version: "" };

/** A unit vector along one of the four axes, tilted slightly towards the next one. */
function axis(position: number, tilt = 0): number[] {
  const vector = [0, 0, 0, 0];
  vector[position % 4] = 1;
  vector[(position + 1) % 4] = tilt;
  return vector;
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`vector index on ${backend.name}`, () => {
    let vectors: VectorBackend;
    let index: VectorIndex;
    let backlog: EmbeddingBacklog;
    let chunkIds: string[];

    beforeAll(async () => {
      vectors = await backend.open();
      chunkIds = await vectors.addPages(BOOK, ["b.md", "a.md"], 2);
      ({ index, backlog } = vectors.create(BOOK));
      await index.prepare(MODEL);
    });
    afterAll(async () => vectors?.cleanup());

    it("starts empty with every chunk in the backlog, in book order, headings first", async () => {
      expect(await index.count()).toBe(0);
      expect(await backlog.countPending()).toBe(4);
      const pending = await backlog.pendingChunks(3);
      expect(pending.map((chunk) => chunk.id)).toEqual(["a.md#0", "a.md#1", "b.md#0"]);
      expect(pending[0]?.text).toBe("Page a.md › Section 0\n\nText 0 of a.md.");
      expect(await index.search(axis(0), 5)).toEqual([]);
    });

    it("stores vectors, takes them off the backlog and finds the nearest first", async () => {
      const batch = chunkIds.map((chunkId, position) => ({ chunkId, embedding: axis(position) }));
      await index.upsert(batch.slice(0, 3));
      await backlog.markEmbedded(batch.slice(0, 3).map((vector) => vector.chunkId));
      expect(await index.count()).toBe(3);
      expect(await backlog.countPending()).toBe(1);
      await index.upsert(batch.slice(3));
      await backlog.markEmbedded(batch.slice(3).map((vector) => vector.chunkId));
      expect(await backlog.pendingChunks(10)).toEqual([]);

      const hits = await index.search(axis(1, 0.2), 2);
      expect(hits.map((hit) => hit.chunkId)).toEqual([chunkIds[1], chunkIds[2]]);
      expect(hits[0]?.similarity).toBeCloseTo(1 / Math.sqrt(1.04), 5);
      expect(hits[1]?.similarity).toBeCloseTo(0.2 / Math.sqrt(1.04), 5);
    });

    it("reports similarity clamped to 0..1", async () => {
      const opposite = axis(0).map((value) => -value);
      const hits = await index.search(opposite, 4);
      expect(hits).toHaveLength(4);
      for (const hit of hits) {
        expect(hit.similarity).toBeGreaterThanOrEqual(0);
        expect(hit.similarity).toBeLessThanOrEqual(1);
      }
      expect(hits.at(-1)).toEqual({ chunkId: chunkIds[0], similarity: 0 });
    });

    it("replaces the vector of a chunk stored again", async () => {
      const [first] = chunkIds;
      if (!first) throw new Error("no chunks");
      await index.upsert([{ chunkId: first, embedding: [0.5, 0.5, 0.5, 0.5] }]);
      expect(await index.count()).toBe(4);
      const [nearest, next] = await index.search([1, 1, 1, 1], 2);
      expect(nearest?.chunkId).toBe(first);
      expect(nearest?.similarity).toBeCloseTo(1, 5);
      expect(next?.similarity).toBeCloseTo(0.5, 5);
    });

    it("refuses a vector of the wrong length and keeps none of its batch", async () => {
      const [first, second] = chunkIds;
      if (!first || !second) throw new Error("no chunks");
      await index.delete([second]);
      await expect(
        index.upsert([
          { chunkId: second, embedding: axis(1) },
          { chunkId: first, embedding: [1, 0, 0] },
        ]),
      ).rejects.toMatchObject({ code: "CONFIG_INVALID" });
      expect(await index.count()).toBe(3);
      expect((await backlog.pendingChunks(10)).map((chunk) => chunk.id)).toEqual([second]);
      await index.upsert([{ chunkId: second, embedding: axis(1) }]);
    });

    it("deletes the vectors of given chunks only, ignoring unknown ids", async () => {
      const [first] = chunkIds;
      if (!first) throw new Error("no chunks");
      await index.delete([first, "no-such-chunk"]);
      await index.delete([]);
      expect(await index.count()).toBe(3);
      expect(await backlog.countPending()).toBe(1);
      expect((await index.search(axis(3), 4)).map((hit) => hit.chunkId)).not.toContain(first);
    });

    it("keeps each collection's vectors to itself", async () => {
      const other: Scope = { collection: "other", version: "2.0" };
      const [otherChunk] = await vectors.addPages(other, ["a.md"], 1);
      const scoped = vectors.create(other);
      await scoped.index.prepare(MODEL);
      expect(await scoped.backlog.countPending()).toBe(1);
      await scoped.index.upsert([{ chunkId: otherChunk ?? "", embedding: axis(0) }]);
      expect(await scoped.index.count()).toBe(1);
      expect(await index.count()).toBe(3);
      expect((await index.search(axis(0), 10)).map((hit) => hit.chunkId)).not.toContain(otherChunk);
      await scoped.index.deleteAll();
      expect(await scoped.index.count()).toBe(0);
      expect(await index.count()).toBe(3);
    });

    it("accepts the recorded model again and refuses another one naming both", async () => {
      await vectors.create(BOOK).index.prepare(MODEL);
      expect(await index.count()).toBe(3);
      const other = { provider: "test", model: "axes-8", dimensions: 8 };
      const refusal = await vectors
        .create(BOOK)
        .index.prepare(other)
        .catch((error: unknown) => error);
      expect(refusal).toMatchObject({
        code: "CONFIG_INVALID",
        details: { recorded: MODEL, configured: other },
      });
      expect(String((refusal as Error).message)).toMatch(/test:axes-4 .*test:axes-8/);
    });

    it("drops the old model's vectors when told to embed again, then records the new model", async () => {
      const other = { provider: "test", model: "axes-8", dimensions: 8 };
      const again = vectors.create(BOOK);
      await again.index.prepare(other, { reembed: true });
      expect(await again.index.count()).toBe(0);
      expect(await again.backlog.countPending()).toBe(4);
      await vectors.create(BOOK).index.prepare(other);
      await expect(vectors.create(BOOK).index.prepare(MODEL)).rejects.toMatchObject({
        code: "CONFIG_INVALID",
      });
    });
  });
}

function page(
  scope: Scope,
  filePath: string,
  chunkCount: number,
): { document: DocumentRecord; chunks: ChunkRecord[] } {
  const title = `Page ${filePath}`;
  return {
    document: {
      ...scope,
      filePath,
      title,
      url: `/docs/${filePath}`,
      sourceHash: `hash of ${filePath}`,
      tags: [],
      metadata: {},
      chunkCount,
    },
    chunks: Array.from({ length: chunkCount }, (_, chunkIndex) => ({
      id: `${scope.collection === "default" ? "" : `${scope.collection}:`}${filePath}#${chunkIndex}`,
      ...scope,
      filePath,
      chunkIndex,
      totalChunks: chunkCount,
      title,
      section: `Section ${chunkIndex}`,
      headingPath: [title, `Section ${chunkIndex}`],
      url: `/docs/${filePath}#section-${chunkIndex}`,
      tags: [],
      text: `Text ${chunkIndex} of ${filePath}.`,
      contentHash: `${filePath}-${chunkIndex}`,
      tokenCount: 5,
    })),
  };
}
