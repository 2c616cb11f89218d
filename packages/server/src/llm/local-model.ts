/**
 * Opening a transformers.js (ONNX Runtime) model directory, shared by the local embedder and the
 * local reranker. Nothing is ever fetched from a model hub: remote loading is switched off before a
 * model is opened, and the directory is checked up front so that a wrong path or an incomplete
 * export fails with a message naming the directory and the missing file.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createError, type LecternError } from "@lectern/engine/errors";

/** Files a model directory must contain, relative to it. */
export const LOCAL_MODEL_FILES = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/model.onnx",
] as const;

/** A Hugging Face style `org/name` id (as opposed to a filesystem path left in the config). */
const MODEL_ID_PATTERN = /^[\w.-]+(\/[\w.-]+)?$/;

export interface LocalModelKind {
  /** How messages name the model, e.g. "local embedding model" or "reranker model". */
  label: string;
  /** What the export must be, e.g. "a feature-extraction model" or "a cross-encoder". */
  architecture: string;
}

type Transformers = typeof import("@huggingface/transformers");

export interface LocalModel<Model> {
  /** The absolute directory. */
  modelDir: string;
  /** Its config.json. */
  config: Record<string, unknown>;
  /** `_name_or_path` when it is a model id like `org/name`; the directory's name otherwise. */
  modelId: string;
  model: Model;
}

/** How every local model is loaded: from the directory only, on the CPU, in fp32. */
export const LOCAL_LOAD_OPTIONS = {
  local_files_only: true,
  device: "cpu",
  dtype: "fp32",
} as const;

/**
 * Checks the directory and its config.json, sets transformers.js to read local files only, then
 * runs `load`; any failure is CONFIG_INVALID naming the model and its directory.
 */
export async function openLocalModel<Model>(
  directory: string,
  kind: LocalModelKind,
  load: (transformers: Transformers, modelDir: string) => Promise<Model>,
): Promise<LocalModel<Model>> {
  const modelDir = path.resolve(directory);
  await checkModelDirectory(modelDir, kind);
  const config = await readModelConfig(modelDir);

  const transformers = await loadTransformers(modelDir, kind);
  // Local files only, for every load in this process: an absolute path is never taken for a hub
  // id, and with remote models off transformers.js never falls back to a download. The file cache
  // only ever holds downloads, so it is off too (it could otherwise shadow the directory's files).
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  transformers.env.useFSCache = false;
  try {
    const model = await load(transformers, modelDir);
    return { modelDir, config, modelId: modelIdFor(modelDir, config), model };
  } catch (error) {
    throw modelError(
      modelDir,
      `The ${kind.label} in ${modelDir} could not be loaded: ${messageOf(error)}`,
      error,
    );
  }
}

/**
 * transformers.js is an optional peer dependency (with ONNX Runtime it weighs some 450 MB), so an
 * install without local models stays small; using one without it says what to install.
 */
async function loadTransformers(modelDir: string, kind: LocalModelKind): Promise<Transformers> {
  try {
    return await import("@huggingface/transformers");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw modelError(
      modelDir,
      `The ${kind.label} needs @huggingface/transformers, which is not installed. Install it beside Lectern: npm install @huggingface/transformers@4`,
      error,
    );
  }
}

/**
 * Runs a first input through a freshly loaded model, before the first real request; a failure
 * releases the model and is CONFIG_INVALID naming the model and its directory.
 */
export async function probeLocalModel<Result>(
  modelDir: string,
  kind: LocalModelKind,
  probe: () => Promise<Result>,
  dispose: () => Promise<unknown>,
): Promise<Result> {
  try {
    return await probe();
  } catch (error) {
    await dispose();
    throw modelError(
      modelDir,
      `The ${kind.label} in ${modelDir} failed on a test input: ${messageOf(error)}`,
      error,
    );
  }
}

async function checkModelDirectory(modelDir: string, kind: LocalModelKind): Promise<void> {
  const directory = await stat(modelDir).catch(() => undefined);
  if (directory === undefined) {
    throw modelError(modelDir, `The ${kind.label} directory ${modelDir} does not exist.`);
  }
  if (!directory.isDirectory()) {
    throw modelError(modelDir, `The ${kind.label} path ${modelDir} is not a directory.`);
  }
  const missing: string[] = [];
  for (const file of LOCAL_MODEL_FILES) {
    const entry = await stat(path.join(modelDir, file)).catch(() => undefined);
    if (!entry?.isFile()) missing.push(file);
  }
  if (missing.length > 0) {
    throw modelError(
      modelDir,
      `The ${kind.label} directory ${modelDir} is missing ${missing.join(", ")}. ` +
        `It needs ${LOCAL_MODEL_FILES.join(", ")} (an fp32 ONNX export of ${kind.architecture} ` +
        "with its tokenizer).",
      undefined,
      { missing },
    );
  }
}

async function readModelConfig(modelDir: string): Promise<Record<string, unknown>> {
  const file = path.join(modelDir, "config.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw modelError(modelDir, `${file} is not valid JSON: ${messageOf(error)}`, error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw modelError(modelDir, `${file} must contain a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

/** `_name_or_path` when it is a model id like `org/name`; the directory's name otherwise. */
function modelIdFor(modelDir: string, config: Record<string, unknown>): string {
  const nameOrPath = config._name_or_path;
  if (typeof nameOrPath === "string" && MODEL_ID_PATTERN.test(nameOrPath)) return nameOrPath;
  return path.basename(modelDir);
}

/** CONFIG_INVALID naming the model directory: a bad model stops start-up. */
export function modelError(
  modelDir: string,
  message: string,
  cause?: unknown,
  details: Record<string, unknown> = {},
): LecternError {
  return createError("CONFIG_INVALID", message, {
    details: { modelDir, ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
