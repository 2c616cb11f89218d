import { GLOSSARY_TITLE } from "@lectern/engine/answer/lead";
import type { ChatInput } from "@lectern/engine/pipeline/types";
import { analyzeQuery } from "@lectern/engine/search/analyzer";
import { titleIdentifier } from "@lectern/engine/search/chunk-fields";
import { keywordSearch } from "@lectern/engine/search/keyword-search";
import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { Retriever } from "@lectern/engine/search/retriever";
import pino from "pino";
import { percentile } from "../src/eval/evaluate.ts";
import type { Lectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import type { ChunkRecord } from "../src/store/document-store.ts";
import { collectGarbage } from "../src/util/collect-garbage.ts";
import { createRandom, foreignWord, TextGenerator, typoOf } from "./corpus.ts";

/**
 * Retrieval latency through the chat pipeline `/chat` runs (`createChatPipeline`), over a
 * generated corpus of a given size: the `retrieve` stage and the whole turn (routing, retrieval,
 * extractive answer) as the pipeline times them.
 *
 * Queries come in three kinds, because a word the book never uses costs more than one it does
 * (the retriever scans the vocabulary for a word it could be a typo of):
 * - vocabulary: four words of a random chunk;
 * - typo: the same with one word mistyped (one edit, first letter kept);
 * - unknown: the same with two words the corpus never uses.
 * Every mistyped and unknown word is used once, so the retriever's cache of corrections never
 * answers for it: each such query pays the scan, as a reader's first use of a word does.
 */

export const QUERY_KINDS = ["vocabulary", "typo", "unknown"] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** The share of each kind in the mix. */
const KIND_SHARES: Record<QueryKind, number> = { vocabulary: 0.7, typo: 0.15, unknown: 0.15 };
const WARM_UP_QUERIES = 50;

export interface LatencySummary {
  queries: number;
  retrieveP50Ms: number;
  retrieveP95Ms: number;
  retrieveP99Ms: number;
  totalP50Ms: number;
  totalP95Ms: number;
  /** Turns refused as not covered by the book (they skip the answer). */
  noResults: number;
}

export interface RetrievalRow {
  chunks: number;
  buildSeconds: number;
  heapMb: number;
  byKind: Record<QueryKind | "all", LatencySummary>;
  /** Typos the retriever mapped back to the word they were made from. */
  typosCorrected: number;
  /** Unknown words the retriever mapped to some corpus word anyway. */
  unknownCorrected: number;
  /** The book-wide lookup of sections headed by X that definition questions make. */
  headed: HeadedSummary;
  /** GET /search's work (keywordSearch) on the same queries cut inside their last word. */
  search: {
    queries: number;
    p50Ms: number;
    p95Ms: number;
    p99Ms: number;
    /** CPU time of the process per search: what other work on the machine does not add to. */
    cpuP50Ms: number;
    cpuP95Ms: number;
  };
}

export interface HeadedSummary {
  /** The first `chunksOfPage` call after the build: every page's chunks grouped. */
  pagesFirstMs: number;
  /** The first `sectionsHeaded` call after the build (with the pages already grouped). */
  firstMs: number;
  lookups: number;
  laterP50Ms: number;
  laterP95Ms: number;
  laterP99Ms: number;
  /** Heap the grouped pages keep, and then the map of headings, each after a full collection. */
  pagesHeapMb: number;
  heapMb: number;
  /** A changed page as an ingest applies it: its chunks removed from the index and added again. */
  pageChanges: number;
  pageChangeP50Ms: number;
  pageChangeP95Ms: number;
  /**
   * After each page change, the first `pagesTitled` and `pagesTitledLike` (the glossary) calls: a
   * question naming an identifier and a definition question make them on a request's thread.
   */
  titledAfterChangeP50Ms: number;
  titledAfterChangeP95Ms: number;
}

interface BenchQuery {
  kind: QueryKind;
  query: string;
  /** For typo queries: the analysed typo and the analysed word it was made from. */
  typo?: { term: string; original: string };
  /** For unknown queries: the analysed unknown words. */
  unknown?: string[];
}

export function generateChunks(count: number, generator: TextGenerator): ChunkRecord[] {
  return Array.from({ length: count }, (_, index) => {
    // ~350 tokens (~1,400 characters), the chunker's target size.
    const text = [generator.paragraph(7), generator.paragraph(7)].join("\n\n");
    const page = Math.floor(index / 6);
    return {
      id: `chunk-${index}`,
      collection: "default",
      version: "",
      filePath: `part/${page}.md`,
      chunkIndex: index % 6,
      totalChunks: 6,
      title: `${generator.word()} ${generator.word()}`,
      section: generator.word(),
      headingPath: [`page ${page}`, generator.word()],
      url: `/docs/part/${page}#${index % 6}`,
      tags: [],
      text,
      contentHash: String(index),
      tokenCount: Math.ceil(text.length / 4),
    };
  });
}

/** The single analysed term of a word, if it is one the retriever would look up by edit distance. */
function scannedTerm(word: string): string | undefined {
  const terms = analyzeQuery(word).terms;
  const term = terms[0];
  return terms.length === 1 && term !== undefined && term.length >= 5 && /^\p{L}+$/u.test(term)
    ? term
    : undefined;
}

class QueryGenerator {
  /** Mistyped and unknown terms already used, so none is asked twice. */
  private readonly used = new Set<string>();

  constructor(
    private readonly chunks: ChunkRecord[],
    private readonly index: LexicalIndex,
    private readonly random: () => number,
  ) {}

  next(): BenchQuery {
    const roll = this.random();
    if (roll < KIND_SHARES.vocabulary) return this.vocabulary();
    if (roll < KIND_SHARES.vocabulary + KIND_SHARES.typo) return this.typo();
    return this.unknown();
  }

  private chunkWords(): string[] {
    const words = (this.chunks[Math.floor(this.random() * this.chunks.length)]?.text ?? "")
      .split(/\W+/)
      .filter((word) => word.length > 3);
    return Array.from(
      { length: 4 },
      () => words[Math.floor(this.random() * words.length)] ?? "robot",
    );
  }

  private vocabulary(): BenchQuery {
    return { kind: "vocabulary", query: wrap(this.chunkWords()) };
  }

  private typo(): BenchQuery {
    for (;;) {
      const words = this.chunkWords();
      const position = Math.floor(this.random() * words.length);
      const original = scannedTerm(words[position] ?? "");
      if (!original) continue;
      const typo = typoOf(words[position]?.toLowerCase() ?? "", this.random);
      const term = scannedTerm(typo);
      if (!term || !this.isNew(term)) continue;
      words[position] = typo;
      return { kind: "typo", query: wrap(words), typo: { term, original } };
    }
  }

  private unknown(): BenchQuery {
    const words = this.chunkWords();
    const unknown: string[] = [];
    for (const position of [1, 3]) {
      for (;;) {
        const word = foreignWord(this.random);
        const term = scannedTerm(word);
        if (!term || !this.isNew(term)) continue;
        words[position] = word;
        unknown.push(term);
        break;
      }
    }
    return { kind: "unknown", query: wrap(words), unknown };
  }

  /** A term the corpus never uses and no earlier query used; claims it. */
  private isNew(term: string): boolean {
    if (this.used.has(term) || this.index.documentFrequencyOf(term) > 0) return false;
    this.used.add(term);
    return true;
  }
}

function wrap(words: string[]): string {
  return `how does the ${words.join(" ")} work`;
}

function chatInput(id: number, query: string): ChatInput {
  return {
    requestId: `bench-${id}`,
    sessionId: `bench-${id}`,
    query,
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
    history: [],
  };
}

function summarize(samples: { retrieve: number; total: number; refused: boolean }[]) {
  const retrieve = samples.map((sample) => sample.retrieve).sort((a, b) => a - b);
  const total = samples.map((sample) => sample.total).sort((a, b) => a - b);
  return {
    queries: samples.length,
    retrieveP50Ms: percentile(retrieve, 0.5),
    retrieveP95Ms: percentile(retrieve, 0.95),
    retrieveP99Ms: percentile(retrieve, 0.99),
    totalP50Ms: percentile(total, 0.5),
    totalP95Ms: percentile(total, 0.95),
    noResults: samples.filter((sample) => sample.refused).length,
  };
}

/**
 * Builds the index for `size` generated chunks and runs `queryCount` questions, one at a time,
 * through the chat pipeline over a retriever configured as `openLectern` configures it.
 */
export async function benchRetrieval(
  lectern: Lectern,
  size: number,
  queryCount: number,
): Promise<RetrievalRow> {
  const random = createRandom(size);
  const chunks = generateChunks(size, new TextGenerator(random));
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const index = LexicalIndex.build(chunks);
  const buildSeconds = (performance.now() - started) / 1000;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const headed: HeadedSummary = {
    ...timeSectionsHeaded(index, chunks),
    pageChanges: 0,
    pageChangeP50Ms: 0,
    pageChangeP95Ms: 0,
    titledAfterChangeP50Ms: 0,
    titledAfterChangeP95Ms: 0,
  };
  const retriever = new Retriever(index, {
    topK: lectern.config.search.topK,
    maxChunksPerPage: lectern.config.search.maxChunksPerPage,
    embedder: lectern.embedder,
  });
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }), { retriever });

  const generator = new QueryGenerator(chunks, index, random);
  for (let count = 0; count < WARM_UP_QUERIES; count++) {
    await pipeline.run(chatInput(count, generator.next().query));
  }
  const queries = Array.from({ length: queryCount }, () => generator.next());
  const samples = [];
  for (const [position, query] of queries.entries()) {
    const outcome = await pipeline.run(chatInput(position, query.query));
    const retrieve = outcome.timings.retrieve;
    const total = outcome.timings.total;
    if (retrieve === undefined || total === undefined) {
      throw new Error(`"${query.query}" did not go through retrieval (route ${outcome.route})`);
    }
    samples.push({ kind: query.kind, retrieve, total, refused: outcome.mode === "no_results" });
  }

  const byKind = { all: summarize(samples) } as RetrievalRow["byKind"];
  for (const kind of QUERY_KINDS) {
    byKind[kind] = summarize(samples.filter((sample) => sample.kind === kind));
  }
  // The corrections are cached by now, so these lookups cost nothing.
  const typosCorrected = queries.filter(
    (query) => query.typo && index.closestTerm(query.typo.term) === query.typo.original,
  ).length;
  const unknownCorrected = queries
    .flatMap((query) => query.unknown ?? [])
    .filter((term) => index.closestTerm(term) !== undefined).length;
  const search = timeSearch(index, typedQueries(queries, random));
  // Last: a page removed and added again goes to the end of the index's order of chunks.
  Object.assign(headed, timePageChanges(index, chunks));
  return {
    chunks: size,
    buildSeconds,
    heapMb,
    byKind,
    typosCorrected,
    unknownCorrected,
    headed,
    search,
  };
}

const HEADED_LOOKUPS = 500;

/**
 * `LexicalIndex.sectionsHeaded`, which every "What is X?" question calls with X: the first call
 * after the index is built or changed, and the calls after it. The pages are grouped first (the
 * first answer needing a page's chunks does that), so the first lookup's time is its own. The
 * headings looked up are chunks' section headings and page titles, spread over the book, without
 * drawing from the seeded generator (the questions stay the same).
 */
function timeSectionsHeaded(
  index: LexicalIndex,
  chunks: ChunkRecord[],
): Omit<HeadedSummary, PageChangeFields> {
  const heapUsed = () => {
    collectGarbage();
    return process.memoryUsage().heapUsed;
  };
  const headings = Array.from({ length: HEADED_LOOKUPS }, (_, position) => {
    const chunk = chunks[(position * 7_919) % chunks.length];
    return (position % 2 === 0 ? chunk?.headingPath.at(-1) : chunk?.title) ?? "robot";
  });
  const beforePages = heapUsed();
  let started = performance.now();
  index.chunksOfPage(chunks[0]?.filePath ?? "");
  const pagesFirstMs = performance.now() - started;
  const beforeHeaded = heapUsed();
  started = performance.now();
  index.sectionsHeaded(headings[0] ?? "robot");
  const firstMs = performance.now() - started;
  const afterHeaded = heapUsed();
  const times = headings.map((heading) => {
    const start = performance.now();
    index.sectionsHeaded(heading);
    return performance.now() - start;
  });
  times.sort((left, right) => left - right);
  return {
    pagesFirstMs,
    firstMs,
    lookups: times.length,
    laterP50Ms: percentile(times, 0.5),
    laterP95Ms: percentile(times, 0.95),
    laterP99Ms: percentile(times, 0.99),
    pagesHeapMb: (beforeHeaded - beforePages) / 2 ** 20,
    heapMb: (afterHeaded - beforeHeaded) / 2 ** 20,
  };
}

export interface SearchRow {
  chunks: number;
  buildSeconds: number;
  search: RetrievalRow["search"];
}

/**
 * `--only search`: GET /search's work alone, on the same corpus and typed queries as
 * benchRetrieval's (the same seed), without the chat pipeline. The retriever has not looked up the
 * typos before, so a typo's first search pays its lookup, as a reader's first use of a word does.
 */
export function benchSearch(size: number, queryCount: number): SearchRow {
  const random = createRandom(size);
  const chunks = generateChunks(size, new TextGenerator(random));
  const started = performance.now();
  const index = LexicalIndex.build(chunks);
  const buildSeconds = (performance.now() - started) / 1000;
  const generator = new QueryGenerator(chunks, index, random);
  for (let count = 0; count < WARM_UP_QUERIES; count++) generator.next();
  const queries = Array.from({ length: queryCount }, () => generator.next());
  return { chunks: size, buildSeconds, search: timeSearch(index, typedQueries(queries, random)) };
}

/** Search as you type: each query cut inside its last word, as a reader's box holds it mid-word. */
function typedQueries(queries: BenchQuery[], random: () => number): string[] {
  return queries.map((query) => {
    const cut = query.query.length - Math.max(1, Math.floor(random() * 4));
    return query.query.slice(0, Math.max(3, cut));
  });
}

function timeSearch(index: LexicalIndex, typed: string[]): RetrievalRow["search"] {
  for (const text of typed.slice(0, WARM_UP_QUERIES)) keywordSearch(index, text, { limit: 8 });
  const searchTimes: number[] = [];
  const cpuTimes: number[] = [];
  for (const text of typed) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    keywordSearch(index, text, { limit: 8 });
    searchTimes.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
  }
  searchTimes.sort((left, right) => left - right);
  cpuTimes.sort((left, right) => left - right);
  return {
    queries: typed.length,
    p50Ms: percentile(searchTimes, 0.5),
    p95Ms: percentile(searchTimes, 0.95),
    p99Ms: percentile(searchTimes, 0.99),
    cpuP50Ms: percentile(cpuTimes, 0.5),
    cpuP95Ms: percentile(cpuTimes, 0.95),
  };
}

const PAGE_CHANGES = 200;

type PageChangeFields =
  | "pageChanges"
  | "pageChangeP50Ms"
  | "pageChangeP95Ms"
  | "titledAfterChangeP50Ms"
  | "titledAfterChangeP95Ms";

/** Pages spread over the book, each removed from the index and added again, one at a time. */
function timePageChanges(
  index: LexicalIndex,
  chunks: ChunkRecord[],
): Pick<HeadedSummary, PageChangeFields> {
  const filePaths = [...new Set(chunks.map((chunk) => chunk.filePath))];
  const titled: number[] = [];
  const times = Array.from({ length: PAGE_CHANGES }, (_, position) => {
    const page = index.chunksOfPage(filePaths[(position * 7_919) % filePaths.length] ?? "");
    const start = performance.now();
    index.remove(page.map((chunk) => chunk.id));
    index.add(page);
    const changed = performance.now();
    index.pagesTitled(titleIdentifier(page[0]?.title ?? "") ?? "robot");
    index.pagesTitledLike(GLOSSARY_TITLE);
    titled.push(performance.now() - changed);
    return changed - start;
  });
  times.sort((left, right) => left - right);
  titled.sort((left, right) => left - right);
  return {
    pageChanges: times.length,
    pageChangeP50Ms: percentile(times, 0.5),
    pageChangeP95Ms: percentile(times, 0.95),
    titledAfterChangeP50Ms: percentile(titled, 0.5),
    titledAfterChangeP95Ms: percentile(titled, 0.95),
  };
}
