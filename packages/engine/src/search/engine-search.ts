import type { ChunkRecord } from "../book/records.ts";
import type { SparseHit, SparseVector } from "../book/vectors.ts";
import { termsOfChunk } from "./chunk-fields.ts";
import { chunkFilter, type SearchFilters } from "./filters.ts";
import { type DenseSearch, type Fused, hybridResult, RRF_K } from "./fusion.ts";
import type { LexicalHit } from "./lexical-index.ts";
import { lexicalCandidates, lexicalResult, rankingTerms } from "./lexical-search.ts";
import { retrievalTerms, type SearchTerms } from "./search-terms.ts";
import { bm25Score, matchedTerms, querySparseVector } from "./sparse-vector.ts";
import type { TermSource } from "./term-source.ts";
import type { RetrievalResult, RetrieveOptions, SearchSettings } from "./types.ts";

/**
 * Search with the BM25 ranking in an external engine (Qdrant's sparse vectors) instead of the
 * in-process index: the question's words are weighed against the term-statistics table, the
 * engine ranks, the chunks of the candidates are read from the SQL store, and from there the
 * result, its signals and its decision are made by the same code as the in-process search.
 */
export interface EngineLexical {
  /** Document frequencies, N, page titles: what the question's weights and the rules read. */
  terms: TermSource;
  /** The engine's BM25 ranking for a query vector, filtered by the engine. */
  search(query: {
    sparse: SparseVector;
    limit: number;
    filters: SearchFilters | undefined;
  }): Promise<SparseHit[]>;
  /** The chunks with these ids (from the SQL store). */
  chunks(ids: readonly string[]): Promise<Map<string, ChunkRecord>>;
}

/**
 * The engine's BM25 ranking as in-process hits: each point's score made into MiniSearch's (the
 * engine's sum times the number of the question's terms the chunk holds), re-sorted by it, with
 * common terms left out on a large book as the in-process ranking leaves them out.
 */
export async function engineBm25Ranking(
  engine: EngineLexical,
  question: Pick<SearchTerms, "terms" | "boost">,
  options: { limit: number; filters: SearchFilters | undefined },
): Promise<{ hits: LexicalHit[]; allTermsRanked: boolean }> {
  const terms = rankingTerms(engine.terms, question.terms);
  const allTermsRanked = terms.length === question.terms.length;
  const found = await engine.search({
    sparse: querySparseVector({ terms, boost: question.boost }),
    limit: options.limit,
    filters: options.filters,
  });
  const chunks = await engine.chunks(found.map((hit) => hit.chunkId));
  const filter = chunkFilter(options.filters);
  const hits: LexicalHit[] = [];
  for (const hit of found) {
    const chunk = chunks.get(hit.chunkId);
    // A point of a chunk that left the book (an interrupted ingest's leftover) is skipped.
    if (!chunk || (filter && !filter(chunk))) continue;
    const matched = matchedTerms(terms, hit.indices);
    hits.push({ chunk, score: bm25Score(hit.score, matched.length), matchedTerms: matched });
  }
  hits.sort((left, right) => right.score - left.score);
  return { hits, allTermsRanked };
}

/** BM25 only, ranked by the engine (see `lexicalSearch` for the in-process one). */
export async function engineLexicalSearch(
  engine: EngineLexical,
  query: string,
  options: RetrieveOptions,
  settings: SearchSettings,
): Promise<RetrievalResult> {
  const question = retrievalTerms(engine.terms, query, options, settings);
  const ranking = await engineBm25Ranking(engine, question, {
    limit: lexicalCandidates(settings),
    filters: options.filters,
  });
  return lexicalResult(
    { terms: engine.terms, termsOfChunk },
    { query, question, ranking, options, settings },
  );
}

/**
 * Hybrid search with both rankings in the engine: its fused query (prefetch + RRF) ranks, and its
 * sparse query alone gives the BM25 scores that calibrate the lexical side, as the in-process
 * index gives them in `hybridSearch`. The two queries run together.
 */
export async function engineHybridSearch(
  engine: EngineLexical,
  dense: DenseSearch,
  query: string,
  options: RetrieveOptions & { signal?: AbortSignal },
  settings: SearchSettings,
): Promise<RetrievalResult> {
  const question = retrievalTerms(engine.terms, query, options, settings);
  const lexical = engineBm25Ranking(engine, question, { limit: 50, filters: options.filters });
  // Settled here too, so a failure while the embedding is awaited is never left unhandled.
  lexical.catch(() => {});
  const [embedding] = await dense.embedder.embed(
    [query],
    options.signal ? { signal: options.signal } : {},
  );
  const fusedHits =
    dense.fused && embedding
      ? await dense.fused({
          embedding,
          sparse: querySparseVector(question),
          filters: options.filters,
          limit: 50,
          rrfK: RRF_K,
        })
      : [];
  const { hits: lexicalRanking } = await lexical;
  const known = new Map(lexicalRanking.map((hit) => [hit.chunk.id, hit.chunk]));
  const missing = fusedHits.map((hit) => hit.chunkId).filter((id) => !known.has(id));
  for (const [id, chunk] of await engine.chunks(missing)) known.set(id, chunk);
  const bm25 = new Map(lexicalRanking.map((hit) => [hit.chunk.id, hit.score]));
  const filter = chunkFilter(options.filters);
  const fused = new Map<string, Fused>();
  for (const hit of fusedHits) {
    const chunk = known.get(hit.chunkId);
    if (!chunk || (filter && !filter(chunk))) continue;
    const score = bm25.get(chunk.id);
    fused.set(chunk.id, {
      chunk,
      rrf: hit.score,
      cosine: hit.similarity,
      ...(score === undefined ? {} : { bm25: score }),
    });
  }
  return hybridResult({ terms: engine.terms, termsOfChunk }, dense, {
    query,
    question,
    lexicalRanking,
    fused,
    options,
    settings,
  });
}
