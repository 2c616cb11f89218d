/**
 * Rescores retrieval candidates against the question. A cross-encoder reads the question and one
 * passage together, so it judges relevance better than BM25 or a bi-encoder, but it runs once per
 * passage: it is applied to the top few candidates only (`rerank.candidates`), and it is optional.
 */
export interface Reranker {
  readonly modelId: string;
  /**
   * One score per passage, in the passages' order; higher means more relevant. Scores are the
   * model's raw logits: comparable within one call, not calibrated across models or to 0..1.
   * Rejects with the signal's reason once it is aborted (checked between model calls).
   */
  rerank(query: string, passages: string[], options?: { signal?: AbortSignal }): Promise<number[]>;
  /** Releases the model. The reranker must not be used afterwards. */
  dispose?(): Promise<void>;
}
