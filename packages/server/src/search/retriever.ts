import type { ChunkRecord } from "../store/document-store.ts";
import { analyzeQuery, isNonLatinTerm } from "./analyzer.ts";
import { type Embedder, noneEmbedder } from "./embedder.ts";
import type { LexicalIndex } from "./lexical-index.ts";
import type { Reranker } from "./reranker.ts";

/**
 * The `search` stage: BM25 candidates, filters, page diversity, a 0..1 similarity score and the
 * decision whether the book covers the question at all.
 *
 * Calibration. BM25 scores are unbounded and not comparable across queries, so the score shown to
 * readers is built from how much of the question a passage covers. With w ranging over the words
 * of the question (after stopwords; whole identifiers aside) and idf the BM25 idf:
 *   coverage(c)   = Σ idf(w) over words found in chunk c  /  Σ idf(w) over all words
 *   similarity(c) = coverage(c) × sqrt(bm25(c) / bm25(best))            (0..1)
 * Deciding `no_results` uses two signals, because a fixed BM25 cut-off cannot separate
 * off-topic questions from answerable ones (off-topic questions usually share common words with
 * the book):
 *   bestCoverage = the highest coverage among the results
 *   unknownShare = Σ idf(w) over words no chunk of the book contains / Σ idf(w)
 *   support      = bestCoverage − unknownWeight × unknownShare
 * A question about things the book never names has a high unknownShare; one made of words the
 * book uses but never together has a low bestCoverage. Either way support is low: below
 * minSupport the answer is `no_results`, below lowConfidenceSupport it is `low_confidence`.
 */

/**
 * Chosen by `npm run eval:dev -- --tune` on pooled questions of different styles (the Redux dev
 * set's paraphrased questions, raw thread titles, off-topic controls and follow-up conversations,
 * and the tune half of the sample book's questions): the thresholds that refuse at most 1 % of the answerable questions and
 * the most off-topic ones. Checked on the sample book's held-out half and questions-fresh.jsonl,
 * which never take part; see docs/retrieval.md.
 */
export const DEFAULT_THRESHOLDS: DecisionThresholds = {
  unknownWeight: 1.75,
  minSupport: -0.2,
  lowConfidenceSupport: 0.78,
};

/** Thresholds under which nothing is refused (tuning looks at every question's results). */
export const NEVER_REJECT = { minSupport: Number.NEGATIVE_INFINITY } as const;

export interface DecisionThresholds {
  unknownWeight: number;
  minSupport: number;
  lowConfidenceSupport: number;
}

export interface SearchFilters {
  /** Keep chunks whose URL (or URL path) starts with this prefix, e.g. "/docs/ros2". */
  sourceUrlPrefix?: string | undefined;
  /** Keep chunks whose section heading, or any heading above it, equals this (case-insensitive). */
  section?: string | undefined;
}

export interface RetrievedChunk {
  chunk: ChunkRecord;
  /** Raw BM25 score. */
  score: number;
  /** Calibrated 0..1 score (see above). */
  similarityScore: number;
  /** Share of the question's information (idf-weighted words) this chunk contains. */
  coverage: number;
  /** Cosine similarity to the question (hybrid retrieval only). */
  denseSimilarity?: number;
}

export interface RetrievalSignals {
  /** Highest cosine similarity among the results (hybrid retrieval only). */
  bestDenseSimilarity?: number;
  bestCoverage: number;
  unknownShare: number;
  /** The best passage's BM25 score over the question's total word weight (idf). */
  scoreRatio: number;
  /** bestCoverage − unknownWeight × unknownShare: how well the book supports an answer. */
  support: number;
}

export interface RetrievalResult {
  query: string;
  terms: string[];
  /** Words the book never uses, searched as the book word they are a typo of. */
  corrections?: { from: string; to: string }[];
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

export interface DenseSearch {
  embedder: Embedder;
  search(embedding: number[], limit: number): Promise<{ chunkId: string; similarity: number }[]>;
  /** Cosine similarity from which a dense match alone says the book covers the question. */
  minSimilarity: number;
}

export interface RetrieverOptions {
  topK: number;
  maxChunksPerPage: number;
  embedder?: Embedder;
  thresholds?: DecisionThresholds;
  /** Dense retrieval, fused with BM25 by reciprocal rank fusion when present. */
  dense?: DenseSearch;
  /** A cross-encoder that reorders the first `candidates` results (optional). */
  rerank?: { reranker: Reranker; candidates: number };
}

/**
 * Reciprocal rank fusion: score(d) = Σ 1 / (RRF_K + rank(d)) over the BM25 and dense rankings
 * (rank from 1). 60 is the constant of Cormack et al. (2009); it keeps one list's first places
 * from drowning out agreement between the two.
 */
export const RRF_K = 60;

export class Retriever {
  readonly embedder: Embedder;
  readonly thresholds: DecisionThresholds;

  constructor(
    private readonly index: LexicalIndex,
    private readonly options: RetrieverOptions,
  ) {
    this.embedder = options.embedder ?? noneEmbedder;
    this.thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  }

  get denseEnabled(): boolean {
    return this.options.dense !== undefined;
  }

  /**
   * Hybrid retrieval when dense search is configured (BM25 and vector rankings fused by RRF,
   * filters applied to both), plain BM25 otherwise. similarity_score stays 0..1: the larger of
   * the calibrated BM25 score and the cosine similarity.
   */
  async search(
    query: string,
    options: RetrieveOptions & { signal?: AbortSignal } = {},
  ): Promise<RetrievalResult> {
    const rerank = this.options.rerank;
    if (rerank) {
      const topK = clampTopK(options.topK ?? this.options.topK);
      const { rerank: _, ...rest } = this.options;
      const wide = await new Retriever(this.index, rest).search(query, {
        ...options,
        topK: Math.max(topK, Math.min(20, rerank.candidates)),
      });
      if (wide.decision === "no_results" || wide.results.length < 2) {
        return { ...wide, results: wide.results.slice(0, topK) };
      }
      const scores = await rerank.reranker.rerank(
        query,
        wide.results.map(
          (result) => `${result.chunk.headingPath.join(" › ")}\n${result.chunk.text}`,
        ),
        options.signal ? { signal: options.signal } : {},
      );
      // The model decides the order; the shown scores keep their values, best first.
      const similarities = wide.results.map((result) => result.similarityScore);
      const reordered = wide.results
        .map((result, index) => ({ result, score: scores[index] ?? Number.NEGATIVE_INFINITY }))
        .sort((left, right) => right.score - left.score)
        .map((entry, index) => ({ ...entry.result, similarityScore: similarities[index] ?? 0 }));
      return { ...wide, results: reordered.slice(0, topK) };
    }
    const dense = this.options.dense;
    if (!dense) return this.retrieve(query, options);
    const topK = clampTopK(options.topK ?? this.options.topK);
    const lexical = this.retrieve(query, { ...options, topK: 20 });
    const filter = buildFilter(options.filters);
    const analyzed = this.analyzeForSearch(query, options.context);
    const lexicalRanking = this.index.search(this.rankingTerms(analyzed.terms), {
      limit: 50,
      ...(filter ? { filter } : {}),
      boost: analyzed.boost,
    });
    const [embedding] = await dense.embedder.embed(
      [query],
      options.signal ? { signal: options.signal } : {},
    );
    const denseHits = embedding ? await dense.search(embedding, filter ? 200 : 50) : [];
    const denseRanking = denseHits
      .map((hit) => ({ chunk: this.index.chunkById(hit.chunkId), similarity: hit.similarity }))
      .filter(
        (hit): hit is { chunk: ChunkRecord; similarity: number } =>
          hit.chunk !== undefined && (!filter || filter(hit.chunk)),
      )
      .slice(0, 50);

    const fused = new Map<
      string,
      { chunk: ChunkRecord; rrf: number; bm25?: number; cosine?: number }
    >();
    for (const [rank, hit] of lexicalRanking.entries()) {
      fused.set(hit.chunk.id, { chunk: hit.chunk, rrf: 1 / (RRF_K + rank + 1), bm25: hit.score });
    }
    for (const [rank, hit] of denseRanking.entries()) {
      const entry = fused.get(hit.chunk.id) ?? { chunk: hit.chunk, rrf: 0 };
      entry.rrf += 1 / (RRF_K + rank + 1);
      entry.cosine = hit.similarity;
      fused.set(hit.chunk.id, entry);
    }
    const bestBm25 = lexicalRanking[0]?.score ?? 0;
    const ranked: RetrievedChunk[] = [...fused.values()]
      .sort((left, right) => right.rrf - left.rrf)
      .map((entry) => ({
        chunk: entry.chunk,
        score: entry.rrf,
        similarityScore: 0,
        coverage: 0,
        ...(entry.cosine === undefined ? {} : { denseSimilarity: round(entry.cosine) }),
        ...(entry.bm25 === undefined ? {} : { bm25: entry.bm25 }),
      }));
    const results = diversify(ranked, topK, this.options.maxChunksPerPage);
    const { weights, totalWeight } = analyzed;
    for (const result of results) {
      const present = this.index.termsOfChunk(result.chunk);
      let covered = 0;
      for (const [word, weight] of weights) if (present.has(word)) covered += weight;
      const coverage = totalWeight > 0 ? Math.min(1, covered / totalWeight) : 0;
      const bm25 = (result as RetrievedChunk & { bm25?: number }).bm25;
      const lexicalSimilarity =
        bm25 !== undefined && bestBm25 > 0 ? coverage * Math.sqrt(bm25 / bestBm25) : 0;
      result.coverage = round(coverage);
      result.similarityScore = round(Math.max(lexicalSimilarity, result.denseSimilarity ?? 0));
      delete (result as RetrievedChunk & { bm25?: number }).bm25;
    }
    const bestCoverage = results.reduce((max, result) => Math.max(max, result.coverage), 0);
    const bestDenseSimilarity = results.reduce(
      (max, result) => Math.max(max, result.denseSimilarity ?? 0),
      0,
    );
    const signals: RetrievalSignals = {
      bestCoverage,
      unknownShare: lexical.signals.unknownShare,
      scoreRatio: lexical.signals.scoreRatio,
      support: 0,
      bestDenseSimilarity,
    };
    signals.support = supportOf(signals, this.thresholds);
    // Either side can vouch for the question: the words match well, or the meaning does.
    const lexicalAnswer = decide(signals, results.length, this.thresholds) === "answer";
    const denseAnswer = results.length > 0 && bestDenseSimilarity >= dense.minSimilarity;
    const decision = lexicalAnswer || denseAnswer ? "answer" : "no_results";
    return {
      query,
      terms: lexical.terms,
      ...(lexical.corrections ? { corrections: lexical.corrections } : {}),
      ...(options.context ? { context: options.context } : {}),
      results: bySimilarity(results),
      decision,
      lowConfidence:
        decision === "answer" &&
        signals.support < this.thresholds.lowConfidenceSupport &&
        bestDenseSimilarity < dense.minSimilarity + 0.1,
      bestSimilarity: results.reduce((max, result) => Math.max(max, result.similarityScore), 0),
      signals,
      candidateCount: fused.size,
    };
  }

  /** A retriever over the same index with other decision thresholds (used by tuning). */
  withThresholds(thresholds: DecisionThresholds): Retriever {
    return new Retriever(this.index, { ...this.options, thresholds });
  }

  private rankingTerms(terms: string[]): string[] {
    if (this.index.size < COMMON_TERMS_MIN_CHUNKS) return terms;
    const limit = COMMON_TERM_SHARE * this.index.size;
    const rare = terms.filter((term) => this.index.documentFrequencyOf(term) <= limit);
    return rare.length > 0 ? rare : terms;
  }

  retrieve(query: string, options: RetrieveOptions = {}): RetrievalResult {
    const topK = clampTopK(options.topK ?? this.options.topK);
    const analyzed = this.analyzeForSearch(query, options.context);
    const filter = buildFilter(options.filters);
    // Enough candidates that diversity can still fill top-k from other pages.
    const rankingTerms = this.rankingTerms(analyzed.terms);
    const hits = this.index.search(rankingTerms, {
      limit: Math.max(50, topK * 10),
      ...(filter ? { filter } : {}),
      boost: analyzed.boost,
    });

    const best = hits[0]?.score ?? 0;
    const matched = new Map(hits.map((hit) => [hit.chunk.id, hit.matchedTerms]));
    const ranked: RetrievedChunk[] = hits.map((hit) => ({
      chunk: hit.chunk,
      score: hit.score,
      similarityScore: 0,
      coverage: 0,
    }));
    const results = diversify(ranked, topK, this.options.maxChunksPerPage);
    const allTermsRanked = rankingTerms.length === analyzed.terms.length;
    const { weights, totalWeight } = analyzed;
    for (const result of results) {
      // Coverage looks at every word of the question, including common ones left out of ranking.
      const present = allTermsRanked
        ? new Set(matched.get(result.chunk.id))
        : this.index.termsOfChunk(result.chunk);
      let covered = 0;
      for (const [word, weight] of weights) if (present.has(word)) covered += weight;
      result.coverage = round(totalWeight > 0 ? Math.min(1, covered / totalWeight) : 0);
    }
    // Monotone in the BM25 score, so sources sorted by similarity keep the ranking's order: the
    // best passage's coverage, scaled down for the others by their share of its score.
    const topCoverage = results.reduce(
      (top, result) => (result.score > top.score ? result : top),
      results[0] ?? { score: 0, coverage: 0 },
    ).coverage;
    for (const result of results) {
      const relative = best > 0 ? result.score / best : 0;
      result.similarityScore = round(topCoverage * Math.sqrt(relative));
    }
    const bestCoverage = results.reduce((max, result) => Math.max(max, result.coverage), 0);
    const unknownShare = totalWeight > 0 ? round(analyzed.unknownWeight / totalWeight) : 1;
    const signals: RetrievalSignals = {
      bestCoverage,
      unknownShare,
      scoreRatio: totalWeight > 0 ? round(best / totalWeight) : 0,
      support: 0,
    };
    signals.support = supportOf(signals, this.thresholds);
    const decision = decide(signals, results.length, this.thresholds);
    return {
      query,
      terms: analyzed.terms,
      ...(analyzed.corrections.length > 0 ? { corrections: analyzed.corrections } : {}),
      ...(options.context ? { context: options.context } : {}),
      results: bySimilarity(results),
      decision,
      lowConfidence:
        decision === "answer" && signals.support < this.thresholds.lowConfidenceSupport,
      bestSimilarity: results.reduce((max, result) => Math.max(max, result.similarityScore), 0),
      signals,
      candidateCount: hits.length,
    };
  }

  /**
   * The question's search terms and their weights. Each word weighs its idf, except that:
   * - a word the book never uses is first looked up in the book's vocabulary (a typo of a book
   *   word, edit distance 1 for 5–7 letters, 2 from 8) and searched as that word;
   * - a word in a non-Latin script that the book does not contain is left out (it says nothing
   *   about whether the book covers the rest of the question);
   * - a word the book never uses weighs at most as much as the rarest word the book does use, so
   *   one stray word (a typo, slang, a prefix such as "chore:") cannot outweigh the rest;
   * - a whole code identifier the book never contains counts as an unknown word, although only
   *   the words a reader typed otherwise count;
   * - words of the earlier turn (`context`) join the search at CONTEXT_WEIGHT.
   */
  private analyzeForSearch(query: string, context: string | undefined) {
    const { terms, words, identifiers } = analyzeQuery(query);
    const searchTerms = new Set<string>();
    const weights = new Map<string, number>();
    const boost = new Map<string, number>();
    const corrections: { from: string; to: string }[] = [];
    const unknown: string[] = [];
    for (const term of terms) {
      if (this.index.documentFrequencyOf(term) > 0) {
        searchTerms.add(term);
        continue;
      }
      const corrected = this.index.closestTerm(term);
      if (corrected) {
        corrections.push({ from: term, to: corrected });
        searchTerms.add(corrected);
      } else searchTerms.add(term);
    }
    const correctedOf = new Map(corrections.map((entry) => [entry.from, entry.to]));
    let knownMax = 0;
    let unknownWeight = 0;
    for (const word of words) {
      const term = correctedOf.get(word) ?? word;
      if (this.index.documentFrequencyOf(term) === 0) {
        if (!isNonLatinTerm(term)) unknown.push(term);
        continue;
      }
      const weight = this.index.idf(term);
      weights.set(term, Math.max(weights.get(term) ?? 0, weight));
      knownMax = Math.max(knownMax, weight);
      // A corrected word is a guess: it counts as half unknown when deciding whether to answer.
      if (term !== word) unknownWeight += CORRECTION_DOUBT * weight;
    }
    // A code identifier names one API exactly: one the book never mentions (`makeAutoObservable`,
    // `functools.reduce`) says the question is about some other library, even when its parts
    // ("make", "auto", "observable") are common words of the book.
    for (const identifier of identifiers) {
      if (this.index.documentFrequencyOf(identifier) === 0) unknown.push(identifier);
    }
    const unknownCap = knownMax > 0 ? knownMax : Number.POSITIVE_INFINITY;
    for (const term of new Set(unknown)) {
      const weight = Math.min(this.index.idf(term), unknownCap);
      weights.set(term, weight);
      unknownWeight += weight;
    }
    if (context) {
      for (const term of analyzeQuery(context).terms) {
        if (searchTerms.has(term) || this.index.documentFrequencyOf(term) === 0) continue;
        searchTerms.add(term);
        boost.set(term, CONTEXT_WEIGHT);
      }
    }
    return {
      terms: [...searchTerms],
      weights,
      totalWeight: sum(weights.values()),
      unknownWeight,
      boost,
      corrections,
    };
  }
}

/** The share of a corrected word's weight that still counts as unknown. */
export const CORRECTION_DOUBT = 0.5;

/** How much a word of the earlier turn counts in a follow-up's search, against 1 for its own words. */
export const CONTEXT_WEIGHT = 0.5;

/**
 * Terms in more than this share of the chunks are left out of BM25 ranking when the question has
 * rarer terms (as in Lucene's common-terms query): their idf is below ln 2, so they barely move the
 * ranking, yet scoring their long posting lists is most of a query's cost on a large book.
 */
export const COMMON_TERM_SHARE = 0.5;
/** Below this many chunks every query is fast anyway, and all terms rank. */
export const COMMON_TERMS_MIN_CHUNKS = 2_000;

export function supportOf(
  signals: Pick<RetrievalSignals, "bestCoverage" | "unknownShare">,
  thresholds: Pick<DecisionThresholds, "unknownWeight">,
): number {
  return round(signals.bestCoverage - thresholds.unknownWeight * signals.unknownShare);
}

export function decide(
  signals: RetrievalSignals,
  resultCount: number,
  thresholds: DecisionThresholds,
): "answer" | "no_results" {
  if (resultCount === 0) return "no_results";
  return supportOf(signals, thresholds) < thresholds.minSupport ? "no_results" : "answer";
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

export function clampTopK(topK: number): number {
  return Math.min(20, Math.max(1, Math.floor(topK)));
}

function buildFilter(
  filters: SearchFilters | undefined,
): ((chunk: ChunkRecord) => boolean) | undefined {
  const prefix = filters?.sourceUrlPrefix?.trim();
  const section = filters?.section?.trim().toLowerCase();
  if (!prefix && !section) return undefined;
  return (chunk) => {
    if (prefix && !chunk.url.startsWith(prefix) && !urlPath(chunk.url).startsWith(prefix))
      return false;
    if (section && !chunk.headingPath.some((heading) => heading.toLowerCase() === section))
      return false;
    return true;
  };
}

function urlPath(url: string): string {
  if (url.startsWith("/")) return url;
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Takes results in rank order with at most `perPage` chunks of one page, so several chunks of one
 * page do not crowd out other relevant pages; if there are too few other pages, the rest fills up
 * top-k, never with a second chunk of a section already chosen.
 */
export function diversify(
  ranked: RetrievedChunk[],
  topK: number,
  perPage: number,
): RetrievedChunk[] {
  const chosen: RetrievedChunk[] = [];
  const skipped: RetrievedChunk[] = [];
  const perFile = new Map<string, number>();
  const sections = new Set<string>();
  const sectionOf = (result: RetrievedChunk) =>
    `${result.chunk.filePath}#${result.chunk.url.split("#")[1] ?? result.chunk.section}`;
  for (const result of ranked) {
    if (chosen.length >= topK) break;
    const count = perFile.get(result.chunk.filePath) ?? 0;
    if (count >= perPage || sections.has(sectionOf(result))) {
      skipped.push(result);
      continue;
    }
    perFile.set(result.chunk.filePath, count + 1);
    sections.add(sectionOf(result));
    chosen.push(result);
  }
  for (const result of skipped) {
    if (chosen.length >= topK) break;
    if (sections.has(sectionOf(result))) continue;
    sections.add(sectionOf(result));
    chosen.push(result);
  }
  return chosen.sort((left, right) => right.score - left.score);
}

/** Sources are shown best first: by similarity score, then by rank. */
function bySimilarity(results: RetrievedChunk[]): RetrievedChunk[] {
  return results
    .map((result, rank) => ({ result, rank }))
    .sort(
      (left, right) =>
        right.result.similarityScore - left.result.similarityScore || left.rank - right.rank,
    )
    .map((entry) => entry.result);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
