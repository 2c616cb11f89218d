import { writeFile } from "node:fs/promises";
import path from "node:path";
import { env } from "@huggingface/transformers";
import { expect, vi } from "vitest";
import { isLecternError, type LecternError } from "../src/errors.ts";

/** What the local ONNX model tests (embedder and reranker) check alike. */

/** Expects `promise` to reject with CONFIG_INVALID and returns the error. */
export async function expectConfigError(promise: Promise<unknown>): Promise<LecternError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isLecternError(error)) throw new Error(`expected a LecternError, got ${String(error)}`);
  expect(error.code).toBe("CONFIG_INVALID");
  return error;
}

/**
 * A config.json that is not JSON and a model file that is not ONNX are both configuration errors
 * naming the file or directory. `writeModel(name)` writes a working model and returns its folder.
 */
export async function expectBrokenFilesRefused(
  load: (modelDir: string) => Promise<unknown>,
  writeModel: (name: string) => Promise<string>,
): Promise<void> {
  const badConfig = await writeModel("bad-config");
  await writeFile(path.join(badConfig, "config.json"), "{ not json");
  const configFailure = await expectConfigError(load(badConfig));
  expect(configFailure.message).toContain(path.join(badConfig, "config.json"));

  const badModel = await writeModel("bad-model");
  await writeFile(path.join(badModel, "onnx", "model.onnx"), "not a model");
  const modelFailure = await expectConfigError(load(badModel));
  expect(modelFailure.message).toContain(badModel);
  expect(modelFailure.message).toContain("could not be loaded");
}

/**
 * Runs `work` with `fetch` and transformers.js's fetch watched, and expects neither to be called
 * and remote models to stay disabled.
 */
export async function expectNoNetwork(work: () => Promise<void>): Promise<void> {
  const globalFetch = vi.spyOn(globalThis, "fetch");
  const libraryFetch = vi.fn(async () => {
    throw new Error("network access attempted");
  });
  const originalFetch = env.fetch;
  env.fetch = libraryFetch;
  try {
    await work();
    expect(env.allowRemoteModels).toBe(false);
    expect(libraryFetch).not.toHaveBeenCalled();
    expect(globalFetch).not.toHaveBeenCalled();
  } finally {
    env.fetch = originalFetch;
    globalFetch.mockRestore();
  }
}
