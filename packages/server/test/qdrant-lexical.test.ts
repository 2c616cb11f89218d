import { cp, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { GLOSSARY_TITLE } from "@lectern/engine/answer/lead";
import { noneEmbedder } from "@lectern/engine/search/embedder";
import { type EngineLexical, engineBm25Ranking } from "@lectern/engine/search/engine-search";
import { type KeywordHit, keywordSearch } from "@lectern/engine/search/keyword-search";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { rankingTerms } from "@lectern/engine/search/lexical-search";
import { Retriever } from "@lectern/engine/search/retriever";
import { searchTermsOf } from "@lectern/engine/search/search-terms";
import { indexOf } from "@lectern/engine/search/test-builders";
import type { RetrievalResult } from "@lectern/engine/search/types";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { composeApp } from "../src/http/compose.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { snapshotPath, termStatisticsPath } from "../src/search/index-store.ts";
import { MemoryHistoryStore } from "../src/store/memory-history-store.ts";
import { SAMPLE_DOCS } from "./cli.ts";
import { createFakeEmbedder } from "./doubles/fake-embedder.ts";
import { type QdrantStandIn, startQdrantStandIn } from "./doubles/qdrant-stand-in.ts";
import { askChat } from "./http-fixture.ts";

/**
 * LEXICAL_BACKEND=qdrant against the in-process BM25 index, on the sample book stored in the
 * Qdrant stand-in (which weighs sparse vectors by Qdrant's IDF modifier): the term statistics
 * give the question the same weights, Qdrant's sparse scores are the in-process BM25 scores, and
 * every question of the sample book's question files (off-topic ones among them) gets the same
 * decision either way.
 */

const COLLECTION = "robotics-primer";
let workDir: string;
let dataDir: string;
let standIn: QdrantStandIn;
const embedder = createFakeEmbedder(64);

interface Question {
  question: string;
  expected_pages: string[];
}
let questions: Question[];

function configEnv(lexical: "memory" | "qdrant") {
  return {
    LOG_LEVEL: "silent",
    VECTOR_BACKEND: "qdrant",
    LEXICAL_BACKEND: lexical,
    QDRANT_URL: standIn.url,
    QDRANT_COLLECTION: COLLECTION,
  };
}

function configOf(lexical: "memory" | "qdrant") {
  return loadConfig({ env: configEnv(lexical), overrides: { dataDir } });
}

async function readQuestions(file: string): Promise<Question[]> {
  const text = await readFile(path.join(SAMPLE_DOCS, "..", file), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Question);
}

/** What each question got from the in-process index, read before the book is reopened. */
interface MemoryRun {
  index: LexicalIndex;
  lexical: RetrievalResult[];
  hybrid: RetrievalResult[];
  /** Chunk id → BM25 score of the first 10 in-process hits. */
  scores: Map<string, number>[];
  /** /chat's answers to CHAT_QUESTIONS. */
  chats: Awaited<ReturnType<typeof askChat>>[];
}

/** Asked through /chat both ways: a definition (the glossary), an overview, an off-topic one. */
const CHAT_QUESTIONS = [
  "What is an executor?",
  "What is colcon?",
  "What is a launch file?",
  "What is this book about?",
  "What does rclpy.spin do, and what happens if I never call it?",
  "What is a good recipe for sourdough bread?",
];
/** Typed into the search box (the last word unfinished, or finished with a space). */
const TYPED = ["rclpy sp", "launch file ", "kinem", "transfrom tree"];

function appOf(book: Lectern) {
  return composeApp(book, book.config, {
    logger: pino({ level: "silent" }),
    history: new MemoryHistoryStore(),
  }).app;
}

/** An answer without what differs between two runs (ids, timings). */
function comparable(answer: Awaited<ReturnType<typeof askChat>>) {
  return {
    answer: answer.answer,
    mode: answer.metadata.mode,
    sources: answer.sources.map((source) => source.source_url),
  };
}
let memory: MemoryRun;
let engineBook: Lectern;

/** A chunk's in-process BM25 score for a question (0 when it does not match). */
function inProcessScore(question: string, chunkId: string): number {
  const terms = searchTermsOf(memory.index, question, undefined);
  const hits = memory.index.search(rankingTerms(memory.index, terms.terms), {
    limit: memory.index.size,
    boost: terms.boost,
  });
  return hits.find((hit) => hit.chunk.id === chunkId)?.score ?? 0;
}

function engineOf(book: Lectern): EngineLexical {
  const searchSparse = book.vectors?.searchSparse;
  if (!searchSparse) throw new Error("the Qdrant backend has no sparse search");
  return {
    terms: book.served.terms,
    search: ({ sparse, limit }) => searchSparse({ sparse, limit }),
    chunks: (ids) => book.store.chunksByIds(ids),
  };
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-qdrant-lexical-"));
  dataDir = path.join(workDir, "data");
  const docsDir = path.join(workDir, "docs");
  await cp(SAMPLE_DOCS, docsDir, { recursive: true });
  standIn = await startQdrantStandIn();
  questions = [
    ...(await readQuestions("questions.jsonl")),
    ...(await readQuestions("questions-fresh.jsonl")),
  ];

  const book = await openLectern(configOf("memory"), { embedder });
  const report = await book.ingest(docsDir);
  expect(report.embeddings).toMatchObject({ pending: 0 });
  const index = indexOf(book);
  const lexicalRetriever = new Retriever(index, { topK: 5, maxChunksPerPage: 2 });
  memory = { index, lexical: [], hybrid: [], scores: [], chats: [] };
  const app = appOf(book);
  for (const query of CHAT_QUESTIONS) memory.chats.push(await askChat(app, { query }));
  for (const { question } of questions) {
    memory.lexical.push(lexicalRetriever.searchLexical(question));
    memory.hybrid.push(await book.served.retriever.search(question));
    const terms = searchTermsOf(index, question, undefined);
    const hits = index.search(rankingTerms(index, terms.terms), { limit: 10, boost: terms.boost });
    memory.scores.push(new Map(hits.map((hit) => [hit.chunk.id, hit.score])));
  }
  await book.close();
  engineBook = await openLectern(configOf("qdrant"), { embedder });
}, 300_000);

afterAll(async () => {
  await engineBook?.close();
  await standIn?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("a book served with LEXICAL_BACKEND=qdrant", () => {
  it("needs an embedding model, saying so with CONFIG_INVALID", async () => {
    const config = loadConfig({
      env: { ...configEnv("qdrant") },
      overrides: { dataDir: path.join(workDir, "no-model") },
    });
    const refused = await openLectern(config, { embedder: noneEmbedder }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: "CONFIG_INVALID",
      details: { key: "vectors.lexical", variable: "LEXICAL_BACKEND" },
    });
  });

  it("holds no BM25 index, only the term-statistics table, far smaller than the index", async () => {
    expect(engineBook.served.index).toBeUndefined();
    expect(engineBook.served.terms.size).toBe(memory.index.size);
    const table = await stat(termStatisticsPath(dataDir, "default"));
    const snapshot = await stat(snapshotPath(dataDir, "default"));
    expect(table.size).toBeLessThan(snapshot.size / 5);
  });

  it("weighs every question's words as the in-process index does", () => {
    for (const { question } of questions) {
      const fromTable = searchTermsOf(engineBook.served.terms, question, undefined);
      const fromIndex = searchTermsOf(memory.index, question, undefined);
      expect(fromTable, question).toEqual(fromIndex);
    }
    expect(engineBook.served.terms.pagesTitledLike(GLOSSARY_TITLE)).toEqual(
      memory.index.pagesTitledLike(GLOSSARY_TITLE),
    );
    expect(engineBook.served.terms.pagesTitledLike(GLOSSARY_TITLE).length).toBeGreaterThan(0);
  });

  it("gets BM25 scores from Qdrant's sparse vectors equal to the in-process scores", async () => {
    const engine = engineOf(engineBook);
    let compared = 0;
    for (const [position, { question }] of questions.entries()) {
      const expected = memory.scores[position] ?? new Map<string, number>();
      const terms = searchTermsOf(engine.terms, question, undefined);
      const { hits } = await engineBm25Ranking(engine, terms, { limit: 50, filters: undefined });
      const scores = new Map(hits.map((hit) => [hit.chunk.id, hit.score]));
      const best = [...expected.values()][0];
      if (best !== undefined) {
        expect(Math.abs((hits[0]?.score ?? 0) - best), question).toBeLessThan(1e-3 * best);
      }
      for (const [chunkId, score] of expected) {
        // The stored values are rounded to 4 decimals: the scores agree to a thousandth.
        expect(Math.abs((scores.get(chunkId) ?? 0) - score), `${question} ${chunkId}`).toBeLessThan(
          1e-3 * Math.max(1, score),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(questions.length * 5);
  });

  it("decides every question as the in-process index does, off-topic ones included", async () => {
    const lexical = new Retriever(engineOf(engineBook), { topK: 5, maxChunksPerPage: 2 });
    let refused = 0;
    let ties = 0;
    for (const [position, { question }] of questions.entries()) {
      const expected = memory.lexical[position] as RetrievalResult;
      const found = await lexical.search(question);
      expect(found.decision, question).toBe(expected.decision);
      expect(found.lowConfidence, question).toBe(expected.lowConfidence);
      expect(found.signals.support, question).toBeCloseTo(expected.signals.support, 2);
      expect(found.signals.scoreRatio, question).toBeCloseTo(expected.signals.scoreRatio, 2);
      // The same passages at every rank, but where two chunks tie (the engine breaks ties by
      // point id, MiniSearch by insertion order): then the other one scores the same in process.
      expect(found.results).toHaveLength(expected.results.length);
      for (const [rank, result] of found.results.entries()) {
        const other = expected.results[rank] as RetrievalResult["results"][number];
        const score = other.score;
        expect(Math.abs(result.score - score), question).toBeLessThan(1e-3 * Math.max(1, score));
        if (result.chunk.id === other.chunk.id) continue;
        ties++;
        const inProcess = inProcessScore(question, result.chunk.id);
        expect(Math.abs(inProcess - score), question).toBeLessThan(1e-9 * Math.max(1, score));
      }
      if (found.decision === "no_results") refused++;
    }
    // The question files hold off-topic questions: some are refused, most are answered.
    expect(refused).toBeGreaterThan(5);
    expect(refused).toBeLessThan(questions.length / 2);
    expect(ties).toBeLessThan(questions.length / 10);
  });

  it("answers /chat as the in-process index does, reading pages and the synopsis from the store", async () => {
    const app = appOf(engineBook);
    const before = standIn.requests.length;
    for (const [position, query] of CHAT_QUESTIONS.entries()) {
      const expected = memory.chats[position] as Awaited<ReturnType<typeof askChat>>;
      expect(comparable(await askChat(app, { query })), query).toEqual(comparable(expected));
    }
    // Each searched question is one fused query and one sparse query.
    const sent = standIn.requests
      .slice(before)
      .filter((request) => request.path.endsWith("/points/query"));
    expect(sent.some((request) => JSON.stringify(request.body).includes('"rrf"'))).toBe(true);
    expect(
      sent.some(
        (request) => (request.body as { with_vector?: unknown }).with_vector?.toString() === "bm25",
      ),
    ).toBe(true);
    // The definition question quoted the glossary, read from the store.
    expect(JSON.stringify(memory.chats.slice(0, 3).map((chat) => chat.sources))).toContain(
      "/docs/glossary",
    );
    expect(memory.chats.at(-1)?.metadata.mode).toBe("no_results");
  });

  it("searches as the reader types through Qdrant's sparse query", async () => {
    for (const typed of TYPED) {
      const fromIndex = keywordSearch(memory.index, typed, { limit: 8 });
      const fromEngine = await engineBook.searchKeywords(typed, { limit: 8 });
      const shape = (hits: KeywordHit[]) => hits.map((hit) => [hit.url, hit.snippet]);
      expect(shape(fromEngine), typed).toEqual(shape(fromIndex));
      expect(fromEngine.length, typed).toBeGreaterThan(0);
    }
  });

  it("answers through Qdrant's fused query with the decisions of the in-process calibration", async () => {
    for (const [position, { question }] of questions.entries()) {
      const expected = memory.hybrid[position] as RetrievalResult;
      const found = await engineBook.served.retriever.search(question);
      expect(found.decision, question).toBe(expected.decision);
      expect(found.lowConfidence, question).toBe(expected.lowConfidence);
      expect(found.results[0]?.chunk.id, question).toBe(expected.results[0]?.chunk.id);
    }
  });
});
