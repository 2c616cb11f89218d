import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Embedder, embedInBatches } from "@lectern/engine/search/embedder";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { MemoryDocSource } from "../ingest/memory-doc-source.ts";
import { openLectern } from "../lectern.ts";

/** An embedder that records the size of every call; vectors follow the text's length. */
function recordingEmbedder(maxBatchSize?: number): Embedder & { calls: number[] } {
  const calls: number[] = [];
  return {
    provider: "test",
    modelId: "lengths-3",
    dimensions: 3,
    ...(maxBatchSize === undefined ? {} : { maxBatchSize }),
    calls,
    async embed(texts) {
      calls.push(texts.length);
      return texts.map((text) => [1, text.length % 7, 1]);
    },
  };
}

const BOOK = Object.fromEntries(
  ["alpha", "beta", "gamma", "delta", "epsilon"].map((name) => [
    `${name}.md`,
    `# ${name}\n\nThe ${name} page explains one thing about ${name}.\n`,
  ]),
);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-embedder-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("embedInBatches", () => {
  it("splits texts into calls of at most the batch size, keeping order", async () => {
    const sizes: number[] = [];
    const vectors = await embedInBatches(["a", "bb", "ccc", "dddd", "eeeee"], 2, async (batch) => {
      sizes.push(batch.length);
      return batch.map((text) => [text.length]);
    });
    expect(sizes).toEqual([2, 2, 1]);
    expect(vectors).toEqual([[1], [2], [3], [4], [5]]);
    expect(await embedInBatches([], 2, async () => [[0]])).toEqual([]);
  });
});

describe("embedding what is pending", () => {
  for (const [label, maxBatchSize, expected] of [
    ["the embedder's declared batch limit", 2, [2, 2, 1]],
    ["the configured batch size when the embedder declares none", undefined, [3, 2]],
  ] as const) {
    it(`sends one model call per page of ${label}`, async () => {
      const embedder = recordingEmbedder(maxBatchSize);
      const lectern = await openLectern(
        loadConfig({
          env: { EMBEDDINGS_BATCH_SIZE: "3" },
          overrides: { dataDir: path.join(workDir, String(maxBatchSize)) },
        }),
        { embedder },
      );
      try {
        const report = await lectern.ingest(new MemoryDocSource(BOOK));
        expect(report.embeddings).toMatchObject({ embedded: 5, pending: 0, failed: undefined });
        expect(embedder.calls).toEqual(expected);
        expect(await lectern.vectors?.count()).toBe(5);
      } finally {
        await lectern.close();
      }
    });
  }
});
