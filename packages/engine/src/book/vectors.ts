/**
 * What a vector store outside the process keeps of a chunk, and the sparse (BM25) vectors it
 * scores: shared by the engine, which makes the vectors, and the server's store, which holds them.
 */

/** A sparse vector: term ids (from the analyzer) and their weights. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** A point of the sparse (BM25) ranking: its score from Qdrant and the ids its vector holds. */
export interface SparseHit {
  chunkId: string;
  /** Σ idf × query weight × stored value over the shared ids, as Qdrant computes it. */
  score: number;
  /** The ids of the point's sparse vector (which of the question's terms it contains). */
  indices: number[];
}

/** What an engine outside the database needs of a chunk to store it: where it is and what it says. */
export interface ChunkDetails {
  id: string;
  title: string;
  headingPath: string[];
  url: string;
  text: string;
  tags: string[];
  /** What the page's author wrote for search (frontmatter description, keywords); may be empty. */
  searchText: string;
}
