import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { env } from "@huggingface/transformers";
import { isLecternError, type LecternError } from "@lectern/engine/errors";
import { afterAll, expect, vi } from "vitest";

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

/**
 * A temporary folder for a suite's generated models, and an `open` that remembers what it opened:
 * everything is disposed of and the folder removed after the suite. Call `prepare()` first thing
 * in `beforeAll`.
 */
export function modelWorkspace<Options, Model extends { dispose?: () => Promise<void> }>(
  prefix: string,
  create: (options: Options) => Promise<Model>,
) {
  const workspace = {
    root: "",
    opened: [] as Model[],
    async prepare(): Promise<void> {
      workspace.root = await mkdtemp(path.join(tmpdir(), prefix));
    },
    async open(options: Options): Promise<Model> {
      const created = await create(options);
      workspace.opened.push(created);
      return created;
    },
    /** Writes a model with `write` into a new folder of the workspace and returns the folder. */
    async written<WriteOptions>(
      name: string,
      write: (directory: string, options?: WriteOptions) => Promise<unknown>,
      options?: WriteOptions,
    ): Promise<string> {
      const directory = path.join(workspace.root, name);
      await write(directory, options);
      return directory;
    },
  };
  afterAll(async () => {
    await Promise.all(workspace.opened.map((model) => model.dispose?.()));
    if (workspace.root) await rm(workspace.root, { recursive: true, force: true });
  });
  return workspace;
}

/**
 * A signal that aborts itself at its `n`-th `throwIfAborted` check (between model calls), and the
 * number of checks made, to show that no call ran after the abort.
 */
export function abortingAtCheck(n: number): { signal: AbortSignal; checks: () => number } {
  const controller = new AbortController();
  const check = controller.signal.throwIfAborted.bind(controller.signal);
  let checks = 0;
  controller.signal.throwIfAborted = () => {
    checks += 1;
    if (checks === n) controller.abort();
    check();
  };
  return { signal: controller.signal, checks: () => checks };
}

/** A model directory that does not exist is a configuration error naming it. */
export async function expectMissingDirectoryRefused(
  load: (modelDir: string) => Promise<unknown>,
  root: string,
): Promise<LecternError> {
  const missing = path.join(root, "no-such-model");
  const error = await expectConfigError(load(missing));
  expect(error.message).toContain(missing);
  expect(error.message).toContain("does not exist");
  return error;
}
