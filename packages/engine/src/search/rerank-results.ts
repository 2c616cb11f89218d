import type { Reranker } from "./reranker.ts";
import type { RetrievalResult } from "./types.ts";

/**
 * Lets a cross-encoder reorder a wider first-stage result, then keeps the first `topK`. A refusal
 * or a single result is not worth a model call. The model decides the order; the shown scores
 * keep their values, best first.
 */
export async function rerankResults(
  reranker: Reranker,
  query: string,
  wide: RetrievalResult,
  topK: number,
  signal: AbortSignal | undefined,
): Promise<RetrievalResult> {
  if (wide.decision === "no_results" || wide.results.length < 2) {
    return { ...wide, results: wide.results.slice(0, topK) };
  }
  const scores = await reranker.rerank(
    query,
    wide.results.map((result) => `${result.chunk.headingPath.join(" › ")}\n${result.chunk.text}`),
    signal ? { signal } : {},
  );
  const similarities = wide.results.map((result) => result.similarityScore);
  const reordered = wide.results
    .map((result, index) => ({ result, score: scores[index] ?? Number.NEGATIVE_INFINITY }))
    .sort((left, right) => right.score - left.score)
    .map((entry, index) => ({ ...entry.result, similarityScore: similarities[index] ?? 0 }));
  return { ...wide, results: reordered.slice(0, topK) };
}
