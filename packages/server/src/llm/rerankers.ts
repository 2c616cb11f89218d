import type { Reranker } from "@lectern/engine/search/reranker";
import type { Config } from "../config/config.ts";

/**
 * The configured reranker: a local cross-encoder when `rerank.modelDir` (LECTERN_RERANK_MODEL_DIR)
 * is set, otherwise none. The model is loaded and checked here, so a bad directory stops start-up
 * with CONFIG_INVALID rather than failing the first question.
 */
export async function createReranker(config: Config): Promise<Reranker | undefined> {
  const modelDir = config.rerank.modelDir;
  if (modelDir === undefined) return undefined;
  // Imported on demand: ONNX Runtime loads only when a reranker is configured.
  const { createLocalReranker } = await import("./local-reranker.ts");
  return createLocalReranker({ modelDir });
}
