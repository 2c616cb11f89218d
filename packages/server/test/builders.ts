import type { RetrievedChunk } from "../src/search/retriever.ts";
import type { ChunkRecord } from "../src/store/document-store.ts";

/**
 * Chunks and retrieval results for unit tests: a one-chunk page `<id>.md` at `/docs/<id>` whose
 * title and section are `heading`. Pass only what a test is about; the rest is fixed.
 */
export function chunkRecord(
  id: string,
  text: string,
  heading: string,
  overrides: Partial<ChunkRecord> = {},
): ChunkRecord {
  return {
    id,
    collection: "default",
    version: "",
    filePath: `${id}.md`,
    chunkIndex: 0,
    totalChunks: 1,
    title: heading,
    section: heading,
    headingPath: [heading],
    url: `/docs/${id}`,
    tags: [],
    text,
    contentHash: id,
    tokenCount: 20,
    ...overrides,
  };
}

/** A retrieval result for `chunk`; scores default to a confident match. */
export function retrievedChunk(
  chunk: ChunkRecord,
  scores: Partial<Omit<RetrievedChunk, "chunk">> = {},
): RetrievedChunk {
  return { chunk, score: 8, similarityScore: 0.8, coverage: 0.6, ...scores };
}
