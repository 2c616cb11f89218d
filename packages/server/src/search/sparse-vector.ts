import type { ChunkDetails } from "../store/external-backlog.ts";
import type { SparseVector } from "../store/qdrant-index.ts";
import { analyze } from "./analyzer.ts";
import { BM25_PARAMS, FIELD_BOOSTS } from "./lexical-index.ts";
import type { SearchTerms } from "./search-terms.ts";

/**
 * BM25 as sparse vectors, for an engine that scores them itself (Qdrant with `modifier: idf`).
 * BM25(q, d) = Σ_t idf(t) · tf(t, d)·(k1 + 1) / (tf(t, d) + k1·(1 − b + b·|d|/avgdl)):
 * the document's vector holds the tf part of each term, the query's vector each term's weight,
 * and the engine multiplies in idf(t) from its own document counts. Terms come from Lectern's
 * analyzer (the same tokens, stopwords and stems as the in-process index) and are hashed to
 * 32-bit ids; two terms sharing an id (rare) are scored as one.
 */

/**
 * The average number of analyzed terms of a chunk, standing in for avgdl: the engine keeps no
 * corpus-wide length statistics, so a chunk's length is normalised against this constant. The
 * default chunk targets ~350 tokens, of which about 60 % survive stopword removal.
 */
export const SPARSE_AVERAGE_TERMS = 200;

/** FNV-1a, 32 bits: a term's id in the sparse vector. */
export function termId(term: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < term.length; position++) {
    hash ^= term.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A chunk's BM25 document vector. Title and headings count as in the in-process index
 * (FIELD_BOOSTS): their terms add `headings` (2) to the term frequency, the text's terms 1.
 */
export function chunkSparseVector(
  chunk: Pick<ChunkDetails, "title" | "headingPath" | "text">,
): SparseVector {
  const frequencies = new Map<number, number>();
  const add = (terms: string[], weight: number) => {
    for (const term of terms) {
      const id = termId(term);
      frequencies.set(id, (frequencies.get(id) ?? 0) + weight);
    }
  };
  const textTerms = analyze(chunk.text);
  const headings = new Set([chunk.title, ...chunk.headingPath]);
  add(analyze([...headings].join(" \n ")), FIELD_BOOSTS.headings);
  add(textTerms, FIELD_BOOSTS.text);
  const { k, b } = BM25_PARAMS;
  const lengthNorm = 1 - b + (b * Math.max(1, textTerms.length)) / SPARSE_AVERAGE_TERMS;
  const indices: number[] = [];
  const values: number[] = [];
  for (const [id, frequency] of frequencies) {
    indices.push(id);
    values.push(round((frequency * (k + 1)) / (frequency + k * lengthNorm)));
  }
  return { indices, values };
}

/**
 * The question's query vector: each search term weighs 1, a word of the earlier turn its
 * boost (CONTEXT_WEIGHT); the engine weighs each by its idf.
 */
export function querySparseVector(question: Pick<SearchTerms, "terms" | "boost">): SparseVector {
  const weights = new Map<number, number>();
  for (const term of question.terms) {
    const id = termId(term);
    weights.set(id, Math.max(weights.get(id) ?? 0, question.boost.get(term) ?? 1));
  }
  return { indices: [...weights.keys()], values: [...weights.values()] };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
