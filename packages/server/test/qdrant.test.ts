import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { indexOf } from "@lectern/engine/search/test-builders";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { composeApp } from "../src/http/compose.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { MemoryHistoryStore } from "../src/store/memory-history-store.ts";
import { runCli, SAMPLE_DOCS } from "./cli.ts";
import { createFakeEmbedder, type FakeEmbedder } from "./doubles/fake-embedder.ts";
import { type FakeModelServer, startFakeModelServer } from "./doubles/fake-model-server.ts";
import { type QdrantStandIn, startQdrantStandIn } from "./doubles/qdrant-stand-in.ts";
import { askChat, expectError, postJson } from "./http-fixture.ts";

/**
 * The sample book ingested through the Qdrant backend into the local stand-in (real HTTP), with a
 * deterministic embedder, then asked through /chat: the answer's ranking and filters come from
 * Qdrant's fused query, and the incremental sync keeps Qdrant's points in line with the book.
 */

let workDir: string;
let docsDir: string;
let standIn: QdrantStandIn;
let embedder: FakeEmbedder;
let lectern: Lectern;
/** Closed before the data directory is opened again (one open at a time per directory). */
let closed = false;
const COLLECTION = "robotics-primer";

function qdrantConfig(dataDir: string) {
  return loadConfig({
    env: {
      LOG_LEVEL: "silent",
      VECTOR_BACKEND: "qdrant",
      QDRANT_URL: standIn.url,
      QDRANT_COLLECTION: COLLECTION,
      EMBEDDINGS_BATCH_SIZE: "16",
    },
    overrides: { dataDir },
  });
}

function appOf(book: Lectern) {
  return composeApp(book, book.config, {
    logger: pino({ level: "silent" }),
    history: new MemoryHistoryStore(),
  }).app;
}

function queries() {
  return standIn.requests.filter((request) => request.path.endsWith("/points/query"));
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-qdrant-"));
  docsDir = path.join(workDir, "docs");
  await cp(SAMPLE_DOCS, docsDir, { recursive: true });
  standIn = await startQdrantStandIn();
  embedder = createFakeEmbedder(64);
  lectern = await openLectern(qdrantConfig(path.join(workDir, "data")), { embedder });
});

afterAll(async () => {
  if (!closed) await lectern?.close();
  await standIn?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("the sample book on Qdrant", () => {
  it("ingests every chunk into one collection with dense and BM25 vectors and filter payloads", async () => {
    const report = await lectern.ingest(docsDir);
    expect(report.failures).toEqual([]);
    expect(report.embeddings).toMatchObject({ embedded: report.totalChunks, pending: 0 });
    const points = standIn.points(COLLECTION) ?? [];
    expect(points).toHaveLength(report.totalChunks);
    const chunkIds = new Set([...indexOf(lectern).allChunks()].map((chunk) => chunk.id));
    for (const point of points) {
      expect(chunkIds.has(String(point.payload.chunk_id))).toBe(true);
      expect(point.dense.get("dense")).toHaveLength(64);
      expect(point.sparse.get("bm25")?.size).toBeGreaterThan(0);
      expect(point.payload.url_prefixes).toContain("/docs");
    }
    // Batches of EMBEDDINGS_BATCH_SIZE, each one upsert.
    const upserts = standIn.requests.filter(
      (request) =>
        request.method === "PUT" && request.path.startsWith(`/collections/${COLLECTION}/points`),
    );
    expect(upserts).toHaveLength(Math.ceil(report.totalChunks / 16));
    expect(await lectern.vectors?.count()).toBe(report.totalChunks);
  });

  it("answers /chat with citations ranked by Qdrant's fused dense + BM25 query", async () => {
    const before = queries().length;
    const answer = await askChat(appOf(lectern), {
      query: "What does rclpy.spin do, and what happens if I never call it?",
    });
    expect(answer.metadata.mode).toBe("retrieval_only");
    expect(answer.answer).toMatch(/\[1\]/);
    const first = answer.sources[0];
    expect(first && "file_path" in first ? first.file_path : "").toBe(
      "02-ros2-fundamentals/01-nodes.md",
    );
    const sent = queries().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({
      query: { rrf: { k: 60 } },
      prefetch: [{ using: "dense" }, { using: "bm25" }],
      with_vector: ["dense"],
    });
  });

  it("applies the URL-prefix and section filters inside Qdrant", async () => {
    const app = appOf(lectern);
    const before = queries().length;
    const prefix = "/docs/ros2-fundamentals";
    const answer = await askChat(app, {
      query: "How do nodes exchange messages?",
      filters: { source_url_prefix: prefix },
    });
    expect(answer.sources.length).toBeGreaterThan(0);
    for (const source of answer.sources)
      expect(source.source_url).toMatch(/\/docs\/ros2-fundamentals/);
    const [sent] = queries().slice(before);
    expect(JSON.stringify(sent?.body)).toContain(
      JSON.stringify({ key: "url_prefixes", match: { value: prefix } }),
    );

    const section = [...indexOf(lectern).allChunks()].find(
      (chunk) =>
        chunk.filePath === "02-ros2-fundamentals/01-nodes.md" && chunk.headingPath.length > 1,
    )?.headingPath[1];
    if (!section) throw new Error("the nodes page has no section");
    const sectionAnswer = await askChat(app, {
      query: "How do nodes exchange messages?",
      filters: { section: section.toUpperCase() },
    });
    expect(sectionAnswer.sources.length).toBeGreaterThan(0);
    for (const source of sectionAnswer.sources) {
      expect(
        "section_path" in source ? source.section_path.map((heading) => heading.toLowerCase()) : [],
      ).toContain(section.toLowerCase());
    }
    const last = queries().at(-1);
    expect(JSON.stringify(last?.body)).toContain(
      JSON.stringify({ key: "headings", match: { value: section.toLowerCase() } }),
    );
  });

  it("deletes the points of removed and changed chunks on the next ingest and embeds only what changed", async () => {
    const pages = [...indexOf(lectern).allChunks()];
    const removedPage = "02-ros2-fundamentals/03-services.mdx";
    const changedPage = "01-getting-started/01-what-is-robotics-software.md";
    const removedIds = pages
      .filter((chunk) => chunk.filePath === removedPage)
      .map((chunk) => chunk.id);
    expect(removedIds.length).toBeGreaterThan(0);
    await rm(path.join(docsDir, removedPage));
    const changedFile = path.join(docsDir, changedPage);
    await writeFile(
      changedFile,
      `${await readFile(changedFile, "utf8")}\n\n## Quokka calibration\n\nThe quokka calibration routine zeroes the gripper's torque sensor before each shift.\n`,
    );
    const callsBefore = embedder.calls.flat().length;
    const report = await lectern.ingest(docsDir);
    expect(report.removed).toEqual([removedPage]);
    expect(report.updated).toEqual([changedPage]);
    const changedChunks = report.addedChunks.length;
    expect(embedder.calls.flat().length - callsBefore).toBe(changedChunks);

    const points = standIn.points(COLLECTION) ?? [];
    expect(points).toHaveLength(report.totalChunks);
    const stored = new Set(points.map((point) => String(point.payload.chunk_id)));
    for (const id of removedIds) expect(stored.has(id)).toBe(false);
    for (const chunk of [...indexOf(lectern).allChunks()]) expect(stored.has(chunk.id)).toBe(true);

    const answer = await askChat(appOf(lectern), {
      query: "What does the quokka calibration routine do?",
    });
    const first = answer.sources[0];
    expect(first && "file_path" in first ? first.file_path : "").toBe(changedPage);
  });

  it("opens again without embedding anything: the backlog is kept in the database", async () => {
    // Its embedded database is open in one place at a time: the book is closed, then reopened.
    await lectern.close();
    closed = true;
    const reopenedEmbedder = createFakeEmbedder(64);
    const reopened = await openLectern(qdrantConfig(lectern.config.dataDir), {
      embedder: reopenedEmbedder,
    });
    try {
      expect(await reopened.vectors?.countPending()).toBe(0);
      const report = await reopened.embedPending();
      expect(report.embedded).toBe(0);
      expect(reopenedEmbedder.calls).toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it("refuses a different embedding model for the collection, naming both", async () => {
    const other = createFakeEmbedder(32);
    await expect(
      openLectern(qdrantConfig(lectern.config.dataDir), { embedder: other }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/concepts-64.*concepts-32/),
    });
  });

  it("reports Qdrant in /health and answers 503 QDRANT_UNAVAILABLE with Retry-After while it is down", async () => {
    const down = await startQdrantStandIn();
    const dataDir = path.join(workDir, "down");
    const config = loadConfig({
      env: {
        LOG_LEVEL: "silent",
        VECTOR_BACKEND: "qdrant",
        QDRANT_URL: down.url,
        QDRANT_TIMEOUT_MS: "2000",
      },
      overrides: { dataDir },
    });
    const smallBook = path.join(workDir, "small-book");
    await mkdir(smallBook, { recursive: true });
    await writeFile(
      path.join(smallBook, "nodes.md"),
      "---\ntitle: Nodes\n---\n\nA ROS 2 node is one process of a robot's software.\n",
    );
    const book = await openLectern(config, { embedder: createFakeEmbedder(64) });
    try {
      await book.ingest(smallBook);
      const app = appOf(book);
      const healthy = (await (await app.request("/health")).json()) as {
        services: Record<string, { status: string }>;
      };
      expect(healthy.services.qdrant?.status).toBe("healthy");
      await down.close();
      const health = await app.request("/health");
      expect(health.status).toBe(200);
      const report = (await health.json()) as {
        status: string;
        services: Record<string, { status: string }>;
      };
      expect(report.status).toBe("degraded");
      expect(report.services.qdrant?.status).toBe("unavailable");
      const response = await postJson(app, "/chat", { query: "What is a ROS 2 node?" });
      await expectError(response, 503, "QDRANT_UNAVAILABLE");
      expect(response.headers.get("retry-after")).toBeTruthy();

      // An ingest meanwhile updates the book and its BM25 index, and reports the vectors it
      // could not store; they are embedded by the next run.
      await writeFile(
        path.join(smallBook, "topics.md"),
        "---\ntitle: Topics\n---\n\nTopics carry messages.\n",
      );
      const ingested = await book.ingest(smallBook);
      expect(ingested.added).toEqual(["topics.md"]);
      expect(ingested.embeddings?.failed).toMatch(/Qdrant/);
      expect(ingested.embeddings?.pending).toBe(1);
      expect([...indexOf(book).allChunks()].map((chunk) => chunk.filePath)).toContain("topics.md");
    } finally {
      await book.close();
    }
  });
});

describe("the lectern command with VECTOR_BACKEND=qdrant", () => {
  let models: FakeModelServer;
  let cliStandIn: QdrantStandIn;
  let env: Record<string, string>;
  beforeAll(async () => {
    models = await startFakeModelServer({ embeddingDimensions: 32 });
    cliStandIn = await startQdrantStandIn();
    env = {
      VECTOR_BACKEND: "qdrant",
      QDRANT_URL: cliStandIn.url,
      EMBEDDINGS_PROVIDER: "openai-compatible",
      EMBEDDINGS_BASE_URL: models.baseUrl,
      EMBEDDINGS_MODEL: "fake-embeddings",
    };
  });
  afterAll(async () => {
    await models?.close();
    await cliStandIn?.close();
  });

  it("ingests the sample book into Qdrant and answers `ask` from it", async () => {
    const dataDir = path.join(workDir, "cli");
    const ingest = await runCli(["ingest", "--docs", SAMPLE_DOCS, "--data-dir", dataDir], { env });
    expect(ingest.stderr).not.toMatch(/error/i);
    expect(ingest.code).toBe(0);
    const points = cliStandIn.points("lectern-default") ?? [];
    expect(ingest.stdout).toContain(`Embeddings: ${points.length} chunks embedded`);
    expect(points.length).toBeGreaterThan(20);

    const queriesBefore = cliStandIn.requests.filter((request) =>
      request.path.endsWith("/points/query"),
    ).length;
    const ask = await runCli(
      [
        "ask",
        "What does rclpy.spin do, and what happens if I never call it?",
        "--json",
        "--data-dir",
        dataDir,
      ],
      { env },
    );
    expect(ask.code).toBe(0);
    const answer = JSON.parse(ask.stdout) as {
      mode: string;
      sources: { file_path?: string; url?: string }[];
    };
    expect(answer.mode).toBe("retrieval_only");
    // The page that documents rclpy.spin is among the sources; they are listed by similarity,
    // where the fake embedding server's cosine can put another page first.
    expect(JSON.stringify(answer.sources)).toContain("01-nodes");
    const queriesAfter = cliStandIn.requests.filter((request) =>
      request.path.endsWith("/points/query"),
    ).length;
    expect(queriesAfter - queriesBefore).toBe(1);
  });

  it("stops in one line naming QDRANT_URL when it is missing", async () => {
    const result = await runCli(["ask", "x", "--data-dir", path.join(workDir, "cli-no-url")], {
      env: { VECTOR_BACKEND: "qdrant" },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/error \[CONFIG_INVALID\]: .*QDRANT_URL/);
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it("stops in one line with QDRANT_UNAVAILABLE when nothing answers at QDRANT_URL", async () => {
    const result = await runCli(
      ["ingest", "--docs", SAMPLE_DOCS, "--data-dir", path.join(workDir, "cli-unreachable")],
      { env: { ...env, QDRANT_URL: "http://127.0.0.1:4299", QDRANT_TIMEOUT_MS: "2000" } },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/error \[QDRANT_UNAVAILABLE\]: /);
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
