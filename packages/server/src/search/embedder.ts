/**
 * Turns texts into vectors for dense retrieval. Lectern ships the `none` embedder (BM25 only);
 * providers slot in behind this interface and the retriever fuses their results with BM25.
 */
export interface Embedder {
  readonly provider: string;
  readonly modelId: string;
  /** Vector length; 0 for `none`. */
  readonly dimensions: number;
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
