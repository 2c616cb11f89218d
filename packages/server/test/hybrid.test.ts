import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isLecternError } from "@lectern/engine/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createFakeEmbedder } from "./doubles/fake-embedder.ts";
import { type FakeModelServer, startFakeModelServer } from "./doubles/fake-model-server.ts";
import { writeTinyModel } from "./tiny-onnx-model.ts";

/** Dense and hybrid retrieval over pgvector in PGlite, with deterministic embedders. */

let workDir: string;
let docsDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-hybrid-"));
  docsDir = path.join(workDir, "docs");
  await mkdir(docsDir, { recursive: true });
  const page = (title: string, body: string) => `---\ntitle: ${title}\n---\n\n${body}\n`;
  await writeFile(
    path.join(docsDir, "automobile.md"),
    page(
      "Automobile care",
      "Automobile engine maintenance keeps the vehicle reliable for many years.",
    ),
  );
  await writeFile(
    path.join(docsDir, "bicycle.md"),
    page("Bicycle care", "Bicycle chain lubrication with light oil prevents rust and wear."),
  );
  await writeFile(
    path.join(docsDir, "flags.md"),
    page("Flags", "Set xyz_config_flag to true to enable verbose diagnostics in the firmware."),
  );
  await writeFile(
    path.join(docsDir, "garden.md"),
    page("Garden", "Tomatoes need sun, water and a stake to climb as they grow taller."),
  );
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function config(name: string, env: Record<string, string> = {}) {
  return loadConfig({
    env: { EMBEDDINGS_BATCH_SIZE: "2", ...env },
    overrides: { dataDir: path.join(workDir, name) },
  });
}

describe("hybrid retrieval", () => {
  let lectern: Lectern;
  beforeAll(async () => {
    const embedder = createFakeEmbedder();
    lectern = await openLectern(config("concepts"), { embedder });
    const report = await lectern.ingest(docsDir);
    expect(report.embeddings).toMatchObject({ embedded: 4, pending: 0, failed: undefined });
    // EMBEDDINGS_BATCH_SIZE=2: the four chunks go in two calls.
    expect(embedder.calls.map((texts) => texts.length)).toEqual([2, 2]);
  });
  afterAll(async () => lectern?.close());

  it("finds by meaning what BM25 cannot find by words", async () => {
    expect(lectern.served.retriever.searchLexical("car motor upkeep").results).toEqual([]);
    const hybrid = await lectern.served.retriever.search("car motor upkeep");
    expect(hybrid.results[0]?.chunk.filePath).toBe("automobile.md");
    expect(hybrid.results[0]?.denseSimilarity).toBeGreaterThan(0.7);
    expect(hybrid.decision).toBe("answer");
  });

  it("fuses both rankings: results only the dense side found and only the lexical side found", async () => {
    const hybrid = await lectern.served.retriever.search("car xyz_config_flag");
    const files = hybrid.results.map((result) => result.chunk.filePath);
    // Lexical only: the identifier exists in one page and means nothing to the embedder.
    expect(
      lectern.served.retriever
        .searchLexical("car xyz_config_flag")
        .results.map((result) => result.chunk.filePath),
    ).toEqual(["flags.md"]);
    expect(files).toContain("flags.md");
    // Dense only: "car" is the automobile page's concept, not its word.
    expect(files).toContain("automobile.md");
    for (const result of hybrid.results) {
      expect(result.similarityScore).toBeGreaterThanOrEqual(0);
      expect(result.similarityScore).toBeLessThanOrEqual(1);
    }
  });

  it("applies filters to the dense side too", async () => {
    const hybrid = await lectern.served.retriever.search("car motor upkeep", {
      filters: { sourceUrlPrefix: "/docs/bicycle" },
    });
    expect(hybrid.results.every((result) => result.chunk.filePath === "bicycle.md")).toBe(true);
  });

  it("still says no_results when neither words nor meaning match", async () => {
    const hybrid = await lectern.served.retriever.search("quarterly tax filing deadline");
    expect(hybrid.decision).toBe("no_results");
  });

  it("refuses to mix embedding models and names the command that re-embeds", async () => {
    await lectern.close();
    const error = await openLectern(config("concepts"), { embedder: createFakeEmbedder(40) }).catch(
      (caught: unknown) => caught,
    );
    expect(isLecternError(error) && error.code).toBe("CONFIG_INVALID");
    expect((error as Error).message).toMatch(
      /embedded with test:concepts-32 \(32 dimensions\).*test:concepts-40 \(40 dimensions\).*lectern ingest --docs <dir> --reembed/,
    );
    lectern = await openLectern(config("concepts"), {
      embedder: createFakeEmbedder(40),
      reembed: true,
    });
    expect(await lectern.vectors?.countPending()).toBe(4);
    expect((await lectern.embedPending()).embedded).toBe(4);
  });
});

describe("embedding at ingest through an OpenAI-compatible /v1/embeddings server", () => {
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startFakeModelServer({ embeddingDimensions: 32 });
  });
  afterAll(async () => fake.close());

  it("embeds in batches, only new or changed chunks, and resumes after an interruption", async () => {
    const env = {
      EMBEDDINGS_PROVIDER: "openai-compatible",
      EMBEDDINGS_BASE_URL: fake.baseUrl,
      EMBEDDINGS_MODEL: "local-embed",
      LLM_MAX_RETRIES: "0",
    };
    const embeddedInputs = () =>
      fake.requests
        .filter((request) => request.path.endsWith("/embeddings"))
        .reduce((sum, request) => sum + (request.body.input as string[]).length, 0);
    // The probe asks for the dimension; then the second batch fails.
    fake.enqueue({}, {}, { status: 500 });
    let lectern = await openLectern(config("remote", env));
    try {
      expect(lectern.embedder.dimensions).toBe(32);
      const first = await lectern.ingest(docsDir);
      expect(first.embeddings).toMatchObject({ embedded: 2, pending: 2 });
      expect(first.embeddings?.failed).toMatch(/500/);
    } finally {
      await lectern.close();
    }
    const beforeResume = embeddedInputs();
    lectern = await openLectern(config("remote", env));
    try {
      const resumed = await lectern.ingest(docsDir);
      expect(resumed.unchanged).toBe(4);
      expect(resumed.embeddings).toMatchObject({ embedded: 2, pending: 0, failed: undefined });
      expect(embeddedInputs() - beforeResume).toBe(1 + 2); // the probe, then only the two left
      await writeFile(
        path.join(docsDir, "garden.md"),
        "---\ntitle: Garden\n---\n\nTomatoes and basil grow well together in a sunny bed.\n",
      );
      const before = embeddedInputs();
      const changed = await lectern.ingest(docsDir);
      expect(changed.updated).toEqual(["garden.md"]);
      expect(changed.embeddings?.embedded).toBe(1);
      expect(embeddedInputs() - before).toBe(1);
      const hybrid = await lectern.served.retriever.search("tomatoes basil");
      expect(hybrid.results[0]?.chunk.filePath).toBe("garden.md");
    } finally {
      await lectern.close();
    }
  });
});

describe("local ONNX embeddings", () => {
  it("ingests and retrieves with a transformers.js model from a local directory", async () => {
    const modelDir = path.join(workDir, "tiny-model");
    const { dimensions } = await writeTinyModel(modelDir);
    const lectern = await openLectern(
      config("local", { EMBEDDINGS_PROVIDER: "local", EMBEDDINGS_LOCAL_MODEL_DIR: modelDir }),
    );
    try {
      expect(lectern.embedder).toMatchObject({ provider: "local", dimensions });
      const report = await lectern.ingest(docsDir);
      expect(report.embeddings?.embedded).toBe(4);
      expect(await lectern.vectors?.count()).toBe(4);
    } finally {
      await lectern.close();
    }
  });
});
