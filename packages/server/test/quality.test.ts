import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Retriever } from "@lectern/engine/search/retriever";
import { indexOf } from "@lectern/engine/search/test-builders";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { evaluate } from "../src/eval/evaluate.ts";
import { type EvalQuestion, loadQuestions, splitQuestions } from "../src/eval/questions.ts";
import { MAX_FALSE_REJECTION, tuneThresholds } from "../src/eval/tune.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import { SAMPLE_DOCS, SAMPLE_QUESTIONS } from "./cli.ts";

/**
 * Retrieval quality on the sample book. The shipped thresholds were chosen on pooled sets that
 * include questions.jsonl (docs/retrieval.md), so two checks keep questions apart from tuning:
 * thresholds tuned here on the tune half only, checked on the held-out half; and the shipped
 * thresholds on questions-fresh.jsonl, which never takes part in any tuning.
 */
const FRESH_QUESTIONS = path.join(path.dirname(SAMPLE_QUESTIONS), "questions-fresh.jsonl");

let workDir: string;
let lectern: Lectern;
let questions: EvalQuestion[];

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-quality-"));
  lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir: workDir } }));
  const report = await lectern.ingest(SAMPLE_DOCS);
  expect(report.failures).toEqual([]);
  questions = await loadQuestions(SAMPLE_QUESTIONS);
});
afterAll(async () => {
  await lectern?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** One question through the pipeline `/chat` runs, with the shipped thresholds. */
function ask(query: string) {
  return pipelineOver(lectern.served.retriever).run({
    requestId: "r",
    sessionId: "s",
    query,
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: 5,
  });
}

/** The pipeline `/chat` runs, over the given retriever. */
function pipelineOver(retriever: Retriever) {
  return createChatPipeline(lectern, pino({ level: "silent" }), { retriever }).pipeline;
}

describe("sample book", () => {
  it("has the questions the evaluation needs", () => {
    const answerable = questions.filter((question) => question.expected_pages.length > 0);
    expect(answerable.length).toBeGreaterThanOrEqual(40);
    expect(questions.length - answerable.length).toBeGreaterThanOrEqual(10);
  });

  it("ingests every page of the book, with Docusaurus URLs", async () => {
    const documents = await lectern.store.listDocuments();
    const files = documents.map((document) => document.filePath);
    expect(files).not.toContain("swarm-robotics.md"); // draft
    expect(files.some((file) => path.basename(file).startsWith("_"))).toBe(false); // partials
    const chunks = [...indexOf(lectern).allChunks()];
    const urlOf = (file: string) =>
      chunks.find((chunk) => chunk.filePath === file && chunk.chunkIndex === 0)?.url;
    expect(urlOf("index.md")).toBe("/docs");
    expect(urlOf("02-ros2-fundamentals/02-topics-and-messages.mdx")).toBe("/docs/ros2/topics");
    expect(urlOf("02-ros2-fundamentals/03-services.mdx")).toBe("/docs/ros2-fundamentals/services");
    expect(urlOf("02-ros2-fundamentals/01-nodes.md")).toBe("/docs/ros2-fundamentals/nodes");
    expect(urlOf("04-sensors-and-perception/README.md")).toBe("/docs/sensors-and-perception");
    // The QoS partial is rendered by the topics page.
    const topicsText = chunks
      .filter((chunk) => chunk.filePath === "02-ros2-fundamentals/02-topics-and-messages.mdx")
      .map((chunk) => chunk.text)
      .join("\n");
    expect(topicsText).toMatch(/reliab/i);
    for (const chunk of chunks) {
      expect(chunk.url.startsWith("/docs")).toBe(true);
      expect(chunk.headingPath[0]).toBe(chunk.title);
    }
  });

  it("tuning on the tune half alone refuses no more answerable questions than its budget", async () => {
    const tuned = await tuneThresholds(
      lectern.served.retriever,
      pipelineOver,
      splitQuestions(questions, "tune"),
    );
    const metrics = await evaluate(
      pipelineOver(lectern.served.retriever.withThresholds(tuned.thresholds)),
      splitQuestions(questions, "tune"),
      5,
    );
    expect(metrics.falseRejections / metrics.answerable).toBeLessThanOrEqual(MAX_FALSE_REJECTION);
    expect(metrics.noAnswerRecall).toBeGreaterThan(0.5);
  });

  it("answers what-is and how-do-I questions with the phrase a right answer contains", async () => {
    const rows = questions.filter((question) => question.must_contain_any);
    expect(rows.length).toBeGreaterThanOrEqual(20);
    const metrics = await evaluate(pipelineOver(lectern.served.retriever), rows, 5);
    // 12 of 20 when these rows were added, 19 of 20 since answers reach a result's page opening,
    // section start and glossary entry; the aim is 0.85 (docs/retrieval.md).
    expect(metrics.phraseShare).toBeGreaterThanOrEqual(0.85);
  });

  it("answers the overview question from the synopsis, citing the introduction", async () => {
    const outcome = await ask("What is this book about?");
    expect(outcome.route).toBe("overview");
    expect(outcome.answer).toContain("textbook");
    expect(outcome.sources[0]).toMatchObject({ file_path: "index.md", source_url: "/docs" });
  });

  it("of two passages of a section that score the same, quotes the one the book gives first", async () => {
    // "colcon builds every package…" and the later tip "Source the workspace in a new terminal
    // rather than the one you built in" cover the question's words equally; only rounding
    // differed between their sums.
    const outcome = await ask("How do I build the packages in my workspace?");
    // The passage leads under its heading, or the section card marks it in bold.
    expect(outcome.answer).toMatch(
      /(?:\*\*)?`?colcon`? \("collective construction"\) builds every package/,
    );
    expect(outcome.answer).toContain("colcon build --symlink-install");
  });

  it("defines a term from its glossary entry when passages only use the term rank higher", async () => {
    // The glossary's "K–P" section is the fifth source; the first uses "odometry" in passing.
    const outcome = await ask("What is odometry?");
    expect(outcome.answer).toMatch(/^(?:\*\*[^\n]+\*\*\n\n)?Odometry — An estimate of motion/);
    const cited = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1]);
    expect(outcome.sources[cited - 1]).toMatchObject({ file_path: "glossary.md" });
    expect(
      outcome.sources.filter(
        (source) => "file_path" in source && source.file_path === "glossary.md",
      ),
    ).toHaveLength(1);
  });

  it("meets the targets on the held-out half with thresholds tuned on the other half", async () => {
    const tuned = await tuneThresholds(
      lectern.served.retriever,
      pipelineOver,
      splitQuestions(questions, "tune"),
    );
    const metrics = await evaluate(
      pipelineOver(lectern.served.retriever.withThresholds(tuned.thresholds)),
      splitQuestions(questions, "holdout"),
      5,
    );
    // An answerable question rejected as no_results counts as a miss.
    expect(metrics.answeredHitAtK).toBeGreaterThanOrEqual(0.9);
    expect(metrics.noAnswerRecall).toBeGreaterThanOrEqual(0.8);
    expect(metrics.noAnswerPrecision).toBeGreaterThanOrEqual(0.7);
  });

  // Never used to tune or design anything. The rule now refuses only what the book does not
  // cover: fewer wrong refusals of readers' own wording, at the price of answering more off-topic
  // questions (with low_confidence); the trade-off is reported in docs/retrieval.md.
  it("meets the targets on questions never used for tuning", async () => {
    const fresh = await loadQuestions(FRESH_QUESTIONS);
    const metrics = await evaluate(pipelineOver(lectern.served.retriever), fresh, 5);
    expect(metrics.hitAtK).toBeGreaterThanOrEqual(0.9);
    expect(metrics.falseRejections / metrics.answerable).toBeLessThanOrEqual(0.03);
    // The thresholds refuse at most 3 % of each dev book's answerable questions; on these the
    // lexical signals then refuse 10 of 16 off-topic questions (14 under a 1 % pooled budget, which
    // refused 15 % of another book's). The 0.75 goal needs a signal beyond the words: see
    // "Where it falls short" in docs/retrieval.md.
    expect(metrics.noAnswerRecall).toBeGreaterThanOrEqual(0.6);
    expect(metrics.noAnswerPrecision).toBeGreaterThanOrEqual(0.7);
  });
});
