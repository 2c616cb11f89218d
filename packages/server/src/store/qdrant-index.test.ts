import { randomBytes } from "node:crypto";
import { analyzeQuery } from "@lectern/engine/search/analyzer";
import { chunkSparseVector, querySparseVector } from "@lectern/engine/search/sparse-vector";
import type { QdrantClient } from "@qdrant/js-client-rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QdrantStandIn, startQdrantStandIn } from "../../test/doubles/qdrant-stand-in.ts";
import { type ChunkRecord, DocumentStore } from "./document-store.ts";
import { ExternalVectorBacklog } from "./external-backlog.ts";
import { migrate } from "./migrations.ts";
import { openPglite } from "./pglite.ts";
import {
  createQdrantClient,
  pointIdOf,
  QdrantIndex,
  SPARSE_FORMAT,
  urlPrefixes,
} from "./qdrant-index.ts";
import type { SqlClient } from "./sql-client.ts";

/**
 * What the Qdrant index does beyond the VectorIndex contract (vector-index-contract.test.ts):
 * hybrid search fused by Qdrant, its filters, and the requests Lectern sends. Runs against the
 * local stand-in always and against a real Qdrant when QDRANT_URL is set (skipped otherwise).
 */

const targets: { name: string; skip: boolean; start: () => Promise<Target> }[] = [
  {
    name: "the local stand-in",
    skip: false,
    async start() {
      const standIn = await startQdrantStandIn();
      return { url: standIn.url, apiKey: undefined, stop: () => standIn.close() };
    },
  },
  {
    name: `Qdrant at QDRANT_URL${process.env.QDRANT_URL ? "" : " (skipped: QDRANT_URL is not set)"}`,
    skip: !process.env.QDRANT_URL,
    async start() {
      return {
        url: process.env.QDRANT_URL ?? "",
        apiKey: process.env.QDRANT_API_KEY,
        stop: async () => {},
      };
    },
  },
];

interface Target {
  url: string;
  apiKey: string | undefined;
  stop: () => Promise<void>;
}

const MODEL = { provider: "test", model: "axes-4", dimensions: 4 };

/** Three pages whose words and vectors point different ways, so each ranking is recognisable. */
const PAGES = [
  {
    file: "gears.md",
    url: "/docs/mechanics/gears#backlash",
    section: "Backlash",
    text: "Gearbox backlash compensation in the joint controller.",
    axis: 0,
  },
  {
    file: "lidar.md",
    url: "/docs/sensors/lidar#clouds",
    section: "Point clouds",
    text: "Lidar returns point clouds of the room.",
    axis: 1,
  },
  {
    file: "camera.md",
    url: "/docs/sensors/camera#calibration",
    section: "Calibration",
    text: "Camera calibration finds the lens distortion.",
    axis: 2,
  },
];

function axis(position: number): number[] {
  const vector = [0, 0, 0, 0];
  vector[position] = 1;
  return vector;
}

function sparseQuery(text: string) {
  return querySparseVector({ terms: analyzeQuery(text).terms, boost: new Map() });
}

for (const target of targets) {
  describe.skipIf(target.skip)(`Qdrant index on ${target.name}`, () => {
    let running: Target;
    let db: SqlClient;
    let client: QdrantClient;
    let index: QdrantIndex;
    const collectionName = `lectern-test-${randomBytes(4).toString("hex")}`;
    const chunkIds: string[] = [];

    beforeAll(async () => {
      running = await target.start();
      db = await openPglite();
      await migrate(db);
      const store = new DocumentStore(db, "default", "");
      const upserts = PAGES.map((page) => {
        const chunk: ChunkRecord = {
          id: `${page.file}#0`,
          collection: "default",
          version: "",
          filePath: page.file,
          chunkIndex: 0,
          totalChunks: 1,
          title: page.file,
          section: page.section,
          headingPath: [page.file, page.section],
          url: page.url,
          tags: [],
          text: page.text,
          contentHash: page.file,
          tokenCount: 8,
        };
        chunkIds.push(chunk.id);
        return {
          document: {
            collection: "default",
            version: "",
            filePath: page.file,
            title: page.file,
            url: page.url.split("#")[0] ?? page.url,
            sourceHash: page.file,
            tags: [],
            metadata: {},
            chunkCount: 1,
          },
          chunks: [chunk],
        };
      });
      await store.apply({ upserts, deletes: [], settingsHash: "s" });
      client = await createQdrantClient({ url: running.url, apiKey: running.apiKey });
      index = new QdrantIndex({
        client,
        backlog: new ExternalVectorBacklog(db, collectionName),
        encodeSparse: chunkSparseVector,
        collectionName,
      });
      await index.prepare(MODEL);
      await index.upsert(
        PAGES.map((page, position) => ({
          chunkId: chunkIds[position] ?? "",
          embedding: axis(page.axis),
        })),
      );
    });
    afterAll(async () => {
      await client?.deleteCollection(collectionName).catch(() => {});
      await db?.close();
      await running?.stop();
    });

    it("creates the collection with a cosine dense vector, an IDF sparse vector and keyword indexes", async () => {
      const info = await client.getCollection(collectionName);
      const vectors = info.config.params.vectors as Record<
        string,
        { size: number; distance: string }
      >;
      expect(vectors.dense).toMatchObject({ size: 4, distance: "Cosine" });
      expect(info.config.params.sparse_vectors?.bm25).toMatchObject({ modifier: "idf" });
      for (const field of ["book", "version", "url_prefixes", "headings"]) {
        expect(info.payload_schema[field]?.data_type).toBe("keyword");
      }
    });

    it("fuses the dense and the BM25 ranking: each side brings the chunk only it finds", async () => {
      // The vector points at the lidar page, the words at the gears page.
      const hits = await index.searchHybrid({
        embedding: axis(1),
        sparse: sparseQuery("gearbox backlash"),
        limit: 3,
        rrfK: 60,
      });
      expect(
        hits
          .slice(0, 2)
          .map((hit) => hit.chunkId)
          .sort(),
      ).toEqual(["gears.md#0", "lidar.md#0"]);
      const byId = new Map(hits.map((hit) => [hit.chunkId, hit]));
      expect(byId.get("lidar.md#0")?.similarity).toBeCloseTo(1, 5);
      expect(byId.get("gears.md#0")?.similarity).toBeCloseTo(0, 5);
      // The camera page is only a weak dense match (cosine 0, ranked behind the lidar page).
      expect(hits.at(-1)?.chunkId).toBe("camera.md#0");
    });

    it("ranks a chunk matching in both lists first", async () => {
      const hits = await index.searchHybrid({
        embedding: axis(2),
        sparse: sparseQuery("camera lens"),
        limit: 3,
        rrfK: 60,
      });
      expect(hits[0]?.chunkId).toBe("camera.md#0");
      expect(hits[0]?.score).toBeCloseTo(2 / 61, 6);
    });

    it("filters by URL-path prefix and by section inside Qdrant, for both rankings", async () => {
      const bySensors = await index.searchHybrid({
        embedding: axis(0),
        sparse: sparseQuery("gearbox backlash"),
        limit: 3,
        rrfK: 60,
        filter: { urlPrefix: "/docs/sensors" },
      });
      expect(bySensors.map((hit) => hit.chunkId).sort()).toEqual(["camera.md#0", "lidar.md#0"]);
      const byPartialSegment = await index.searchHybrid({
        embedding: axis(0),
        sparse: sparseQuery("lidar"),
        limit: 3,
        rrfK: 60,
        filter: { urlPrefix: "/docs/sensors/li" },
      });
      expect(byPartialSegment.map((hit) => hit.chunkId)).toEqual(["lidar.md#0"]);
      const bySection = await index.searchHybrid({
        embedding: axis(1),
        sparse: sparseQuery("lidar"),
        limit: 3,
        rrfK: 60,
        filter: { section: "  CALIBRATION " },
      });
      expect(bySection.map((hit) => hit.chunkId)).toEqual(["camera.md#0"]);
    });

    it("searches the dense vectors alone with similarity from Qdrant's cosine", async () => {
      const hits = await index.search([1, 1, 0, 0], 2);
      expect(hits.map((hit) => hit.chunkId).sort()).toEqual(["gears.md#0", "lidar.md#0"]);
      for (const hit of hits) expect(hit.similarity).toBeCloseTo(Math.SQRT1_2, 5);
    });

    it("lets two instances starting together share one new collection", async () => {
      const shared = `${collectionName}-shared`;
      const open = () =>
        new QdrantIndex({
          client,
          backlog: new ExternalVectorBacklog(db, shared),
          encodeSparse: chunkSparseVector,
          collectionName: shared,
        });
      try {
        await Promise.all([open().prepare(MODEL), open().prepare(MODEL)]);
        expect(
          await open()
            .prepare(MODEL)
            .then(() => "prepared"),
        ).toBe("prepared");
      } finally {
        await client.deleteCollection(shared).catch(() => {});
      }
    });

    it("refuses a collection whose BM25 vectors have the older layout until --reembed", async () => {
      const older = `${collectionName}-older`;
      const open = () =>
        new QdrantIndex({
          client,
          backlog: new ExternalVectorBacklog(db, older),
          encodeSparse: chunkSparseVector,
          collectionName: older,
        });
      try {
        // As an earlier Lectern created it: the model recorded, no sparse layout.
        await client.api().createCollection({
          collection_name: older,
          vectors: { dense: { size: 4, distance: "Cosine" } },
          sparse_vectors: { bm25: { modifier: "idf" } },
          metadata: { lectern_model: { ...MODEL } },
        });
        const refused = await open()
          .prepare(MODEL)
          .catch((error: unknown) => error);
        expect(refused).toMatchObject({ code: "CONFIG_INVALID" });
        expect(String((refused as Error).message)).toContain("--reembed");
        await open().prepare(MODEL, { reembed: true });
        const info = await client.getCollection(older);
        expect(info.config.metadata).toMatchObject({ lectern_sparse: SPARSE_FORMAT });
        expect(
          await open()
            .prepare(MODEL)
            .then(() => "prepared"),
        ).toBe("prepared");
      } finally {
        await client.deleteCollection(older).catch(() => {});
      }
    });

    it("ranks BM25 alone with each point's sparse ids, so the caller sees which terms matched", async () => {
      const hits = await index.searchSparse({ sparse: sparseQuery("gearbox lidar"), limit: 3 });
      expect(hits.map((hit) => hit.chunkId).sort()).toEqual(["gears.md#0", "lidar.md#0"]);
      for (const hit of hits) {
        expect(hit.score).toBeGreaterThan(0);
        expect(hit.indices.length).toBeGreaterThan(2);
      }
      expect(await index.searchSparse({ sparse: { indices: [], values: [] }, limit: 3 })).toEqual(
        [],
      );
    });

    it("stores each chunk under a UUID point id derived from its chunk id", async () => {
      const id = pointIdOf("gears.md#0");
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(pointIdOf("gears.md#0")).toBe(id);
      expect(pointIdOf("gears.md#1")).not.toBe(id);
      const { points } = await client.query(collectionName, {
        query: [1, 0, 0, 0],
        using: "dense",
        filter: { must: [{ has_id: [id] }] },
        with_payload: true,
      });
      expect(points).toHaveLength(1);
      expect(points[0]?.payload).toMatchObject({
        chunk_id: "gears.md#0",
        book: "default",
        version: "",
        headings: ["gears.md", "backlash"],
      });
    });
  });
}

describe("URL prefixes indexed for a chunk", () => {
  it("lists every prefix of the URL path, without the fragment or the host", () => {
    expect(urlPrefixes("/docs/a#b")).toEqual([
      "/",
      "/d",
      "/do",
      "/doc",
      "/docs",
      "/docs/",
      "/docs/a",
    ]);
    expect(urlPrefixes("https://book.example/docs/a?x=1#b")).toEqual(urlPrefixes("/docs/a"));
  });

  it("never ends a prefix inside an emoji (Qdrant cannot store half of one)", () => {
    expect(urlPrefixes("/🤖a")).toEqual(["/", "/🤖", "/🤖a"]);
  });
});

describe("the Qdrant stand-in", () => {
  let standIn: QdrantStandIn;
  beforeAll(async () => {
    standIn = await startQdrantStandIn({ apiKey: "stand-in-key" });
  });
  afterAll(async () => standIn?.close());

  async function send(method: string, route: string, body?: unknown) {
    const response = await fetch(`${standIn.url}${route}`, {
      method,
      headers: { "content-type": "application/json", "api-key": "stand-in-key" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it("refuses unknown fields and wrong shapes with 400 and Qdrant's error body", async () => {
    const created = await send("PUT", "/collections/strict", {
      vectors: { dense: { size: 2, distance: "Cosine" } },
      sparse_vectors: { bm25: { modifier: "idf" } },
    });
    expect(created).toMatchObject({ status: 200, body: { result: true, status: "ok" } });
    const cases: [string, string, unknown][] = [
      [
        "PUT",
        "/collections/other",
        { vectors: { dense: { size: 2, distance: "Cosine" } }, shards: 2 },
      ],
      [
        "PUT",
        "/collections/strict/points?wait=true",
        { points: [{ id: "chunk-1", vector: { dense: [1, 0] } }] },
      ],
      [
        "PUT",
        "/collections/strict/points?wait=true",
        { points: [{ id: 1, vector: { dense: [1, 0, 0] } }] },
      ],
      [
        "PUT",
        "/collections/strict/points?wait=true",
        { points: [{ id: 1, vectors: { dense: [1, 0] } }] },
      ],
      [
        "PUT",
        "/collections/strict/points?wait=true",
        {
          points: [{ id: 1, vector: { dense: [1, 0], bm25: { indices: [1, 1], values: [1, 2] } } }],
        },
      ],
      ["POST", "/collections/strict/points/query", { query: [1, 0], using: "dense", limt: 3 }],
      [
        "POST",
        "/collections/strict/points/query",
        {
          query: [1, 0],
          using: "dense",
          filter: { must: [{ key: "book", match: { value: "x" } }] },
        },
      ],
      ["POST", "/collections/strict/points/delete?wait=maybe", { points: [1] }],
      ["PUT", "/collections/strict/index", { field_name: "book", field_schema: "keywords" }],
    ];
    for (const [method, route, body] of cases) {
      const answer = await send(method, route, body);
      expect({ route, body, status: answer.status }).toEqual({ route, body, status: 400 });
      expect(answer.body).toMatchObject({ status: { error: expect.any(String) } });
    }
    expect(standIn.points("strict")).toEqual([]);
  });

  it("answers 404 for a collection that does not exist and 401 without the API key", async () => {
    expect((await send("GET", "/collections/missing")).status).toBe(404);
    const anonymous = await fetch(`${standIn.url}/collections/strict`);
    expect(anonymous.status).toBe(401);
  });

  it("turns a wrong API key into CONFIG_INVALID naming QDRANT_API_KEY", async () => {
    const db = await openPglite();
    try {
      await migrate(db);
      const index = new QdrantIndex({
        client: await createQdrantClient({ url: standIn.url, apiKey: "wrong-key" }),
        backlog: new ExternalVectorBacklog(db, "keyed"),
        encodeSparse: chunkSparseVector,
        collectionName: "keyed",
      });
      await expect(index.prepare(MODEL)).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("QDRANT_API_KEY"),
      });
    } finally {
      await db.close();
    }
  });
});
