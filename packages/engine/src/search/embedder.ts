/**
 * Turns texts into vectors for dense retrieval. Lectern ships the `none` embedder (BM25 only);
 * providers slot in behind this interface and the retriever fuses their results with BM25.
 */
export interface Embedder {
  readonly provider: string;
  readonly modelId: string;
  /** Vector length; 0 for `none`. */
  readonly dimensions: number;
  /**
   * The most texts one model call takes. `embed` accepts more and splits them (`embedInBatches`);
   * callers that embed many texts read them in pages of this size, so each page is one call.
   * Absent when the embedder declares no limit of its own.
   */
  readonly maxBatchSize?: number;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export const noneEmbedder: Embedder = {
  provider: "none",
  modelId: "none",
  dimensions: 0,
  async embed() {
    throw new Error("The 'none' embedder produces no vectors; dense retrieval is off.");
  },
};

export function isDenseEnabled(embedder: Embedder): boolean {
  return embedder.dimensions > 0;
}

/**
 * Embeds `texts` in model calls of at most `maxBatchSize`, in order; an abort stops it between
 * calls. The one place an embedder splits its input.
 */
export async function embedInBatches(
  texts: string[],
  maxBatchSize: number,
  embedBatch: (batch: string[]) => Promise<number[][]>,
  signal?: AbortSignal,
): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += maxBatchSize) {
    signal?.throwIfAborted();
    vectors.push(...(await embedBatch(texts.slice(start, start + maxBatchSize))));
  }
  return vectors;
}
