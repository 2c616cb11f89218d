/**
 * The `local` embeddings provider: a transformers.js (ONNX Runtime) feature-extraction model read
 * from a directory on disk. Nothing is ever fetched from a model hub — remote loading is switched
 * off before the model is opened, and the directory is checked up front so that a wrong path or an
 * incomplete export fails with a message naming the directory and the missing file.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { FeatureExtractionPipeline } from "@huggingface/transformers";
import { createError, type LecternError } from "../errors.ts";
import type { Embedder } from "../search/embedder.ts";

export interface LocalEmbedderOptions {
  /** Directory holding config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx. */
  modelDir: string;
  /** Expected vector length; loading fails when the model produces a different one. */
  dimensions?: number;
  /** How token vectors become one vector per text. Default `mean`. */
  pooling?: "mean" | "cls";
  /** L2-normalise every vector. Default true. */
  normalize?: boolean;
  /** Texts per model call. Default 32. */
  batchSize?: number;
}

export interface LocalEmbedder extends Embedder {
  /** Releases the ONNX Runtime session. The embedder must not be used afterwards. */
  dispose(): Promise<void>;
}

/** Files a model directory must contain, relative to it. */
export const LOCAL_MODEL_FILES = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/model.onnx",
] as const;

const DEFAULT_BATCH_SIZE = 32;
const POOLINGS = ["mean", "cls"] as const;
/** A Hugging Face style `org/name` id (as opposed to a filesystem path left in the config). */
const MODEL_ID_PATTERN = /^[\w.-]+(\/[\w.-]+)?$/;

export async function createLocalEmbedder(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
  const pooling = options.pooling ?? "mean";
  const normalize = options.normalize ?? true;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  validateOptions(options, pooling, batchSize);

  const modelDir = path.resolve(options.modelDir);
  await checkModelDirectory(modelDir);
  const config = await readModelConfig(modelDir);

  const transformers = await import("@huggingface/transformers");
  // Local files only, for every load in this process: an absolute path is never taken for a hub
  // id, and with remote models off transformers.js never falls back to a download. The file cache
  // only ever holds downloads, so it is off too (it could otherwise shadow the directory's files).
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  transformers.env.useFSCache = false;

  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await transformers.pipeline("feature-extraction", modelDir, {
      local_files_only: true,
      device: "cpu",
      dtype: "fp32",
    });
  } catch (error) {
    throw modelError(
      modelDir,
      `The local embedding model in ${modelDir} could not be loaded: ${messageOf(error)}`,
      error,
    );
  }

  const run = async (texts: string[]): Promise<number[][]> => {
    const output = await extractor(texts, { pooling, normalize: false });
    try {
      const [rows, width] = output.dims;
      if (output.dims.length !== 2 || rows !== texts.length || width === undefined) {
        throw new Error(`unexpected output shape [${output.dims.join(", ")}]`);
      }
      const data = output.data;
      const vectors: number[][] = [];
      for (let row = 0; row < rows; row++) {
        const vector = Array.from(data.subarray(row * width, (row + 1) * width), Number);
        vectors.push(normalize ? unitLength(vector) : vector);
      }
      return vectors;
    } finally {
      output.dispose();
    }
  };

  // One probe text tells the real output width (the hidden size for mean and cls pooling) and
  // proves the tokenizer and the graph work together before the first real request.
  let dimensions: number;
  try {
    dimensions = (await run(["dimension probe"]))[0]?.length ?? 0;
  } catch (error) {
    await extractor.dispose();
    throw modelError(
      modelDir,
      `The local embedding model in ${modelDir} failed on a test input: ${messageOf(error)}`,
      error,
    );
  }
  if (options.dimensions !== undefined && options.dimensions !== dimensions) {
    await extractor.dispose();
    throw modelError(
      modelDir,
      `The local embedding model in ${modelDir} produces ${dimensions}-dimensional vectors, but ` +
        `${options.dimensions} dimensions are configured. Configure ${dimensions} or leave the ` +
        "dimensions unset to use the model's own.",
      undefined,
      { configured: options.dimensions, actual: dimensions },
    );
  }

  return {
    provider: "local",
    modelId: modelIdFor(modelDir, config),
    dimensions,
    async embed(texts, embedOptions) {
      const signal = embedOptions?.signal;
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        signal?.throwIfAborted();
        vectors.push(...(await run(texts.slice(start, start + batchSize))));
      }
      return vectors;
    },
    async dispose() {
      await extractor.dispose();
    },
  };
}

function validateOptions(options: LocalEmbedderOptions, pooling: string, batchSize: number): void {
  if (typeof options.modelDir !== "string" || options.modelDir.trim() === "") {
    throw createError("CONFIG_INVALID", "The local embedding model directory is not set.");
  }
  if (!(POOLINGS as readonly string[]).includes(pooling)) {
    throw createError(
      "CONFIG_INVALID",
      `Unknown pooling "${pooling}" for the local embedding model; use "mean" or "cls".`,
    );
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw createError(
      "CONFIG_INVALID",
      `The local embedding batch size must be a positive integer, got ${batchSize}.`,
    );
  }
  if (
    options.dimensions !== undefined &&
    (!Number.isInteger(options.dimensions) || options.dimensions < 1)
  ) {
    throw createError(
      "CONFIG_INVALID",
      `The local embedding dimensions must be a positive integer, got ${options.dimensions}.`,
    );
  }
}

async function checkModelDirectory(modelDir: string): Promise<void> {
  const directory = await stat(modelDir).catch(() => undefined);
  if (directory === undefined) {
    throw modelError(modelDir, `The local embedding model directory ${modelDir} does not exist.`);
  }
  if (!directory.isDirectory()) {
    throw modelError(modelDir, `The local embedding model path ${modelDir} is not a directory.`);
  }
  const missing: string[] = [];
  for (const file of LOCAL_MODEL_FILES) {
    const entry = await stat(path.join(modelDir, file)).catch(() => undefined);
    if (!entry?.isFile()) missing.push(file);
  }
  if (missing.length > 0) {
    throw modelError(
      modelDir,
      `The local embedding model directory ${modelDir} is missing ${missing.join(", ")}. ` +
        `It needs ${LOCAL_MODEL_FILES.join(", ")} (an fp32 ONNX export of a feature-extraction ` +
        "model with its tokenizer).",
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

function unitLength(vector: number[]): number[] {
  let sumOfSquares = 0;
  for (const value of vector) sumOfSquares += value * value;
  const norm = Math.sqrt(sumOfSquares);
  return norm > 0 ? vector.map((value) => value / norm) : vector;
}

function modelError(
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
