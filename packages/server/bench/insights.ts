import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/config.ts";
import { groupTopics } from "../src/insights/embedding-topics.ts";
import { loadInsights } from "../src/insights/load.ts";
import { countQuestions } from "../src/insights/topics.ts";
import { openLectern } from "../src/lectern.ts";
import { type QuestionLogEntry, QuestionLogStore } from "../src/store/question-log-store.ts";
import { createFakeEmbedder } from "../test/doubles/fake-embedder.ts";
import { createRandom, TextGenerator } from "./corpus.ts";

/**
 * The question log and the insights report on the sample book: how fast logged questions are
 * written in batches (the writer's work, off the answer path), and how long the report over a
 * week of them takes (`lectern insights`, GET /admin). Questions rotate through the sample
 * book's question files, spread over seven days, each with its real retrieval signals.
 */

const QUESTION_FILES = ["questions.jsonl", "questions-fresh.jsonl"].map((name) =>
  fileURLToPath(new URL(`../../../examples/robotics-primer/${name}`, import.meta.url)),
);
const BATCH = 200;

export interface InsightsBenchRow {
  questions: number;
  writeEntriesPerSecond: number;
  reportMs: number;
}

export async function benchInsights(
  dataDir: string,
  counts: number[],
): Promise<InsightsBenchRow[]> {
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  try {
    const questions = (await Promise.all(QUESTION_FILES.map((file) => readFile(file, "utf8"))))
      .flatMap((text) => text.split("\n").filter(Boolean))
      .map((line) => (JSON.parse(line) as { question?: string }).question)
      .filter((question): question is string => typeof question === "string");
    const templates = questions.map((question) => {
      const found = lectern.served.retriever.searchLexical(question);
      return {
        question,
        mode: found.decision === "answer" ? "retrieval_only" : "no_results",
        lowConfidence: found.lowConfidence,
        topScore: found.results[0]?.similarityScore ?? null,
        unknownWords: found.unknownWords ?? [],
        cited:
          found.decision === "answer"
            ? found.results.map((result) => ({
                url: result.chunk.url,
                filePath: result.chunk.filePath,
                title: result.chunk.title,
                section: result.chunk.section,
                chunkId: result.chunk.id,
                contentHash: result.chunk.contentHash,
              }))
            : [],
      };
    });
    const store = new QuestionLogStore(lectern.db, lectern.config.collection);
    const rows: InsightsBenchRow[] = [];
    const now = Date.now();
    for (const count of counts) {
      await lectern.db.query("DELETE FROM question_log");
      const entries: QuestionLogEntry[] = Array.from({ length: count }, (_, index) => {
        const template = templates[index % templates.length];
        if (!template) throw new Error("no questions to log");
        return {
          ...template,
          sessionId: crypto.randomUUID(),
          messageId: crypto.randomUUID(),
          askedAt: new Date(now - ((index * 7_919) % (7 * 86_400_000))),
          selectedText: null,
        };
      });
      const writeStarted = performance.now();
      for (let start = 0; start < entries.length; start += BATCH) {
        await store.saveMany(entries.slice(start, start + BATCH));
      }
      const writeSeconds = (performance.now() - writeStarted) / 1000;
      const reportStarted = performance.now();
      await loadInsights(lectern, { since: new Date(now - 7 * 86_400_000), until: new Date(now) });
      rows.push({
        questions: count,
        writeEntriesPerSecond: count / writeSeconds,
        reportMs: performance.now() - reportStarted,
      });
    }
    await lectern.db.query("DELETE FROM question_log");
    return rows;
  } finally {
    await lectern.close();
  }
}

export interface EmbeddingTopicsBenchRow {
  questions: number;
  dimensions: number;
  topics: number;
  medianMs: number;
}

/**
 * Grouping distinct questions into topics by their embeddings (insights/embedding-topics.ts),
 * the embedder's own time left out: a deterministic bag-of-words embedder, generated questions
 * that rarely meet, so nearly every question starts a topic of its own and is compared with all
 * those before it (the worst case of the greedy grouping).
 */
export async function benchEmbeddingTopics(
  counts: number[],
  dimensions = 384,
  runs = 3,
): Promise<EmbeddingTopicsBenchRow[]> {
  const generator = new TextGenerator(createRandom(11));
  const embedder = createFakeEmbedder(dimensions);
  const rows: EmbeddingTopicsBenchRow[] = [];
  for (const count of counts) {
    const questions = countQuestions(
      Array.from({ length: count }, (_, index) => `${generator.sentence(8)} ${index}?`),
    );
    const times: number[] = [];
    let topics = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const grouped = await groupTopics(questions, () => 1, { embedder, maxQuestions: count });
      times.push(performance.now() - started);
      if (grouped.method !== "embeddings") throw new Error("the questions were not embedded");
      topics = grouped.topics.length;
    }
    times.sort((left, right) => left - right);
    rows.push({
      questions: count,
      dimensions,
      topics,
      medianMs: times[Math.floor(times.length / 2)] ?? 0,
    });
  }
  return rows;
}
