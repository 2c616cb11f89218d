import { embedMany } from "ai";
import type { Config } from "../config/config.ts";
import { createError } from "../errors.ts";
import { type Embedder, noneEmbedder } from "../search/embedder.ts";
import { createRemoteEmbeddingModel } from "./providers.ts";
import { withRetry } from "./retry.ts";

/**
 * The configured embedder: `none` (BM25 only), a remote provider (OpenAI, Gemini, any
 * OpenAI-compatible /v1/embeddings) or a local ONNX model. Remote calls retry like chat calls.
 */
export async function createEmbedder(config: Config): Promise<Embedder> {
  const settings = config.embeddings;
  switch (settings.provider) {
    case "none":
      return noneEmbedder;
    case "local": {
      if (!settings.localModelDir) {
        throw createError(
          "CONFIG_INVALID",
          "EMBEDDINGS_LOCAL_MODEL_DIR is required when EMBEDDINGS_PROVIDER=local.",
          {
            details: { variable: "EMBEDDINGS_LOCAL_MODEL_DIR" },
          },
        );
      }
      const { createLocalEmbedder } = await import("./local-embedder.ts");
      return createLocalEmbedder({
        modelDir: settings.localModelDir,
        batchSize: settings.batchSize,
        ...(settings.dimensions ? { dimensions: settings.dimensions } : {}),
      });
    }
    default: {
      const handle = createRemoteEmbeddingModel(settings, config.llm);
      const embed = async (texts: string[], options: { signal?: AbortSignal } = {}) => {
        const vectors: number[][] = [];
        for (let start = 0; start < texts.length; start += settings.batchSize) {
          const batch = texts.slice(start, start + settings.batchSize);
          const result = await withRetry(
            () =>
              embedMany({
                model: handle.model,
                values: batch,
                maxRetries: 0,
                ...(options.signal ? { abortSignal: options.signal } : {}),
              }),
            {
              maxRetries: config.llm.maxRetries,
              baseDelayMs: config.llm.retryBaseDelayMs,
              maxDelayMs: config.llm.retryMaxDelayMs,
              signal: options.signal,
            },
          );
          vectors.push(...result.embeddings);
        }
        return vectors;
      };
      // The dimension is known for default models; otherwise one probe asks the model.
      const dimensions = handle.dimensions ?? (await embed(["dimension probe"]))[0]?.length ?? 0;
      if (dimensions <= 0)
        throw createError(
          "CONFIG_INVALID",
          `The embedding model ${handle.modelId} returned no vector.`,
        );
      return { provider: handle.provider, modelId: handle.modelId, dimensions, embed };
    }
  }
}
