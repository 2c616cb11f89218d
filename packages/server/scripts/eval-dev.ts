/**
 * `npm run eval:dev`: retrieval and answer quality on the development sets, through the same chat
 * pipeline `/chat` serves. Reads the Redux docs set from ../shared/devsets (or LECTERN_DEVSETS)
 * next to the repository, which a plain clone does not have: then it says so and stops. Also
 * reports the sample book's question files, so every change is seen on both.
 *
 *   npm run eval:dev [-- --details] [-- --json] [-- --tune] [-- --answers] [-- --answers-out FILE]
 *
 * `--tune` chooses the no-results and low-confidence thresholds on the pooled questions of
 * different styles (the dev set's paraphrased and raw titles with its off-topic controls, its
 * follow-up conversations, and the
 * sample book's questions.jsonl), prints them, and reports every set with them. The sample book's
 * questions-fresh.jsonl never takes part in tuning: it checks that the thresholds generalise.
 */
import { existsSync } from "node:fs";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CARD_WEIGHTS, type CardWeights } from "@lectern/engine/answer/section-card";
import {
  ExtractiveSynthesizer,
  modelSources,
  type SynthesisInput,
} from "@lectern/engine/pipeline/answer-synthesizer";
import {
  type DecisionThresholds,
  decide,
  NEVER_REJECT,
  type RetrievalSignals,
} from "@lectern/engine/search/retriever";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import {
  containsAny,
  type EvalMetrics,
  type EvalQuestionResult,
  evaluate,
  LEAD_WORDS,
} from "../src/eval/evaluate.ts";
import { type EvalQuestion, loadQuestions } from "../src/eval/questions.ts";
import { chooseThresholds } from "../src/eval/tune.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { buildPassages } from "../src/llm/prompts.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const devsets = path.resolve(
  process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets"),
);
const sample = path.join(repoRoot, "examples/robotics-primer");
const details = process.argv.includes("--details");
/** Only the answer sets: whether answers contain the fact, per corpus, pooled and left one out. */
const answersOnly = process.argv.includes("--answers");
/** Fit the section card's weights on the answer sets, reported leave one corpus out. */
const fit = process.argv.includes("--fit");
const json = process.argv.includes("--json");
/**
 * `--answers-out FILE`: every answer of the answer sets, one Markdown section per row, to read
 * side by side with a run before a change (`diff`).
 */
const answersOutAt = process.argv.indexOf("--answers-out");
const answersOut = answersOutAt >= 0 ? process.argv[answersOutAt + 1] : undefined;
if (answersOut) await writeFile(answersOut, "");
const tune = process.argv.includes("--tune");
const K = 5;

interface AnswerRow {
  corpus: string;
  n: number;
  /** Answers containing one of the row's phrases. */
  contains: number;
  /** Answers whose first LEAD_WORDS words contain one of the phrases. */
  lead: number;
  /** Rows whose first five sources hold a phrase (context recall@5). */
  contextHas: number;
  /** Rows whose passages a model would read (the results and the best sections) hold a phrase. */
  modelHas: number;
  refused: number;
  /** Answers opening with "The book does not mention …", and how many of them hold the fact. */
  opener: number;
  openerRight: number;
}

const answerRows: AnswerRow[] = [];
const OPENER = "The book does not mention";

/** The answer set of one corpus: answerable rows with phrases, scored through the pipeline. */
async function runAnswers(
  lectern: Lectern,
  corpus: string,
  questions: EvalQuestion[],
  card: CardWeights = CARD_WEIGHTS,
  into: AnswerRow[] = answerRows,
) {
  // What a model would read for each question, as the model synthesizer builds it (default budget).
  const extractive = new ExtractiveSynthesizer(card);
  const modelReads = new Map<string, string>();
  const passageBudget = Math.floor(loadConfig({ env: {} }).llm.contextTokens * 0.8);
  const synthesizer = {
    kind: extractive.kind,
    synthesize: (input: SynthesisInput, options?: Parameters<typeof extractive.synthesize>[1]) => {
      modelReads.set(input.question, buildPassages(modelSources(input, card), passageBudget).text);
      return extractive.synthesize(input, options);
    },
  };
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }), { synthesizer });
  const rowsWithPhrases = questions.filter((question) => question.must_contain_any?.length);
  const sourceText = (filePath: string, position: number) =>
    lectern.served.index?.chunksOfPage(filePath)[position]?.text;
  const metrics = await evaluate(pipeline, rowsWithPhrases, K, sourceText);
  const results = metrics.results;
  if (answersOut && into === answerRows)
    await appendFile(
      answersOut,
      results
        .map(
          (r) =>
            `## ${corpus} ${r.id} ${r.containsPhrase ? "has the fact" : "misses it"}: ${r.question}\n\n${r.answer ?? "(refused)"}\n`,
        )
        .join("\n"),
    );
  into.push({
    corpus,
    n: results.length,
    contains: results.filter((result) => result.containsPhrase).length,
    lead: results.filter((result) => result.leadHasPhrase).length,
    contextHas: results.filter((result) => result.contextHasPhrase).length,
    modelHas: rowsWithPhrases.filter((row) =>
      containsAny(modelReads.get(row.question) ?? "", row.must_contain_any ?? []),
    ).length,
    refused: results.filter((result) => result.predictedNoResults).length,
    opener: results.filter((result) => result.answer?.startsWith(OPENER)).length,
    openerRight: results.filter(
      (result) => result.answer?.startsWith(OPENER) && result.containsPhrase,
    ).length,
  });
  if (details && into === answerRows)
    for (const result of results.filter((r) => !r.containsPhrase))
      console.log(
        `  [${corpus} answers] ${result.id} ${result.predictedNoResults ? "refused" : result.contextHasPhrase ? "in context" : "not in context"}: ${result.question}\n      got ${result.rankedPages.slice(0, 3).join(", ")}\n      ${(result.answer ?? "").replace(/\n+/g, " ⏎ ").slice(0, 400)}`,
      );
  return metrics;
}

function printAnswerRows(): void {
  if (answerRows.length === 0) return;
  const pooled = answerRows.reduce(
    (total, r) => ({
      corpus: "pooled",
      n: total.n + r.n,
      contains: total.contains + r.contains,
      lead: total.lead + r.lead,
      contextHas: total.contextHas + r.contextHas,
      modelHas: total.modelHas + r.modelHas,
      refused: total.refused + r.refused,
      opener: total.opener + r.opener,
      openerRight: total.openerRight + r.openerRight,
    }),
    {
      corpus: "pooled",
      n: 0,
      contains: 0,
      lead: 0,
      contextHas: 0,
      modelHas: 0,
      refused: 0,
      opener: 0,
      openerRight: 0,
    },
  );
  console.log(
    `\n| answer set | n | answer contains the fact | in its first ${LEAD_WORDS} words | context recall@5 | what a model reads | refused | “does not mention” (of them right) |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of [...answerRows, pooled])
    console.log(
      `| ${r.corpus} | ${r.n} | ${r.contains} (${(r.contains / r.n).toFixed(3)}) | ${r.lead} (${(r.lead / r.n).toFixed(3)}) | ${r.contextHas} (${(r.contextHas / r.n).toFixed(3)}) | ${r.modelHas} (${(r.modelHas / r.n).toFixed(3)}) | ${r.refused} | ${r.opener} (${r.openerRight}) |`,
    );
}

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
  const retriever = tuned
    ? lectern.served.retriever.withThresholds(tuned)
    : lectern.served.retriever;
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

/** One set's tuning questions' results with rejection off, each tagged with the set, for `--tune`. */
async function tuningResults(lectern: Lectern, set: string, questions: EvalQuestion[]) {
  const permissive = lectern.served.retriever.withThresholds({
    ...lectern.served.retriever.thresholds,
    ...NEVER_REJECT,
  });
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }), {
    retriever: permissive,
  });
  return (await evaluate(pipeline, questions, K)).results.map((result) => ({ ...result, set }));
}

/** How thresholds chosen on the other sets do on each one held out: refusals of each kind. */
function tuningLeaveOneOut(pooled: EvalQuestionResult[]) {
  const sets = [...new Set(pooled.map((result) => result.set))];
  console.log(
    "| held out | thresholds chosen on the other sets | false rejection | off-topic rejected |",
  );
  console.log("|---|---|---:|---:|");
  for (const held of sets) {
    const { thresholds } = chooseThresholds(pooled.filter((result) => result.set !== held));
    const heldOut = pooled.filter((result) => result.set === held && result.signals);
    const refused = (result: EvalQuestionResult) =>
      decide(result.signals as RetrievalSignals, result.resultCount, thresholds) === "no_results";
    const share = (results: EvalQuestionResult[]) =>
      results.length ? (results.filter(refused).length / results.length).toFixed(3) : "";
    const { unknownWeight, minSupport, minScoreRatio, refuseUnknownAcronyms } = thresholds;
    console.log(
      `| ${held} | ${JSON.stringify({ unknownWeight, minSupport, minScoreRatio, refuseUnknownAcronyms })} | ${share(heldOut.filter((result) => result.expectedPages.length > 0))} | ${share(heldOut.filter((result) => result.expectedPages.length === 0))} |`,
    );
  }
}

/** The answer sets of every corpus there is: name, docs folder, answers file. */
function answerSets(): [string, string, string][] {
  const sets: [string, string, string][] = [];
  for (const corpus of ["redux", "jest", "pnpm"])
    if (existsSync(path.join(devsets, corpus, "answers.jsonl")))
      sets.push([
        corpus,
        path.join(devsets, corpus, "docs"),
        path.join(devsets, corpus, "answers.jsonl"),
      ]);
  sets.push(["sample", path.join(sample, "docs"), path.join(sample, "questions.jsonl")]);
  return sets;
}

/**
 * Every card the fit tries: the weights of CARD_WEIGHTS that choose the section, then (with those
 * at their defaults) whether and how a second section is shown, within the same word budget, and
 * a third one, then the lead passage's weights (lead.ts).
 */
function cardGrid(): CardWeights[] {
  const cards: CardWeights[] = [];
  for (const pages of [0, 1, 2, 3])
    for (const pageSimilarity of pages ? [0.5, 1] : [CARD_WEIGHTS.pageSimilarity])
      for (const heading of [0.5, 1, 2])
        for (const similarity of [0.5, 1, 2])
          cards.push({ ...CARD_WEIGHTS, heading, similarity, pages, pageSimilarity });
  cards.push({ ...CARD_WEIGHTS, second: 0 });
  for (const second of [0.5, 0.6, 0.75, 0.9])
    for (const secondWords of [60, 100, 125])
      if (second !== CARD_WEIGHTS.second || secondWords !== CARD_WEIGHTS.secondWords)
        cards.push({ ...CARD_WEIGHTS, second, secondWords });
  for (const thirdWords of [0, 40, 100]) cards.push({ ...CARD_WEIGHTS, thirdWords });
  for (const leadPhrase of [0, 0.3, 0.6]) cards.push({ ...CARD_WEIGHTS, leadPhrase });
  for (const leadSection of [0, 0.3, 0.6, 1])
    for (const leadDefinition of [0, 0.1, 0.2, 0.35])
      for (const leadSentences of [1, 2, 3])
        if (
          leadSection !== CARD_WEIGHTS.leadSection ||
          leadDefinition !== CARD_WEIGHTS.leadDefinition ||
          leadSentences !== CARD_WEIGHTS.leadSentences
        )
          cards.push({ ...CARD_WEIGHTS, leadSection, leadDefinition, leadSentences });
  return cards;
}

if (fit) {
  const sets = answerSets();
  const opened: { corpus: string; lectern: Lectern; questions: EvalQuestion[]; dir: string }[] = [];
  for (const [corpus, docs, file] of sets) {
    const dir = await mkdtemp(path.join(tmpdir(), "lectern-eval-fit-"));
    const lectern = await openLectern(
      loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir: dir } }),
    );
    await lectern.ingest(docs);
    opened.push({ corpus, lectern, questions: await loadQuestions(file), dir });
  }
  const scored: {
    card: CardWeights;
    share: Map<string, number>;
    leadShare: Map<string, number>;
  }[] = [];
  for (const card of cardGrid()) {
    const into: AnswerRow[] = [];
    for (const book of opened)
      await runAnswers(book.lectern, book.corpus, book.questions, card, into);
    scored.push({
      card,
      share: new Map(into.map((r) => [r.corpus, r.contains / r.n])),
      leadShare: new Map(into.map((r) => [r.corpus, r.lead / r.n])),
    });
  }
  // Answers holding the fact decide; among equals, those holding it in their first words.
  const mean = (entry: (typeof scored)[number], corpora: string[]) =>
    corpora.reduce(
      (total, corpus) =>
        total + (entry.share.get(corpus) ?? 0) + 0.001 * (entry.leadShare.get(corpus) ?? 0),
      0,
    ) / corpora.length;
  const corpora = opened.map((book) => book.corpus);
  const choose = (on: string[]) =>
    scored.reduce((best, entry) => (mean(entry, on) > mean(best, on) ? entry : best));
  const describe = (card: CardWeights) =>
    `lead ${card.leadSection} × section, ${card.leadDefinition} definition, ${card.leadPhrase} phrase, ${card.leadSentences} sentences; heading ${card.heading}, similarity ${card.similarity}, pages ${card.pages} × ${card.pageSimilarity}, ${card.second ? `second ${card.second} × ${card.secondWords} words, third ${card.thirdWords} words` : "no second"}`;
  const fitted = [
    "heading",
    "similarity",
    "pages",
    "pageSimilarity",
    "second",
    "secondWords",
    "thirdWords",
    "leadSection",
    "leadDefinition",
    "leadSentences",
    "leadPhrase",
  ];
  const current = scored.find((entry) =>
    fitted.every(
      (key) => entry.card[key as keyof CardWeights] === CARD_WEIGHTS[key as keyof CardWeights],
    ),
  );
  console.log("| held out | chosen on the other three | held-out share | the defaults' share |");
  console.log("|---|---|---:|---:|");
  for (const held of corpora) {
    const chosen = choose(corpora.filter((corpus) => corpus !== held));
    console.log(
      `| ${held} | ${describe(chosen.card)} | ${(chosen.share.get(held) ?? 0).toFixed(3)} | ${(current?.share.get(held) ?? 0).toFixed(3)} |`,
    );
  }
  const pooled = choose(corpora);
  console.log(
    `\nChosen on all four: ${describe(pooled.card)} (mean share ${mean(pooled, corpora).toFixed(3)})`,
  );
  for (const book of opened) {
    await book.lectern.close();
    await rm(book.dir, { recursive: true, force: true });
  }
  process.exit(0);
}

if (tune) {
  const pooled = [];
  if (existsSync(path.join(devsets, "redux"))) {
    const dir = path.join(devsets, "redux");
    pooled.push(
      ...(await withBook(path.join(dir, "docs"), async (lectern) =>
        tuningResults(lectern, "redux", [
          ...(await loadQuestions(path.join(dir, "questions.jsonl"))),
          ...(await loadQuestions(path.join(dir, "questions_raw.jsonl"))),
          ...(await loadQuestions(path.join(dir, "followups.jsonl"))),
          ...(await loadQuestions(path.join(dir, "answers.jsonl"))),
        ]),
      )),
    );
  }
  for (const corpus of ["jest", "pnpm"]) {
    const dir = path.join(devsets, corpus);
    if (!existsSync(dir)) continue;
    pooled.push(
      ...(await withBook(path.join(dir, "docs"), async (lectern) =>
        tuningResults(lectern, corpus, await loadQuestions(path.join(dir, "questions.jsonl"))),
      )),
    );
  }
  pooled.push(
    ...(await withBook(path.join(sample, "docs"), async (lectern) =>
      tuningResults(lectern, "sample", await loadQuestions(path.join(sample, "questions.jsonl"))),
    )),
  );
  const chosen = chooseThresholds(pooled);
  tuned = chosen.thresholds;
  console.log(
    `Tuned on ${pooled.length} pooled questions: ${JSON.stringify(chosen.thresholds)} (off-topic rejected in the worst set ${chosen.decisionScore.toFixed(3)}, low-confidence F1 ${chosen.lowConfidenceF1.toFixed(2)})`,
  );
  tuningLeaveOneOut(pooled);
}

if (!existsSync(path.join(devsets, "redux"))) {
  console.log(
    `No development sets at ${devsets} (they sit beside the repository, not in it); reporting the sample book only.`,
  );
} else {
  const dir = path.join(devsets, "redux");
  await withBook(path.join(dir, "docs"), async (lectern) => {
    await runAnswers(lectern, "redux", await loadQuestions(path.join(dir, "answers.jsonl")));
    if (answersOnly) return;
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
  // The Jest and pnpm sets: an answer set, and the same rows with off-topic controls for retrieval.
  for (const corpus of ["jest", "pnpm"]) {
    const dir = path.join(devsets, corpus);
    if (!existsSync(dir)) continue;
    await withBook(path.join(dir, "docs"), async (lectern) => {
      await runAnswers(lectern, corpus, await loadQuestions(path.join(dir, "answers.jsonl")));
      if (answersOnly) return;
      const questions = await loadQuestions(path.join(dir, "questions.jsonl"));
      const controls = questions.filter((question) => question.expected_pages.length === 0);
      await run(
        lectern,
        `${corpus}: in-domain`,
        questions.filter((question) => question.expected_pages.length > 0),
        rows,
      );
      await run(lectern, `${corpus}: off-topic (all)`, controls, rows);
      await askOverview(lectern, corpus);
    });
  }
}

await withBook(path.join(sample, "docs"), async (lectern) => {
  const questions = await loadQuestions(path.join(sample, "questions.jsonl"));
  await runAnswers(lectern, "sample", questions);
  if (answersOnly) return;
  await run(lectern, "sample: questions.jsonl", questions, rows);
  await run(
    lectern,
    "sample: questions-fresh.jsonl",
    await loadQuestions(path.join(sample, "questions-fresh.jsonl")),
    rows,
  );
  await askOverview(lectern, "sample");
});

if (json) {
  console.log(JSON.stringify({ rows, answerRows, overview }, null, 2));
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
  printAnswerRows();
  for (const entry of overview) {
    console.log(`\nOverview (${entry.book}), citing ${entry.cited}:\n${entry.answer}`);
  }
}
