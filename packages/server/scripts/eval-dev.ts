/**
 * `npm run eval:dev`: retrieval and answer quality on the development sets, through the same chat
 * pipeline `/chat` serves. Reads the Redux docs set from ../shared/devsets (or LECTERN_DEVSETS)
 * next to the repository, which a plain clone does not have: then it says so and stops. Also
 * reports the sample book's question files, so every change is seen on both.
 *
 *   npm run eval:dev [-- --details] [-- --json] [-- --tune]
 *
 * `--tune` chooses the no-results and low-confidence thresholds on the pooled questions of
 * different styles (the dev set's paraphrased and raw titles with its off-topic controls, its
 * follow-up conversations, and the
 * sample book's questions.jsonl), prints them, and reports every set with them. The sample book's
 * questions-fresh.jsonl never takes part in tuning: it checks that the thresholds generalise.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import { type EvalMetrics, evaluate } from "../src/eval/evaluate.ts";
import { type EvalQuestion, loadQuestions } from "../src/eval/questions.ts";
import { chooseThresholds } from "../src/eval/tune.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import { type DecisionThresholds, NEVER_REJECT } from "../src/search/retriever.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const devsets = path.resolve(
  process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets"),
);
const sample = path.join(repoRoot, "examples/robotics-primer");
const details = process.argv.includes("--details");
const json = process.argv.includes("--json");
const tune = process.argv.includes("--tune");
const K = 5;

interface Row {
  set: string;
  n: number;
  hitAt1: number;
  hitAt5: number;
  mrr: number;
  falseRejection: number;
  offTopicRejected?: number;
  phrases?: string;
}

async function withBook<T>(docs: string, work: (lectern: Lectern) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-eval-dev-"));
  const lectern = await openLectern(
    loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir } }),
  );
  try {
    const report = await lectern.ingest(docs);
    for (const failure of report.failures) console.error(`ingest failure: ${failure.message}`);
    console.error(
      `${path.relative(repoRoot, docs) || docs}: ${report.totalDocuments} pages, ${report.totalChunks} chunks`,
    );
    return await work(lectern);
  } finally {
    await lectern.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function row(set: string, metrics: EvalMetrics): Row {
  const answerable = metrics.results.filter((result) => result.expectedPages.length > 0);
  const offTopic = metrics.results.filter((result) => result.expectedPages.length === 0);
  return {
    set,
    n: answerable.length || offTopic.length,
    hitAt1: metrics.hitAt1,
    hitAt5: metrics.hitAtK,
    mrr: metrics.mrr,
    falseRejection: answerable.length ? metrics.falseRejections / answerable.length : 0,
    ...(offTopic.length ? { offTopicRejected: metrics.noAnswerRecall } : {}),
    ...(metrics.phraseRows
      ? { phrases: `${(metrics.phraseShare * 100).toFixed(1)}% of ${metrics.phraseRows}` }
      : {}),
  };
}

function printMisses(set: string, metrics: EvalMetrics): void {
  if (!details) return;
  for (const result of metrics.results) {
    const offTopic = result.expectedPages.length === 0;
    const wrong = offTopic
      ? !result.predictedNoResults
      : result.firstHit === undefined || result.firstHit > K;
    if (!wrong && result.containsPhrase !== false) continue;
    const got = result.predictedNoResults
      ? "no_results"
      : result.rankedPages.slice(0, 3).join(", ");
    const s = result.signals;
    console.log(
      `  [${set}] ${result.id} ${wrong ? "miss" : "phrase"} cov=${s?.bestCoverage} unk=${s?.unknownShare} ratio=${s?.scoreRatio} sup=${result.support}: ${result.question}\n      want ${result.expectedPages.join(", ") || "no_results"}; got ${got}`,
    );
  }
}

let tuned: DecisionThresholds | undefined;

async function run(lectern: Lectern, set: string, questions: EvalQuestion[], rows: Row[]) {
  const retriever = tuned ? lectern.retriever.withThresholds(tuned) : lectern.retriever;
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }), { retriever });
  const metrics = await evaluate(pipeline, questions, K);
  rows.push(row(set, metrics));
  printMisses(set, metrics);
  return metrics;
}

const rows: Row[] = [];
const overview: { book: string; answer: string | null; cited: string | undefined }[] = [];

async function askOverview(lectern: Lectern, book: string) {
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
  const outcome = await pipeline.run({
    requestId: "overview",
    sessionId: "overview",
    query: "What is this book about?",
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: K,
  });
  const first = outcome.sources[0];
  overview.push({
    book,
    answer: outcome.answer,
    cited: first && "file_path" in first ? first.file_path : undefined,
  });
}

/** The pooled tuning questions' results with rejection off, for `--tune`. */
async function tuningResults(lectern: Lectern, questions: EvalQuestion[]) {
  const permissive = lectern.retriever.withThresholds({
    ...lectern.retriever.thresholds,
    ...NEVER_REJECT,
  });
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }), {
    retriever: permissive,
  });
  return (await evaluate(pipeline, questions, K)).results;
}

if (tune) {
  const pooled = [];
  if (existsSync(path.join(devsets, "redux"))) {
    const dir = path.join(devsets, "redux");
    pooled.push(
      ...(await withBook(path.join(dir, "docs"), async (lectern) =>
        tuningResults(lectern, [
          ...(await loadQuestions(path.join(dir, "questions.jsonl"))),
          ...(await loadQuestions(path.join(dir, "questions_raw.jsonl"))),
          ...(await loadQuestions(path.join(dir, "followups.jsonl"))),
        ]),
      )),
    );
  }
  pooled.push(
    ...(await withBook(path.join(sample, "docs"), async (lectern) =>
      tuningResults(lectern, await loadQuestions(path.join(sample, "questions.jsonl"))),
    )),
  );
  const chosen = chooseThresholds(pooled);
  tuned = chosen.thresholds;
  console.log(
    `Tuned on ${pooled.length} pooled questions: ${JSON.stringify(chosen.thresholds)} (decision score ${chosen.decisionScore.toFixed(3)}, low-confidence F1 ${chosen.lowConfidenceF1.toFixed(2)})`,
  );
}

if (!existsSync(path.join(devsets, "redux"))) {
  console.log(
    `No development sets at ${devsets} (they sit beside the repository, not in it); reporting the sample book only.`,
  );
} else {
  const dir = path.join(devsets, "redux");
  await withBook(path.join(dir, "docs"), async (lectern) => {
    const paraphrased = await loadQuestions(path.join(dir, "questions.jsonl"));
    const inDomain = paraphrased.filter((question) => question.expected_pages.length > 0);
    const controls = paraphrased.filter((question) => question.expected_pages.length === 0);
    await run(lectern, "redux: paraphrased", inDomain, rows);
    await run(
      lectern,
      "redux: raw titles",
      await loadQuestions(path.join(dir, "questions_raw.jsonl")),
      rows,
    );
    const followups = await loadQuestions(path.join(dir, "followups.jsonl"));
    await run(lectern, "redux: follow-ups", followups, rows);
    await run(
      lectern,
      "redux: follow-up turn 2 alone",
      followups.map((question) => ({ ...question, previousTurns: [] })),
      rows,
    );
    await run(lectern, "redux: off-topic (all)", controls, rows);
    await run(
      lectern,
      "redux: off-topic near-domain",
      controls.filter((q) => q.kind === "near-domain"),
      rows,
    );
    await run(
      lectern,
      "redux: off-topic clear",
      controls.filter((q) => q.kind !== "near-domain"),
      rows,
    );
    await askOverview(lectern, "redux");
  });
}

await withBook(path.join(sample, "docs"), async (lectern) => {
  await run(
    lectern,
    "sample: questions.jsonl",
    await loadQuestions(path.join(sample, "questions.jsonl")),
    rows,
  );
  await run(
    lectern,
    "sample: questions-fresh.jsonl",
    await loadQuestions(path.join(sample, "questions-fresh.jsonl")),
    rows,
  );
  await askOverview(lectern, "sample");
});

if (json) {
  console.log(JSON.stringify({ rows, overview }, null, 2));
} else {
  const f = (value: number | undefined) => (value === undefined ? "" : value.toFixed(3));
  console.log(
    "| set | n | hit@1 | hit@5 | MRR | false rejection | off-topic rejected | answer has phrase |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const offTopicOnly = r.offTopicRejected !== undefined && r.set.includes("off-topic");
    console.log(
      offTopicOnly
        ? `| ${r.set} | ${r.n} | | | | | ${f(r.offTopicRejected)} | |`
        : `| ${r.set} | ${r.n} | ${f(r.hitAt1)} | ${f(r.hitAt5)} | ${f(r.mrr)} | ${f(r.falseRejection)} | ${f(r.offTopicRejected)} | ${r.phrases ?? ""} |`,
    );
  }
  for (const entry of overview) {
    console.log(`\nOverview (${entry.book}), citing ${entry.cited}:\n${entry.answer}`);
  }
}
