import type { ChunkRecord } from "../book/records.ts";
import type { LexicalIndex } from "./lexical-index.ts";
import type { RetrievedChunk } from "./types.ts";

/**
 * Test data for the search, answer and pipeline tests: a one-chunk page `${id}.md` at
 * `/docs/${id}` under one heading. The content hash changes with the text, so caches keyed by it
 * never mix two tests' chunks of the same id.
 */
export function chunkRecord(id: string, text: string, heading: string): ChunkRecord {
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
    contentHash: `${id}:${text.length}`,
    tokenCount: Math.ceil(text.length / 4),
  };
}

/** `chunkRecord` as a search result with the given similarity (BM25 score 10 × similarity). */
export function retrievedChunk(
  id: string,
  text: string,
  heading: string,
  similarityScore = 0.8,
  coverage = 0.5,
): RetrievedChunk {
  return {
    chunk: chunkRecord(id, text, heading),
    score: 10 * similarityScore,
    similarityScore,
    coverage,
  };
}

/** The book's in-process BM25 index (the default LEXICAL_BACKEND=memory); fails without one. */
export function indexOf(book: { served: { index: LexicalIndex | undefined } }): LexicalIndex {
  const index = book.served.index;
  if (!index) throw new Error("This book has no in-process BM25 index (LEXICAL_BACKEND=qdrant).");
  return index;
}

/** A small seeded generator (mulberry32), so that generated test data and failures reproduce. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
