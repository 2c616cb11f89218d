/**
 * `npm run eval:suggestions [-- --misses]`: whether the questions the book suggests are answered
 * by the sections they name. For every section heading of the sample book and of each dev-set
 * book (../shared/devsets, or LECTERN_DEVSETS), the question a suggestion asks about it
 * (`questionAbout`, "What should I know about …?") goes through the `/chat` pipeline; it counts
 * when the answer's first citation is a section with that heading. Then the reader's path: each
 * question of the book's question file is answered, each "Ask next" question under the answer is
 * asked as the next turn, and it counts when that answer leads with a section of that heading on
 * the page the suggestion came from (the page of the first answer's first citation).
 * `--misses` lists the others.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { questionAbout } from "@lectern/engine/answer/suggestions";
import { namedHeading } from "@lectern/engine/pipeline/named-heading";
import { headingKey } from "@lectern/engine/search/analyzer";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import { loadQuestions } from "../src/eval/questions.ts";
import { openLectern } from "../src/lectern.ts";
import type { Exchange } from "../src/llm/prompts.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const devsets = process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets");
const books: [string, string, string][] = [
  [
    "sample",
    path.join(repoRoot, "examples/robotics-primer/docs"),
    path.join(repoRoot, "examples/robotics-primer/questions.jsonl"),
  ],
  ...["redux", "jest", "pnpm"].map((name): [string, string, string] => [
    name,
    path.join(devsets, name, "docs"),
    path.join(devsets, name, "questions.jsonl"),
  ]),
];
const showMisses = process.argv.includes("--misses");

/** Every heading below a page's title, once. */
function headingsOf(index: LexicalIndex): string[] {
  const headings = new Set<string>();
  for (const chunk of index.allChunks()) {
    if (chunk.headingPath.length >= 2 && chunk.section) headings.add(chunk.section);
    for (const merged of chunk.sectionAnchors ?? [])
      if (merged.headingPath.length >= 2) headings.add(merged.heading);
  }
  return [...headings];
}

type Pipeline = ReturnType<typeof createChatPipeline>["pipeline"];
type Outcome = Awaited<ReturnType<Pipeline["run"]>>;

/** The source an answer cites first, if any. */
function firstCited(outcome: Outcome) {
  const number = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1] ?? 0);
  return outcome.sources[number - 1];
}

const pageOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, "").replace(/#.*$/, "");

async function ask(pipeline: Pipeline, query: string, history: Exchange[] = []): Promise<Outcome> {
  return pipeline.run({
    requestId: "eval-suggestions",
    sessionId: "eval-suggestions",
    query,
    selectedText: null,
    sourceUrl: null,
    filters: undefined,
    topK: undefined,
    history,
  });
}

/** Whether the answer leads with a section headed as the question names (on `page`, if given). */
function ledBy(outcome: Outcome, question: string, page?: string): boolean {
  const first = firstCited(outcome);
  if (!first || !("section" in first)) return false;
  const onPage = page === undefined || pageOf(first.source_url ?? "") === page;
  return onPage && headingKey(first.section) === headingKey(namedHeading(question).heading);
}

/** Each heading's suggestion, asked alone. */
async function headingsAsked(name: string, pipeline: Pipeline, index: LexicalIndex) {
  const headings = headingsOf(index);
  let hits = 0;
  for (const heading of headings) {
    const query = questionAbout(heading);
    const outcome = await ask(pipeline, query);
    if (ledBy(outcome, query)) hits++;
    else if (showMisses) console.error(`${name}: ${query} → ${firstCited(outcome)?.source_url}`);
  }
  return { asked: headings.length, hits };
}

/** Each question of the book's file, then each of its "Ask next" questions as the next turn. */
async function followUpsAsked(name: string, pipeline: Pipeline, questionsFile: string) {
  let asked = 0;
  let hits = 0;
  for (const { question } of await loadQuestions(questionsFile)) {
    const outcome = await ask(pipeline, question);
    const first = firstCited(outcome);
    if (!first || !("source_url" in first) || outcome.answer === null) continue;
    const page = pageOf(first.source_url ?? "");
    const history = [{ query: question, answer: outcome.answer }];
    for (const next of outcome.suggestions ?? []) {
      asked++;
      const answer = await ask(pipeline, next, history);
      if (ledBy(answer, next, page)) hits++;
      else if (showMisses)
        console.error(`${name}: ${question} → ${next} → ${firstCited(answer)?.source_url}`);
    }
  }
  return { asked, hits };
}

const share = ({ asked, hits }: { asked: number; hits: number }) =>
  `${hits} of ${asked} (${(hits / Math.max(asked, 1)).toFixed(3)})`;
console.log('| book | each heading\'s suggestion asked alone | "Ask next" asked after an answer |');
console.log("|---|---:|---:|");
const pooled = { headings: { asked: 0, hits: 0 }, followUps: { asked: 0, hits: 0 } };
for (const [name, docs, questionsFile] of books) {
  if (!existsSync(docs)) {
    console.log(`| ${name} | not found: ${docs} | |`);
    continue;
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-eval-suggestions-"));
  const config = loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir } });
  const lectern = await openLectern(config, { workload: "ingest" });
  try {
    await lectern.ingest(docs);
    const { pipeline } = createChatPipeline(lectern, pino({ level: "warn" }));
    const index = lectern.served.index;
    if (!index) throw new Error("the book has no in-process index");
    const headings = await headingsAsked(name, pipeline, index);
    const followUps = await followUpsAsked(name, pipeline, questionsFile);
    for (const [key, value] of [
      ["headings", headings],
      ["followUps", followUps],
    ] as const) {
      pooled[key].asked += value.asked;
      pooled[key].hits += value.hits;
    }
    console.log(`| ${name} | ${share(headings)} | ${share(followUps)} |`);
  } finally {
    await lectern.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.log(`| pooled | ${share(pooled.headings)} | ${share(pooled.followUps)} |`);
