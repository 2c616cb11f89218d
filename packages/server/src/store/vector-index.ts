/**
 * Dense vectors of chunks, behind two interfaces so that another engine can hold the vectors:
 * - `VectorIndex` stores and searches the vectors (pgvector-index.ts, qdrant-index.ts);
 * - `EmbeddingBacklog` says which chunks still need a vector (new, changed, or left by an
 *   interrupted run). With pgvector it is a join against the vector table; an engine outside the
 *   database pairs its index with a backlog kept in the SQL store.
 * Both are scoped to one collection and version. Contract suite: vector-index-contract.test.ts.
 */

export interface EmbeddingModelInfo {
  provider: string;
  model: string;
  dimensions: number;
}

export interface DenseHit {
  chunkId: string;
  /** Cosine similarity clamped to 0..1. */
  similarity: number;
}

export interface ChunkVector {
  chunkId: string;
  embedding: number[];
}

export interface VectorIndex {
  /**
   * Creates what the index needs and records the model that fills it. A different model or
   * dimension than the recorded one is refused with CONFIG_INVALID, unless `reembed` is set: then
   * the old vectors are dropped and the new model is recorded. Runs before any other method.
   */
  prepare(model: EmbeddingModelInfo, options?: { reembed?: boolean }): Promise<void>;
  /**
   * Stores or replaces the vectors of one batch, all or nothing, so an interrupted run keeps every
   * finished batch. A vector of the wrong length is refused with CONFIG_INVALID.
   */
  upsert(vectors: ChunkVector[]): Promise<void>;
  /** The `limit` nearest chunks by cosine similarity, most similar first. */
  search(embedding: number[], limit: number): Promise<DenseHit[]>;
  /** Removes the vectors of these chunks; unknown ids are ignored. */
  delete(chunkIds: string[]): Promise<void>;
  /** Removes every vector of the collection and version. */
  deleteAll(): Promise<void>;
  count(): Promise<number>;
}

/** A chunk waiting for its vector: its id and the text to embed (headings, then the passage). */
export interface PendingChunk {
  id: string;
  text: string;
}

export interface EmbeddingBacklog {
  /** Up to `limit` chunks without a vector, in book order (file path, then position). */
  pendingChunks(limit: number): Promise<PendingChunk[]>;
  countPending(): Promise<number>;
  /**
   * Records that these chunks now have vectors. A backlog derived from the index itself (pgvector)
   * has nothing to record.
   */
  markEmbedded(chunkIds: string[]): Promise<void>;
}

/** The text a chunk is embedded with: its headings say what the passage is about. */
export function embeddingText(headingPath: string[], text: string): string {
  return `${headingPath.join(" › ")}\n\n${text}`;
}
