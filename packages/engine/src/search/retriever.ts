import { DEFAULT_THRESHOLDS } from "./calibration.ts";
import { type Embedder, noneEmbedder } from "./embedder.ts";
import { type EngineLexical, engineHybridSearch, engineLexicalSearch } from "./engine-search.ts";
import { type DenseSearch, hybridSearch } from "./fusion.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { lexicalSearch } from "./lexical-search.ts";
import { rerankResults } from "./rerank-results.ts";
import type { Reranker } from "./reranker.ts";
import type { Synonyms } from "./synonyms.ts";
import type {
  DecisionThresholds,
  RetrievalResult,
  RetrieveOptions,
  SearchSettings,
} from "./types.ts";

/**
 * The `search` stage: BM25 candidates (lexical-search.ts, with the question's words weighed in
 * search-terms.ts), filters (filters.ts), page diversity (diversity.ts), a 0..1 similarity score
 * and the decision whether the book covers the question at all (calibration.ts: the formulas and
 * where each threshold came from), dense fusion (fusion.ts) and reranking (rerank-results.ts).
 * `Retriever.search` is the one entry the chat pipeline, evaluation, tuning and the benchmarks use.
 */

export {
  DEFAULT_THRESHOLDS,
  decide,
  firstSourceSupport,
  NEVER_REJECT,
  supportOf,
} from "./calibration.ts";
export { diversify } from "./diversity.ts";
export type { SearchFilters } from "./filters.ts";
export { type DenseSearch, RRF_K } from "./fusion.ts";
export { COMMON_TERM_SHARE, COMMON_TERMS_MIN_CHUNKS } from "./lexical-search.ts";
export { CONTEXT_WEIGHT, CORRECTION_DOUBT } from "./search-terms.ts";
export type {
  DecisionThresholds,
  RetrievalResult,
  RetrievalSignals,
  RetrievedChunk,
  RetrieveOptions,
} from "./types.ts";

export interface RetrieverOptions {
  topK: number;
  maxChunksPerPage: number;
  embedder?: Embedder;
  thresholds?: DecisionThresholds;
  /** Dense retrieval, fused with BM25 by reciprocal rank fusion when present. */
  dense?: DenseSearch;
  /** A cross-encoder that reorders the first `candidates` results (optional). */
  rerank?: { reranker: Reranker; candidates: number };
  /** Author-approved synonyms applied to every question. */
  synonyms?: Synonyms;
}

export class Retriever {
  readonly embedder: Embedder;
  readonly thresholds: DecisionThresholds;

  /**
   * `index` is the in-process BM25 index, or the engine that holds the BM25 ranking (Qdrant's
   * sparse vectors) with the book's term statistics (`LEXICAL_BACKEND=qdrant`).
   */
  constructor(
    private readonly index: LexicalIndex | EngineLexical,
    private readonly options: RetrieverOptions,
  ) {
    this.embedder = options.embedder ?? noneEmbedder;
    this.thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  }

  get denseEnabled(): boolean {
    return this.options.dense !== undefined;
  }

  /**
   * Hybrid retrieval when dense search is configured, plain BM25 otherwise; with a reranker, a
   * wider first stage that the reranker reorders.
   */
  async search(
    query: string,
    options: RetrieveOptions & { signal?: AbortSignal } = {},
  ): Promise<RetrievalResult> {
    const topK = clampTopK(options.topK ?? this.options.topK);
    const rerank = this.options.rerank;
    const firstStageTopK = rerank ? Math.max(topK, Math.min(20, rerank.candidates)) : topK;
    const settings = this.settings(firstStageTopK);
    const dense = this.options.dense;
    const index = this.index;
    let found: RetrievalResult;
    if (index instanceof LexicalIndex) {
      found = dense
        ? await hybridSearch(index, dense, query, options, settings)
        : lexicalSearch(index, query, options, settings);
    } else {
      found = dense?.fused
        ? await engineHybridSearch(index, dense, query, options, settings)
        : await engineLexicalSearch(index, query, options, settings);
    }
    if (!rerank) return found;
    return rerankResults(rerank.reranker, query, found, topK, options.signal);
  }

  /**
   * BM25 only, synchronously, whatever dense search or reranker is configured: for tests and
   * tools that look at the lexical ranking alone. Answers go through `search`.
   */
  searchLexical(query: string, options: RetrieveOptions = {}): RetrievalResult {
    if (!(this.index instanceof LexicalIndex)) {
      throw new Error("searchLexical needs the in-process BM25 index (LEXICAL_BACKEND=memory).");
    }
    return lexicalSearch(
      this.index,
      query,
      options,
      this.settings(clampTopK(options.topK ?? this.options.topK)),
    );
  }

  /** A retriever over the same index with other decision thresholds (used by tuning). */
  withThresholds(thresholds: DecisionThresholds): Retriever {
    return new Retriever(this.index, { ...this.options, thresholds });
  }

  private settings(topK: number): SearchSettings {
    return {
      topK,
      maxChunksPerPage: this.options.maxChunksPerPage,
      thresholds: this.thresholds,
      ...(this.options.synonyms ? { synonyms: this.options.synonyms } : {}),
    };
  }
}

export function clampTopK(topK: number): number {
  return Math.min(20, Math.max(1, Math.floor(topK)));
}
