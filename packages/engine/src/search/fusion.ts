import type { ChunkRecord } from "../book/records.ts";
import type { SparseVector } from "../book/vectors.ts";
import { round } from "../util/numbers.ts";
import { bestOf, coverageOf, firstSourceSupport, lexicalVerdict } from "./calibration.ts";
import { diversify } from "./diversity.ts";
import type { Embedder } from "./embedder.ts";
import { chunkFilter, type SearchFilters } from "./filters.ts";
import type { LexicalHit, LexicalIndex } from "./lexical-index.ts";
import { bm25Ranking, retrievalResult, withNamedPages } from "./lexical-search.ts";
import { retrievalTerms, type SearchTerms } from "./search-terms.ts";
import { querySparseVector } from "./sparse-vector.ts";
import type { TermSource } from "./term-source.ts";
import type {
  RetrievalResult,
  RetrievalSignals,
  RetrievedChunk,
  RetrieveOptions,
  SearchSettings,
} from "./types.ts";

export interface DenseSearch {
  embedder: Embedder;
  search(embedding: number[], limit: number): Promise<{ chunkId: string; similarity: number }[]>;
  /** Cosine similarity from which a dense match alone says the book covers the question. */
  minSimilarity: number;
  /**
   * Dense and BM25 rankings fused by the engine that holds both (Qdrant: prefetch + RRF), with
   * the filters applied by the engine. When present it replaces the in-process fusion.
   */
  fused?: (query: FusedQuery) => Promise<{ chunkId: string; score: number; similarity: number }[]>;
}

export interface FusedQuery {
  embedding: number[];
  /** The question's BM25 query vector (term ids from the analyzer). */
  sparse: SparseVector;
  filters: SearchFilters | undefined;
  limit: number;
  /** The RRF constant, RRF_K, so the engine fuses as the in-process path does. */
  rrfK: number;
}

/**
 * Reciprocal rank fusion: score(d) = Σ 1 / (RRF_K + rank(d)) over the BM25 and dense rankings
 * (rank from 1). 60 is the constant of Cormack et al. (2009); it keeps one list's first places
 * from drowning out agreement between the two.
 */
export const RRF_K = 60;

/**
 * Hybrid retrieval: BM25 and vector rankings fused by RRF, filters applied to both.
 * similarity_score stays 0..1: the larger of the calibrated BM25 score and the cosine similarity.
 */
export async function hybridSearch(
  index: LexicalIndex,
  dense: DenseSearch,
  query: string,
  options: RetrieveOptions & { signal?: AbortSignal },
  settings: SearchSettings,
): Promise<RetrievalResult> {
  const filter = chunkFilter(options.filters);
  const question = retrievalTerms(index, query, options, settings);
  const { hits: lexicalRanking } = bm25Ranking(index, question, { limit: 50, filter });
  const [embedding] = await dense.embedder.embed(
    [query],
    options.signal ? { signal: options.signal } : {},
  );
  let fused: Map<string, Fused>;
  if (dense.fused && embedding) {
    fused = await engineFusion(index, dense.fused, {
      embedding,
      sparse: querySparseVector(question),
      filters: options.filters,
      limit: 50,
      rrfK: RRF_K,
    });
    // The engine ranks; the in-process BM25 scores still calibrate the lexical side.
    for (const hit of lexicalRanking) {
      const entry = fused.get(hit.chunk.id);
      if (entry) entry.bm25 = hit.score;
    }
    if (filter) for (const [id, entry] of fused) if (!filter(entry.chunk)) fused.delete(id);
  } else {
    const denseHits = embedding ? await dense.search(embedding, filter ? 200 : 50) : [];
    const denseRanking = denseHits
      .map((hit) => ({ chunk: index.chunkById(hit.chunkId), similarity: hit.similarity }))
      .filter(
        (hit): hit is { chunk: ChunkRecord; similarity: number } =>
          hit.chunk !== undefined && (!filter || filter(hit.chunk)),
      )
      .slice(0, 50);
    fused = reciprocalRankFusion(lexicalRanking, denseRanking);
  }
  return hybridResult({ terms: index, termsOfChunk: (chunk) => index.termsOfChunk(chunk) }, dense, {
    query,
    question,
    lexicalRanking,
    fused,
    options,
    settings,
  });
}

/** A fused candidate: its chunk, RRF score, and BM25 score and cosine when known. */
export interface Fused {
  chunk: ChunkRecord;
  rrf: number;
  bm25?: number;
  cosine?: number;
}

/**
 * The fused ranking made into the search's result: named pages, page diversity, coverage, the
 * 0..1 similarity (the larger of the calibrated BM25 score and the cosine) and the decision,
 * which either side can vouch for.
 */
export function hybridResult(
  book: {
    terms: Pick<TermSource, "pagesTitled">;
    termsOfChunk: (chunk: ChunkRecord) => Set<string>;
  },
  dense: Pick<DenseSearch, "minSimilarity">,
  search: {
    query: string;
    question: SearchTerms;
    lexicalRanking: LexicalHit[];
    fused: Map<string, Fused>;
    options: RetrieveOptions;
    settings: SearchSettings;
  },
): RetrievalResult {
  const { query, question, lexicalRanking, fused, options, settings } = search;
  const bestBm25 = lexicalRanking[0]?.score ?? 0;
  const ranked: RetrievedChunk[] = [...fused.values()]
    .sort((left, right) => right.rrf - left.rrf)
    .map((entry) => ({
      chunk: entry.chunk,
      score: entry.rrf,
      similarityScore: 0,
      coverage: 0,
      ...(entry.cosine === undefined ? {} : { denseSimilarity: round(entry.cosine, 3) }),
    }));
  const results = withNamedPages(
    book.terms,
    question.identifiers,
    ranked,
    diversify(ranked, settings.topK, settings.maxChunksPerPage),
    settings.topK,
  );
  let bestLexicalSimilarity = 0;
  for (const result of results) {
    const coverage = coverageOf(
      question.weights,
      question.totalWeight,
      book.termsOfChunk(result.chunk),
    );
    const bm25 = fused.get(result.chunk.id)?.bm25;
    const lexicalSimilarity =
      bm25 !== undefined && bestBm25 > 0 ? coverage * Math.sqrt(bm25 / bestBm25) : 0;
    bestLexicalSimilarity = Math.max(bestLexicalSimilarity, round(lexicalSimilarity, 3));
    result.coverage = round(coverage, 3);
    result.similarityScore = round(Math.max(lexicalSimilarity, result.denseSimilarity ?? 0), 3);
  }
  const bestDenseSimilarity = bestOf(results, (result) => result.denseSimilarity ?? 0);
  const lexical = lexicalVerdict(results, question, bestBm25, settings.thresholds);
  const signals: RetrievalSignals = { ...lexical.signals, bestDenseSimilarity };
  // Either side can vouch for the question: the words match well, or the meaning does.
  const lexicalAnswer = lexical.decision === "answer";
  const denseAnswer = results.length > 0 && bestDenseSimilarity >= dense.minSimilarity;
  const decision = lexicalAnswer || denseAnswer ? "answer" : "no_results";
  return retrievalResult(query, question, options.context, results, {
    decision,
    lowConfidence:
      decision === "answer" &&
      firstSourceSupport(bestLexicalSimilarity, signals, settings.thresholds) <
        settings.thresholds.lowConfidenceSupport &&
      bestDenseSimilarity < dense.minSimilarity + 0.1,
    signals,
    candidateCount: fused.size,
  });
}

/**
 * The engine's fused ranking, keyed by chunk id. A point whose chunk the loaded index does not
 * hold (an ingest's leftover, or one stored by a newer ingest not yet loaded) is skipped.
 */
async function engineFusion(
  index: LexicalIndex,
  fusedSearch: NonNullable<DenseSearch["fused"]>,
  query: FusedQuery,
): Promise<Map<string, Fused>> {
  const fused = new Map<string, Fused>();
  for (const hit of await fusedSearch(query)) {
    const chunk = index.chunkById(hit.chunkId);
    if (chunk) fused.set(chunk.id, { chunk, rrf: hit.score, cosine: hit.similarity });
  }
  return fused;
}

/** Both rankings fused by RRF, keyed by chunk id, each with its BM25 score and cosine if any. */
function reciprocalRankFusion(
  lexicalRanking: LexicalHit[],
  denseRanking: { chunk: ChunkRecord; similarity: number }[],
): Map<string, Fused> {
  const fused = new Map<string, Fused>();
  for (const [rank, hit] of lexicalRanking.entries()) {
    fused.set(hit.chunk.id, { chunk: hit.chunk, rrf: 1 / (RRF_K + rank + 1), bm25: hit.score });
  }
  for (const [rank, hit] of denseRanking.entries()) {
    const entry = fused.get(hit.chunk.id) ?? { chunk: hit.chunk, rrf: 0 };
    entry.rrf += 1 / (RRF_K + rank + 1);
    entry.cosine = hit.similarity;
    fused.set(hit.chunk.id, entry);
  }
  return fused;
}
