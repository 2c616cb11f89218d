import type { ChunkRecord } from "../book/records.ts";
import { round } from "../util/numbers.ts";
import {
  bestOf,
  bySimilarity,
  coverageOf,
  firstSourceSupport,
  lexicalVerdict,
} from "./calibration.ts";
import { diversify } from "./diversity.ts";
import { chunkFilter } from "./filters.ts";
import type { LexicalHit, LexicalIndex } from "./lexical-index.ts";
import { retrievalTerms, type SearchTerms } from "./search-terms.ts";
import type { TermSource } from "./term-source.ts";
import type { RetrievalResult, RetrievedChunk, RetrieveOptions, SearchSettings } from "./types.ts";

/**
 * Terms in more than this share of the chunks are left out of BM25 ranking when the question has
 * rarer terms (as in Lucene's common-terms query): their idf is below ln 2, so they barely move the
 * ranking, yet scoring their long posting lists is most of a query's cost on a large book.
 */
export const COMMON_TERM_SHARE = 0.5;
/** Below this many chunks every query is fast anyway, and all terms rank. */
export const COMMON_TERMS_MIN_CHUNKS = 2_000;

/** The BM25 ranking of the question's terms, common terms left out on a large book. */
export function bm25Ranking(
  index: LexicalIndex,
  question: SearchTerms,
  options: { limit: number; filter: ((chunk: ChunkRecord) => boolean) | undefined },
): { hits: LexicalHit[]; allTermsRanked: boolean } {
  const terms = rankingTerms(index, question.terms);
  const hits = index.search(terms, {
    limit: options.limit,
    ...(options.filter ? { filter: options.filter } : {}),
    boost: question.boost,
  });
  return { hits, allTermsRanked: terms.length === question.terms.length };
}

export function rankingTerms(
  index: Pick<TermSource, "size" | "documentFrequencyOf">,
  terms: string[],
): string[] {
  if (index.size < COMMON_TERMS_MIN_CHUNKS) return terms;
  const limit = COMMON_TERM_SHARE * index.size;
  const rare = terms.filter((term) => index.documentFrequencyOf(term) <= limit);
  return rare.length > 0 ? rare : terms;
}

/** BM25 only: ranking, filters, page diversity, calibrated scores and the decision. */
export function lexicalSearch(
  index: LexicalIndex,
  query: string,
  options: RetrieveOptions,
  settings: SearchSettings,
): RetrievalResult {
  const question = retrievalTerms(index, query, options, settings);
  const ranking = bm25Ranking(index, question, {
    // Enough candidates that diversity can still fill top-k from other pages.
    limit: lexicalCandidates(settings),
    filter: chunkFilter(options.filters),
  });
  return lexicalResult(
    { terms: index, termsOfChunk: (chunk) => index.termsOfChunk(chunk) },
    {
      query,
      question,
      ranking,
      options,
      settings,
    },
  );
}

/** How many BM25 candidates a lexical search ranks: enough that diversity can fill top-k. */
export function lexicalCandidates(settings: Pick<SearchSettings, "topK">): number {
  return Math.max(50, settings.topK * 10);
}

/**
 * A BM25 ranking made into the search's result: named pages, page diversity, coverage, the
 * calibrated scores and the decision. `termsOfChunk` gives a chunk's terms when common terms were
 * left out of the ranking (so the hits do not say which of them each chunk holds).
 */
export function lexicalResult(
  book: {
    terms: Pick<TermSource, "pagesTitled">;
    termsOfChunk: (chunk: ChunkRecord) => Set<string>;
  },
  search: {
    query: string;
    question: SearchTerms;
    ranking: { hits: LexicalHit[]; allTermsRanked: boolean };
    options: RetrieveOptions;
    settings: SearchSettings;
  },
): RetrievalResult {
  const { query, question, options, settings } = search;
  const { hits, allTermsRanked } = search.ranking;
  const best = hits[0]?.score ?? 0;
  const matched = new Map(hits.map((hit) => [hit.chunk.id, hit.matchedTerms]));
  const ranked: RetrievedChunk[] = hits.map((hit) => ({
    chunk: hit.chunk,
    score: hit.score,
    similarityScore: 0,
    coverage: 0,
  }));
  const results = withNamedPages(
    book.terms,
    question.identifiers,
    ranked,
    diversify(ranked, settings.topK, settings.maxChunksPerPage),
    settings.topK,
  );
  for (const result of results) {
    // Coverage looks at every word of the question, including common ones left out of ranking.
    const present = allTermsRanked
      ? new Set(matched.get(result.chunk.id))
      : book.termsOfChunk(result.chunk);
    result.coverage = round(coverageOf(question.weights, question.totalWeight, present), 3);
  }
  // Monotone in the BM25 score, so sources sorted by similarity keep the ranking's order: the
  // best passage's coverage, scaled down for the others by their share of its score.
  const topCoverage = results.reduce(
    (top, result) => (result.score > top.score ? result : top),
    results[0] ?? { score: 0, coverage: 0 },
  ).coverage;
  for (const result of results) {
    const relative = best > 0 ? result.score / best : 0;
    result.similarityScore = round(topCoverage * Math.sqrt(relative), 3);
  }
  const { signals, decision } = lexicalVerdict(results, question, best, settings.thresholds);
  return retrievalResult(query, question, options.context, results, {
    decision,
    lowConfidence:
      decision === "answer" &&
      firstSourceSupport(
        bestOf(results, (result) => result.similarityScore),
        signals,
        settings.thresholds,
      ) < settings.thresholds.lowConfidenceSupport,
    signals,
    candidateCount: hits.length,
  });
}

/**
 * A question that names an API the book documents on a page of its own (`createStore` and the
 * page titled "createStore") sees that page among its sources: its best candidate takes the last
 * place when the ranking left the page out. The reference page is where the exact behaviour of the
 * API is written down, even when tutorials that use it match more of the question's other words.
 */
export function withNamedPages(
  index: Pick<TermSource, "pagesTitled">,
  identifiers: string[],
  candidates: RetrievedChunk[],
  results: RetrievedChunk[],
  topK: number,
): RetrievedChunk[] {
  let chosen = results;
  for (const identifier of identifiers) {
    for (const page of index.pagesTitled(identifier)) {
      if (chosen.some((result) => result.chunk.filePath === page)) continue;
      const best = candidates.find((candidate) => candidate.chunk.filePath === page);
      if (!best) continue;
      const kept = chosen.length >= topK ? chosen.slice(0, topK - 1) : chosen;
      chosen = [...kept, best].sort((left, right) => right.score - left.score);
    }
  }
  return chosen;
}

/** The result of a search, sources best first. */
export function retrievalResult(
  query: string,
  question: SearchTerms,
  context: string | undefined,
  results: RetrievedChunk[],
  outcome: Pick<RetrievalResult, "decision" | "lowConfidence" | "signals" | "candidateCount">,
): RetrievalResult {
  return {
    query,
    terms: question.terms,
    ...(question.corrections.length > 0 ? { corrections: question.corrections } : {}),
    ...(question.unknownWords.length > 0 ? { unknownWords: question.unknownWords } : {}),
    ...(context ? { context } : {}),
    results: bySimilarity(results),
    decision: outcome.decision,
    lowConfidence: outcome.lowConfidence,
    bestSimilarity: bestOf(results, (result) => result.similarityScore),
    signals: outcome.signals,
    candidateCount: outcome.candidateCount,
  };
}
