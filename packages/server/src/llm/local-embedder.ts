/**
 * The `local` embeddings provider: a transformers.js (ONNX Runtime) feature-extraction model read
 * from a directory on disk, never from a model hub (see local-model.ts).
 */
import { createError } from "@lectern/engine/errors";
import { type Embedder, embedInBatches } from "@lectern/engine/search/embedder";
import { LOCAL_LOAD_OPTIONS, modelError, openLocalModel, probeLocalModel } from "./local-model.ts";

export { LOCAL_MODEL_FILES } from "./local-model.ts";

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

const DEFAULT_BATCH_SIZE = 32;
const POOLINGS = ["mean", "cls"] as const;

export async function createLocalEmbedder(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
  const pooling = options.pooling ?? "mean";
  const normalize = options.normalize ?? true;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  validateOptions(options, pooling, batchSize);
  const kind = { label: "local embedding model", architecture: "a feature-extraction model" };

  const {
    modelDir,
    modelId,
    model: extractor,
  } = await openLocalModel(options.modelDir, kind, (transformers, directory) =>
    transformers.pipeline("feature-extraction", directory, LOCAL_LOAD_OPTIONS),
  );

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
  const dimensions = await probeLocalModel(
    modelDir,
    kind,
    async () => (await run(["dimension probe"]))[0]?.length ?? 0,
    () => extractor.dispose(),
  );
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
    modelId,
    dimensions,
    maxBatchSize: batchSize,
    async embed(texts, embedOptions) {
      return embedInBatches(texts, batchSize, run, embedOptions?.signal);
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

function unitLength(vector: number[]): number[] {
  let sumOfSquares = 0;
  for (const value of vector) sumOfSquares += value * value;
  const norm = Math.sqrt(sumOfSquares);
  return norm > 0 ? vector.map((value) => value / norm) : vector;
}
