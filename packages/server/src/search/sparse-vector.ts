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
 * Average analyzed terms per field, standing in for BM25's avgdl: the engine keeps no corpus-wide
 * length statistics, so each field's length is normalised against a constant. A default chunk
 * targets ~350 tokens, of which about 60 % survive stopword removal; titles and headings are a
 * few words.
 */
export const SPARSE_AVERAGE_TERMS = { title: 8, headings: 6, text: 200 } as const;

/** FNV-1a, 32 bits: a term's id in the sparse vector. */
export function termId(term: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < term.length; position++) {
    hash ^= term.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

type SparseChunk = Pick<ChunkDetails, "title" | "headingPath" | "text"> &
  Partial<Pick<ChunkDetails, "tags" | "searchText">>;

/**
 * A chunk's BM25 document vector, with the fields and boosts of the in-process index
 * (lexical-index.ts): the title with tags and the author's search text, the headings below the
 * title (and "## …" lines merged into the chunk), and the text. Each term's value is the sum over
 * fields of boost × (BM25+ term-frequency part), so the engine's idf × value is the in-process
 * score but for the per-field idf and the constant average lengths.
 */
export function chunkSparseVector(chunk: SparseChunk): SparseVector {
  const fields = {
    title: analyze([chunk.title, ...(chunk.tags ?? []), chunk.searchText ?? ""].join(" ")),
    headings: analyze([...chunk.headingPath.slice(1), ...innerHeadings(chunk.text)].join(" ")),
    text: analyze(chunk.text),
  };
  const { k, b, d } = BM25_PARAMS;
  const weights = new Map<number, number>();
  for (const field of ["title", "headings", "text"] as const) {
    const terms = fields[field];
    if (terms.length === 0) continue;
    const frequencies = new Map<number, number>();
    for (const term of terms) {
      const id = termId(term);
      frequencies.set(id, (frequencies.get(id) ?? 0) + 1);
    }
    const lengthNorm = 1 - b + (b * terms.length) / SPARSE_AVERAGE_TERMS[field];
    for (const [id, frequency] of frequencies) {
      const part = (frequency * (k + 1)) / (frequency + k * lengthNorm) + d;
      weights.set(id, (weights.get(id) ?? 0) + FIELD_BOOSTS[field] * part);
    }
  }
  return { indices: [...weights.keys()], values: [...weights.values()].map(round) };
}

function innerHeadings(text: string): string[] {
  return Array.from(text.matchAll(/^#{1,6} +(.+)$/gm), (match) => match[1] ?? "");
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
