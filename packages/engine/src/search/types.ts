import type { ChunkRecord } from "../book/records.ts";
import type { SearchFilters } from "./filters.ts";
import type { Synonyms } from "./synonyms.ts";

export interface RetrievedChunk {
  chunk: ChunkRecord;
  /** Raw BM25 score (the RRF score in hybrid search). */
  score: number;
  /** Calibrated 0..1 score (see calibration.ts). */
  similarityScore: number;
  /** Share of the question's information (idf-weighted words) this chunk contains. */
  coverage: number;
  /** Cosine similarity to the question (hybrid retrieval only). */
  denseSimilarity?: number;
}

export interface RetrievalResult {
  query: string;
  terms: string[];
  /** Words the book never uses, searched as the book word they are a typo of. */
  corrections?: { from: string; to: string }[];
  /** Words of the question the book never uses (and are no typo of a book word), as written. */
  unknownWords?: string[];
  /** The earlier turn whose words joined the search. */
  context?: string;
  results: RetrievedChunk[];
  /** `no_results` when the book does not appear to cover the question. */
  decision: "answer" | "no_results";
  lowConfidence: boolean;
  bestSimilarity: number;
  signals: RetrievalSignals;
  /** Candidates considered before diversity and top-k. */
  candidateCount: number;
}

export interface RetrieveOptions {
  topK?: number;
  filters?: SearchFilters;
  /** An earlier turn a follow-up leans on: its words join the search at CONTEXT_WEIGHT. */
  context?: string | undefined;
}

/** What each search step needs besides the index and the question. */
export interface SearchSettings {
  /** Already clamped to 1..20. */
  topK: number;
  maxChunksPerPage: number;
  thresholds: DecisionThresholds;
  /** Author-approved synonyms applied to the question (synonyms.ts). */
  synonyms?: Synonyms;
}

export interface DecisionThresholds {
  unknownWeight: number;
  minSupport: number;
  /**
   * When the question has a word the book never uses, the best BM25 score over the question's
   * weight (`scoreRatio`) must reach this, or the answer is `no_results`; 0 turns it off.
   */
  minScoreRatio: number;
  /**
   * Refuse (`no_results`) a question that names an acronym the book never uses ("SLAM", "PX4",
   * "SQL"); absent means false.
   */
  refuseUnknownAcronyms?: boolean;
  /**
   * An answer whose first source's support (its similarity score − unknownWeight × unknownShare)
   * is below this is `low_confidence`: the passage the answer stands on matches only part of the
   * question.
   */
  lowConfidenceSupport: number;
}

export interface RetrievalSignals {
  /** Highest cosine similarity among the results (hybrid retrieval only). */
  bestDenseSimilarity?: number;
  bestCoverage: number;
  unknownShare: number;
  /** The best passage's BM25 score over the question's total word weight (idf). */
  scoreRatio: number;
  /** How many acronyms of the question the book never uses ("SLAM" in a book that never says it). */
  unknownAcronyms?: number;
  /** bestCoverage − unknownWeight × unknownShare: how well the book supports an answer. */
  support: number;
}
