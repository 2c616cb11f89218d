import { readFile, writeFile } from "node:fs/promises";
import { createError } from "@lectern/engine/errors";
import { cutText } from "@lectern/engine/util/cut-text";
import { z } from "zod";
import type { EvalMetrics } from "./evaluate.ts";

/**
 * What a docs change does to the answers: `lectern eval --save run.json` keeps each question's
 * answer and cited pages for one version of the book, and `lectern eval --compare before.json
 * after.json` lists the questions that became unanswerable or answerable, that cite another page,
 * and whose answer changed. Questions are matched by id.
 */

export const RUN_FORMAT = "lectern-eval-run";

const savedAnswerSchema = z
  .object({
    id: z.string().min(1),
    question: z.string(),
    answered: z.boolean(),
    mode: z.string(),
    low_confidence: z.boolean(),
    answer: z.string().nullable(),
    /** The cited pages' file paths, best first. */
    cited_pages: z.array(z.string()),
    cited_urls: z.array(z.string()),
  })
  .strict();
export type SavedAnswer = z.infer<typeof savedAnswerSchema>;

const runSchema = z
  .object({
    format: z.literal(RUN_FORMAT),
    version: z.literal(1),
    created_at: z.string(),
    lectern_version: z.string(),
    book: z.object({ title: z.string().nullable(), index_version: z.number() }).strict(),
    questions: z.array(savedAnswerSchema),
  })
  .strict();
export type AnswerRun = z.infer<typeof runSchema>;

export function runOf(
  metrics: EvalMetrics,
  context: { title: string | undefined; indexVersion: number; lecternVersion: string; now: Date },
): AnswerRun {
  return {
    format: RUN_FORMAT,
    version: 1,
    created_at: context.now.toISOString(),
    lectern_version: context.lecternVersion,
    book: { title: context.title ?? null, index_version: context.indexVersion },
    questions: metrics.results.map((result) => ({
      id: result.id,
      question: result.question,
      answered: !result.predictedNoResults && result.answer !== null,
      mode: result.predictedNoResults ? "no_results" : result.answer === null ? "none" : "answer",
      low_confidence: result.lowConfidence,
      answer: result.answer,
      cited_pages: result.rankedPages,
      cited_urls: result.citedUrls,
    })),
  };
}

export async function saveRun(file: string, run: AnswerRun): Promise<void> {
  try {
    await writeFile(file, `${JSON.stringify(run, null, 2)}\n`);
  } catch (error) {
    throw createError(
      "EVAL_RUN_INVALID",
      `Cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

export async function loadRun(file: string): Promise<AnswerRun> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw createError(
      "EVAL_RUN_INVALID",
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw createError("EVAL_RUN_INVALID", `${file} is not JSON: save it with lectern eval --save.`);
  }
  const parsed = runSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    throw createError(
      "EVAL_RUN_INVALID",
      `${file} is not a run saved by lectern eval --save${where}: ${issue?.message ?? "invalid"}.`,
    );
  }
  return parsed.data;
}

export type ChangeKind =
  | "became_unanswerable"
  | "became_answerable"
  | "cited_page_changed"
  | "answer_changed";

export interface AnswerChange {
  kind: ChangeKind;
  id: string;
  question: string;
  before: SavedAnswer;
  after: SavedAnswer;
}

export interface RunComparison {
  /** Questions asked in both runs. */
  compared: number;
  unchanged: number;
  /** Each changed question once, under the first kind that applies (in ChangeKind's order). */
  changes: AnswerChange[];
  /** Ids asked in one run only. */
  onlyBefore: string[];
  onlyAfter: string[];
}

const KIND_ORDER: readonly ChangeKind[] = [
  "became_unanswerable",
  "became_answerable",
  "cited_page_changed",
  "answer_changed",
];

export function compareRuns(before: AnswerRun, after: AnswerRun): RunComparison {
  const afterById = new Map(after.questions.map((answer) => [answer.id, answer]));
  const beforeIds = new Set(before.questions.map((answer) => answer.id));
  const changes: AnswerChange[] = [];
  let compared = 0;
  for (const old of before.questions) {
    const now = afterById.get(old.id);
    if (!now) continue;
    compared++;
    const kind = changeOf(old, now);
    if (kind) changes.push({ kind, id: old.id, question: now.question, before: old, after: now });
  }
  changes.sort((left, right) => KIND_ORDER.indexOf(left.kind) - KIND_ORDER.indexOf(right.kind));
  return {
    compared,
    unchanged: compared - changes.length,
    changes,
    onlyBefore: before.questions.filter((answer) => !afterById.has(answer.id)).map((a) => a.id),
    onlyAfter: after.questions.filter((answer) => !beforeIds.has(answer.id)).map((a) => a.id),
  };
}

function changeOf(before: SavedAnswer, after: SavedAnswer): ChangeKind | undefined {
  if (before.answered && !after.answered) return "became_unanswerable";
  if (!before.answered && after.answered) return "became_answerable";
  if (!before.answered) return undefined;
  if (before.cited_pages[0] !== after.cited_pages[0]) return "cited_page_changed";
  if (normalized(before.answer) !== normalized(after.answer)) return "answer_changed";
  return undefined;
}

function normalized(text: string | null): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

const HEADINGS: Record<ChangeKind, string> = {
  became_unanswerable: "Became unanswerable",
  became_answerable: "Became answerable",
  cited_page_changed: "Cite another page",
  answer_changed: "Answer changed",
};

/** Longest answer excerpt in the text report. */
const EXCERPT_CHARS = 240;

/** The comparison as text for a terminal or a pull request comment. */
export function formatComparison(
  comparison: RunComparison,
  names: { before: string; after: string },
): string {
  const count = (kind: ChangeKind) =>
    comparison.changes.filter((change) => change.kind === kind).length;
  const lines = [
    `Compared ${comparison.compared} question${comparison.compared === 1 ? "" : "s"}: ${names.before} → ${names.after}`,
    `  ${count("became_unanswerable")} became unanswerable, ${count("became_answerable")} became answerable, ` +
      `${count("cited_page_changed")} cite another page, ${count("answer_changed")} answers changed, ` +
      `${comparison.unchanged} unchanged`,
  ];
  if (comparison.onlyBefore.length > 0)
    lines.push(`  only in ${names.before}: ${comparison.onlyBefore.join(", ")}`);
  if (comparison.onlyAfter.length > 0)
    lines.push(`  only in ${names.after}: ${comparison.onlyAfter.join(", ")}`);
  for (const kind of KIND_ORDER) {
    const changes = comparison.changes.filter((change) => change.kind === kind);
    if (changes.length === 0) continue;
    lines.push("", `${HEADINGS[kind]} (${changes.length}):`);
    for (const change of changes) {
      lines.push(`  ${change.id}  ${change.question}`);
      lines.push(...describeChange(change).map((line) => `      ${line}`));
    }
  }
  return lines.join("\n");
}

function describeChange({ kind, before, after }: AnswerChange): string[] {
  const page = (answer: SavedAnswer) => answer.cited_pages[0] ?? "(no page)";
  switch (kind) {
    case "became_unanswerable":
      return [`was answered from ${page(before)}; now the book does not appear to cover it`];
    case "became_answerable":
      return [`now answered from ${page(after)}`, `+ ${excerpt(after.answer)}`];
    case "cited_page_changed":
      return [`${page(before)} → ${page(after)}`, ...differing(before.answer, after.answer)];
    case "answer_changed":
      return [`from ${page(after)}`, ...differing(before.answer, after.answer)];
  }
}

function excerpt(text: string | null): string {
  const flat = normalized(text);
  return flat.length > EXCERPT_CHARS ? `${cutText(flat, EXCERPT_CHARS - 1)}…` : flat;
}

/** Words shown before the first difference of two answers, so a reader sees what led to it. */
const CONTEXT_CHARS = 40;

/**
 * The two answers from a little before where they first differ (a long shared opening is
 * "…"), so the change shows within the excerpt however far into the answer it is.
 */
function differing(before: string | null, after: string | null): string[] {
  const [old, now] = [normalized(before), normalized(after)];
  let shared = 0;
  while (shared < old.length && old[shared] === now[shared]) shared++;
  const from = shared > CONTEXT_CHARS * 2 ? old.lastIndexOf(" ", shared - CONTEXT_CHARS) + 1 : 0;
  const cut = (text: string) => (from > 0 ? `…${text.slice(from)}` : text);
  return [`- ${excerpt(cut(old))}`, `+ ${excerpt(cut(now))}`];
}
