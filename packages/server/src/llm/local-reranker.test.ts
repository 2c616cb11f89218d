import path from "node:path";
import type { Reranker } from "@lectern/engine/search/reranker";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as localModels from "../../test/local-models.ts";
import { writeTinyCrossEncoder, writeTinyModel } from "../../test/tiny-onnx-model.ts";
import { loadConfig } from "../config/config.ts";
import { createLocalReranker, type LocalReranker } from "./local-reranker.ts";
import { createReranker } from "./rerankers.ts";

// The tiny cross-encoder's logit is the number of question words (special tokens and unknown
// words aside, repeats included) that occur in the passage: exact integers, so exact assertions.

const models = localModels.modelWorkspace<Parameters<typeof createLocalReranker>[0], Reranker>(
  "lectern-local-reranker-",
  createLocalReranker,
);
const open = (options: Parameters<typeof createLocalReranker>[0]) =>
  models.open(options) as Promise<LocalReranker>;
const crossEncoderIn = (name: string, options?: Parameters<typeof writeTinyCrossEncoder>[1]) =>
  models.written(name, writeTinyCrossEncoder, options);
let modelDir: string;
let reranker: LocalReranker;

/** Passage indices from the highest score to the lowest. */
function ranking(scores: number[]): number[] {
  return scores.map((_, index) => index).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
}

const QUESTION = "How do I calibrate the robot arm?";
const PASSAGES = [
  "The quick brown fox jumps over the lazy dog.",
  "Install the Python package.",
  "Calibrate the robot arm joint by joint.",
  "The robot arm has a motor.",
];

beforeAll(async () => {
  await models.prepare();
  modelDir = await crossEncoderIn("tiny-cross-encoder");
  reranker = await open({ modelDir });
});

describe("createLocalReranker", () => {
  it("describes itself from the model directory", async () => {
    expect(reranker.modelId).toBe("tiny-cross-encoder");
    expect(reranker.maxLength).toBe(512);
    const named = await open({
      modelDir: await crossEncoderIn("named", { nameOrPath: "cross-encoder/tiny" }),
    });
    expect(named.modelId).toBe("cross-encoder/tiny");
  });

  it("scores every passage against the question and ranks the one sharing its words first", async () => {
    const scores = await reranker.rerank(QUESTION, PASSAGES);
    // calibrate + the + robot + arm; the + robot + arm; "the" only, twice.
    expect(scores).toEqual([1, 1, 4, 3]);
    expect(ranking(scores).slice(0, 2)).toEqual([2, 3]);
  });

  it("keeps question and passage apart: words repeated within the passage do not count", async () => {
    const scores = await reranker.rerank("lidar", ["robot robot robot", "lidar", "lidar lidar"]);
    expect(scores).toEqual([0, 1, 1]);
    // The question's own words never match themselves.
    expect(await reranker.rerank("robot arm", ["", "blue"])).toEqual([0, 0]);
  });

  it("returns no scores for no passages without running the model", async () => {
    expect(await reranker.rerank(QUESTION, [])).toEqual([]);
  });

  it("gives each passage the same score whatever the batch size and the passage order", async () => {
    const passages = [
      "The robot arm has a motor and a joint sensor on every joint of the arm.",
      "red",
      "calibrate",
      "How to calibrate the camera and the lidar of the robot before a map is made.",
      "lazy dog",
      "the arm",
      "Install the python package, then configure the network.",
    ];
    const whole = await reranker.rerank(QUESTION, passages);
    expect(whole).toEqual([3, 0, 1, 4, 0, 2, 1]);
    for (const batchSize of [1, 2, 3]) {
      const batched = await open({ modelDir, batchSize });
      expect(await batched.rerank(QUESTION, passages)).toEqual(whole);
    }
    const reversed = await reranker.rerank(QUESTION, [...passages].reverse());
    expect(reversed).toEqual([...whole].reverse());
  });

  it("runs one model call per batch", async () => {
    const batched = await open({ modelDir, batchSize: 2 });
    // The signal is checked once before tokenizing and once before each model call.
    const controller = new AbortController();
    const check = vi.spyOn(controller.signal, "throwIfAborted");
    await batched.rerank(QUESTION, PASSAGES.concat("robot"), { signal: controller.signal });
    expect(check).toHaveBeenCalledTimes(1 + 3);
  });

  it("takes the relevant class's log-odds from a two-label model", async () => {
    const twoLabels = await open({ modelDir: await crossEncoderIn("two-labels", { labels: 2 }) });
    // The tiny model's two logits are [-overlap, overlap].
    const scores = await twoLabels.rerank(QUESTION, PASSAGES);
    expect(scores).toEqual([2, 2, 8, 6]);
    expect(ranking(scores).slice(0, 2)).toEqual([2, 3]);
  });

  it("cuts long pairs to the model's length from the end of the passage", async () => {
    const short = await open({ modelDir: await crossEncoderIn("short", { maxLength: 16 }) });
    expect(short.maxLength).toBe(16);
    const filler = Array.from({ length: 40 }, () => "blue").join(" ");
    // [CLS] lidar [SEP] = 3 tokens, so 12 passage tokens fit before the closing [SEP].
    const scores = await short.rerank("lidar", [
      `lidar ${filler}`,
      `${filler} lidar`,
      `${Array.from({ length: 11 }, () => "blue").join(" ")} lidar ${filler}`,
      `${Array.from({ length: 12 }, () => "blue").join(" ")} lidar ${filler}`,
    ]);
    expect(scores).toEqual([1, 0, 1, 0]);
  });

  it("stops before a model call once the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      reranker.rerank(QUESTION, PASSAGES, { signal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });

    const batched = await open({ modelDir, batchSize: 1 });
    // Abort once the first batch is done: the second must not run.
    const during = localModels.abortingAtCheck(3);
    await expect(
      batched.rerank(QUESTION, PASSAGES, { signal: during.signal }),
    ).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(during.checks()).toBe(3);
  });

  it("names a directory that does not exist", async () => {
    const error = await localModels.expectMissingDirectoryRefused(
      (modelDir) => createLocalReranker({ modelDir }),
      models.root,
    );
    expect(error.details).toMatchObject({ modelDir: path.join(models.root, "no-such-model") });
  });

  it("names a path that is a file, not a directory", async () => {
    const file = path.join(modelDir, "config.json");
    const error = await localModels.expectConfigError(createLocalReranker({ modelDir: file }));
    expect(error.message).toContain("is not a directory");
  });

  it("names the missing model and tokenizer files", async () => {
    const directory = await crossEncoderIn("incomplete", {
      omit: ["onnx/model.onnx", "tokenizer.json"],
    });
    const error = await localModels.expectConfigError(createLocalReranker({ modelDir: directory }));
    expect(error.message).toContain(directory);
    expect(error.message).toContain("onnx/model.onnx");
    expect(error.details).toMatchObject({
      modelDir: directory,
      missing: ["tokenizer.json", "onnx/model.onnx"],
    });
  });

  it("reports a broken config.json or model file as configuration errors", async () => {
    await localModels.expectBrokenFilesRefused(
      (modelDir) => createLocalReranker({ modelDir }),
      crossEncoderIn,
    );
  });

  it("refuses a model that is not a cross-encoder", async () => {
    const embeddingModel = path.join(models.root, "embedding-model");
    await writeTinyModel(embeddingModel);
    const error = await localModels.expectConfigError(
      createLocalReranker({ modelDir: embeddingModel }),
    );
    expect(error.message).toContain(embeddingModel);
    expect(error.message).toContain("failed on a test input");
    expect(error.message).toContain("logits");
  });

  it("rejects invalid options", async () => {
    await localModels.expectConfigError(createLocalReranker({ modelDir, batchSize: 0 }));
    await localModels.expectConfigError(createLocalReranker({ modelDir, batchSize: 1.5 }));
    await localModels.expectConfigError(createLocalReranker({ modelDir: "  " }));
  });

  it("never reaches for the network", async () => {
    await localModels.expectNoNetwork(async () => {
      const local = await open({ modelDir: await crossEncoderIn("offline") });
      await local.rerank(QUESTION, PASSAGES);
      // A hub-style id is a relative path here: it is looked up on disk and not downloaded.
      const hubId = "cross-encoder/ms-marco-MiniLM-L-6-v2";
      const error = await localModels.expectConfigError(createLocalReranker({ modelDir: hubId }));
      expect(error.message).toContain(path.resolve(hubId));
    });
  });
});

describe("createReranker", () => {
  it("returns no reranker when no model directory is configured", async () => {
    expect(await createReranker(loadConfig({ env: {}, cwd: models.root }))).toBeUndefined();
  });

  it("loads the model named by LECTERN_RERANK_MODEL_DIR", async () => {
    const config = loadConfig({ env: { LECTERN_RERANK_MODEL_DIR: modelDir }, cwd: models.root });
    const configured = await createReranker(config);
    if (!configured) throw new Error("expected a reranker");
    models.opened.push(configured);
    expect(configured.modelId).toBe("tiny-cross-encoder");
    expect(ranking(await configured.rerank(QUESTION, PASSAGES))[0]).toBe(2);
  });

  it("fails at start-up with CONFIG_INVALID for a directory that does not exist", async () => {
    const missing = path.join(models.root, "not-there");
    const config = loadConfig({ env: { LECTERN_RERANK_MODEL_DIR: missing }, cwd: models.root });
    const error = await localModels.expectConfigError(createReranker(config));
    expect(error.message).toContain(missing);
  });
});
