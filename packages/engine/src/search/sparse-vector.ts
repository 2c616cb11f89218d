import type { ChunkDetails, SparseVector } from "../book/vectors.ts";
import { analysedFieldsOf, type FieldLengths, fieldLengthsOf } from "./chunk-fields.ts";
import { BM25_PARAMS, FIELD_BOOSTS } from "./lexical-index.ts";
import type { SearchTerms } from "./search-terms.ts";

/**
 * BM25 as sparse vectors, for an engine that scores them itself (Qdrant with `modifier: idf`).
 * BM25(q, d) = Σ_t idf(t) · tf(t, d)·(k1 + 1) / (tf(t, d) + k1·(1 − b + b·|d|/avgdl)):
 * the document's vector holds the tf part of each term, the query's vector each term's weight,
 * and the engine multiplies in idf(t) from its own document counts. Terms come from Lectern's
 * analyzer (the same tokens, stopwords and stems as the in-process index) and are hashed to
 * 32-bit ids; two terms sharing an id (rare) are scored as one.
 *
 * Each term is stored once per field it occurs in (title, headings, text: a separate id for
 * each), as the in-process index (MiniSearch) scores each field with its own idf — the number of
 * chunks holding the term in that field — and its own average length. With the book's average
 * field lengths, idf × value summed over the query's ids is the in-process BM25 score before
 * MiniSearch's last step, which multiplies it by the number of query terms the chunk matched
 * (`bm25Score` does that).
 */

/**
 * Average distinct terms per field, standing in for BM25's avgdl when the book's own averages
 * are not given (`chunkSparseVector`'s second argument): a default chunk targets ~350 tokens, of
 * which about 60 % survive stopword removal; titles and headings are a few words.
 */
export const SPARSE_AVERAGE_TERMS: FieldLengths = { title: 8, headings: 6, text: 200 };

const FIELDS = ["title", "headings", "text"] as const;
type Field = (typeof FIELDS)[number];

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

/** The sparse id of a term in one field. */
export function fieldTermId(field: Field, term: string): number {
  return termId(`${field}:${term}`);
}

/**
 * A chunk's BM25 document vector, with the fields and boosts of the in-process index
 * (chunk-fields.ts, lexical-index.ts). Each (field, term) pair's value is
 * boost × (tf·(k1 + 1)/(tf + k1·(1 − b + b·|field|/avg)) + d), BM25+ as MiniSearch computes it,
 * with |field| the field's distinct terms and `avg` the book's average (`averages`).
 */
export function chunkSparseVector(
  chunk: SparseChunk,
  averages: FieldLengths = SPARSE_AVERAGE_TERMS,
): SparseVector {
  const fields = analysedFieldsOf(chunk);
  const lengths = fieldLengthsOf(fields);
  const { k, b, d } = BM25_PARAMS;
  const weights = new Map<number, number>();
  for (const field of FIELDS) {
    const terms = fields[field];
    if (terms.length === 0) continue;
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    const average = averages[field] > 0 ? averages[field] : lengths[field];
    const lengthNorm = 1 - b + (b * lengths[field]) / average;
    for (const [term, frequency] of frequencies) {
      const id = fieldTermId(field, term);
      const part = (frequency * (k + 1)) / (frequency + k * lengthNorm) + d;
      weights.set(id, (weights.get(id) ?? 0) + FIELD_BOOSTS[field] * part);
    }
  }
  return { indices: [...weights.keys()], values: [...weights.values()].map(round) };
}

/**
 * The question's query vector: each search term weighs 1, a word of the earlier turn its
 * boost (CONTEXT_WEIGHT), in each of the three fields; the engine weighs each by its idf.
 */
export function querySparseVector(question: Pick<SearchTerms, "terms" | "boost">): SparseVector {
  const weights = new Map<number, number>();
  for (const term of question.terms) {
    for (const field of FIELDS) {
      const id = fieldTermId(field, term);
      weights.set(id, Math.max(weights.get(id) ?? 0, question.boost.get(term) ?? 1));
    }
  }
  return { indices: [...weights.keys()], values: [...weights.values()] };
}

/** The query terms whose ids (in any field) a chunk's sparse vector holds. */
export function matchedTerms(terms: readonly string[], chunkIndices: Iterable<number>): string[] {
  const held = new Set(chunkIndices);
  return terms.filter((term) => FIELDS.some((field) => held.has(fieldTermId(field, term))));
}

/**
 * The in-process BM25 score from the engine's: MiniSearch multiplies the summed field scores by
 * the number of distinct query terms the chunk matched.
 */
export function bm25Score(engineScore: number, matched: number): number {
  return engineScore * Math.max(1, matched);
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
