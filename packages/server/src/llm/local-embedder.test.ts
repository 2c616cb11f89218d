import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  abortingAtCheck,
  expectBrokenFilesRefused,
  expectConfigError,
  expectMissingDirectoryRefused,
  expectNoNetwork,
  modelWorkspace,
} from "../../test/local-models.ts";
import { writeTinyModel } from "../../test/tiny-onnx-model.ts";
import { createLocalEmbedder, type LocalEmbedder } from "./local-embedder.ts";

const models = modelWorkspace("lectern-local-embedder-", createLocalEmbedder);
const open = models.open;
const modelIn = (name: string, options?: Parameters<typeof writeTinyModel>[1]) =>
  models.written(name, writeTinyModel, options);
let modelDir: string;
let dimensions: number;
let embedder: LocalEmbedder;

function norm(vector: number[]): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0) / (norm(a) * norm(b));
}

beforeAll(async () => {
  await models.prepare();
  modelDir = path.join(models.root, "tiny-bert");
  ({ dimensions } = await writeTinyModel(modelDir));
  embedder = await open({ modelDir });
});

describe("createLocalEmbedder", () => {
  it("describes itself from the model directory", () => {
    expect(embedder.provider).toBe("local");
    expect(embedder.modelId).toBe("tiny-bert");
    expect(embedder.dimensions).toBe(dimensions);
  });

  it("returns one unit-length vector of the model's width per text", async () => {
    const texts = ["How do I calibrate the robot arm?", "battery charge", "", "zzz unknown words"];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const vector of vectors) {
      expect(Array.isArray(vector)).toBe(true);
      expect(vector).toHaveLength(dimensions);
      expect(norm(vector)).toBeCloseTo(1, 6);
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it("gives identical texts identical vectors, within and across calls", async () => {
    const [first, second] = await embedder.embed(["Robot arm joint", "robot ARM joint"]);
    const [again] = await embedder.embed(["Robot arm joint"]);
    expect(second).toEqual(first);
    expect(again).toEqual(first);
  });

  it("ranks texts that share words above texts that share none", async () => {
    const [query, related, unrelated] = await embedder.embed([
      "the quick brown fox jumps",
      "a quick brown dog",
      "configure lidar network package",
    ]);
    if (!query || !related || !unrelated) throw new Error("missing vectors");
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it("gives the same vectors whatever the batch size", async () => {
    const texts = [
      "install the python package",
      "red",
      "how do i charge the battery of the robot",
      "lazy dog",
      "camera sensor error log",
    ];
    const whole = await embedder.embed(texts);
    const batched = await open({ modelDir, batchSize: 2 });
    const inPairs = await batched.embed(texts);
    expect(inPairs).toHaveLength(whole.length);
    inPairs.forEach((vector, row) => {
      vector.forEach((value, column) => {
        expect(value).toBeCloseTo(whole[row]?.[column] ?? Number.NaN, 6);
      });
    });
  });

  it("passes pooling and normalisation through", async () => {
    const cls = await open({ modelDir, pooling: "cls" });
    const [robot, fox] = await cls.embed(["robot", "fox"]);
    // Every text starts with [CLS], and the tiny model has no attention: one vector for all.
    expect(fox).toEqual(robot);

    const raw = await open({ modelDir, normalize: false });
    const [vector] = await raw.embed(["the quick brown fox"]);
    expect(norm(vector ?? [])).not.toBeCloseTo(1, 2);
  });

  it("uses a model id from config.json when it has one", async () => {
    const named = await open({
      modelDir: await modelIn("named", { nameOrPath: "acme/tiny-bert" }),
    });
    expect(named.modelId).toBe("acme/tiny-bert");
    const saved = await open({
      modelDir: await modelIn("saved-from-a-path", { nameOrPath: "/home/someone/models/x" }),
    });
    expect(saved.modelId).toBe("saved-from-a-path");
  });

  it("stops before running a batch once the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(["robot"], { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });

    const batched = await open({ modelDir, batchSize: 1 });
    // Abort while the first batch is done: the second must not run.
    const during = abortingAtCheck(2);
    await expect(
      batched.embed(["robot", "arm", "joint"], { signal: during.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(during.checks()).toBe(2);
  });

  it("names a directory that does not exist", async () => {
    await expectMissingDirectoryRefused(
      (modelDir) => createLocalEmbedder({ modelDir }),
      models.root,
    );
  });

  it("names the missing model file", async () => {
    const directory = await modelIn("no-onnx", { omit: ["onnx/model.onnx"] });
    const error = await expectConfigError(createLocalEmbedder({ modelDir: directory }));
    expect(error.message).toContain(directory);
    expect(error.message).toContain("onnx/model.onnx");
    expect(error.details).toMatchObject({ modelDir: directory, missing: ["onnx/model.onnx"] });
  });

  it("names every missing tokenizer file", async () => {
    const directory = await modelIn("no-tokenizer", {
      omit: ["tokenizer.json", "tokenizer_config.json"],
    });
    const error = await expectConfigError(createLocalEmbedder({ modelDir: directory }));
    expect(error.details).toMatchObject({ missing: ["tokenizer.json", "tokenizer_config.json"] });
  });

  it("reports a broken config.json or model file as configuration errors", async () => {
    await expectBrokenFilesRefused((modelDir) => createLocalEmbedder({ modelDir }), modelIn);
  });

  it("fails clearly when the configured dimensions do not match the model", async () => {
    const error = await expectConfigError(createLocalEmbedder({ modelDir, dimensions: 384 }));
    expect(error.message).toContain(`${dimensions}-dimensional`);
    expect(error.message).toContain("384");
    const matching = await open({ modelDir, dimensions });
    expect(matching.dimensions).toBe(dimensions);
  });

  it("rejects invalid options", async () => {
    await expectConfigError(createLocalEmbedder({ modelDir, batchSize: 0 }));
    await expectConfigError(createLocalEmbedder({ modelDir, dimensions: -1 }));
    await expectConfigError(createLocalEmbedder({ modelDir: "  " }));
    const pooling = "max" as "mean";
    await expectConfigError(createLocalEmbedder({ modelDir, pooling }));
  });

  it("never reaches for the network", async () => {
    await expectNoNetwork(async () => {
      const local = await open({ modelDir: await modelIn("offline") });
      await local.embed(["navigation map"]);
      // A hub-style id is a relative path here: it is looked up on disk and not downloaded.
      const hubId = "sentence-transformers/all-MiniLM-L6-v2";
      const error = await expectConfigError(createLocalEmbedder({ modelDir: hubId }));
      expect(error.message).toContain(path.resolve(hubId));
    });
  });
});
