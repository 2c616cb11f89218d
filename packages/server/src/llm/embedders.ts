import { createError } from "@lectern/engine/errors";
import { type Embedder, embedInBatches, noneEmbedder } from "@lectern/engine/search/embedder";
import type { Config } from "../config/config.ts";
import { createRemoteEmbeddingModel, ProviderClients } from "./providers.ts";
import { withRetry } from "./retry.ts";
import { loadModelSdk } from "./sdk.ts";

/**
 * The configured embedder: `none` (BM25 only), a remote provider (OpenAI, Gemini, any
 * OpenAI-compatible /v1/embeddings) or a local ONNX model. Remote calls retry like chat calls.
 */
export async function createEmbedder(
  config: Config,
  clients = new ProviderClients(),
): Promise<Embedder> {
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
      const handle = createRemoteEmbeddingModel(settings, config.llm, clients);
      const embedBatch = async (batch: string[], signal: AbortSignal | undefined) => {
        const { embedMany } = await loadModelSdk();
        const result = await withRetry(
          () =>
            embedMany({
              model: handle.model,
              values: batch,
              maxRetries: 0,
              ...(signal ? { abortSignal: signal } : {}),
            }),
          {
            maxRetries: config.llm.maxRetries,
            baseDelayMs: config.llm.retryBaseDelayMs,
            maxDelayMs: config.llm.retryMaxDelayMs,
            signal,
          },
        );
        return result.embeddings;
      };
      const embed = (texts: string[], options: { signal?: AbortSignal } = {}) =>
        embedInBatches(
          texts,
          settings.batchSize,
          (batch) => embedBatch(batch, options.signal),
          options.signal,
        );
      // The dimension is known for default models; otherwise one probe asks the model.
      const dimensions = handle.dimensions ?? (await embed(["dimension probe"]))[0]?.length ?? 0;
      if (dimensions <= 0)
        throw createError(
          "CONFIG_INVALID",
          `The embedding model ${handle.modelId} returned no vector.`,
        );
      return {
        provider: handle.provider,
        modelId: handle.modelId,
        dimensions,
        maxBatchSize: settings.batchSize,
        embed,
      };
    }
  }
}
