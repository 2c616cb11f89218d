import { readFile } from "node:fs/promises";
import { createError } from "@lectern/engine/errors";
import { z } from "zod";

/**
 * One evaluation row. A row asks one `question`, or holds a conversation in `turns` whose last turn
 * is scored (the earlier turns are asked first, in the same session). `expected_pages` lists the
 * files that answer it (any one counts; empty for a question the book does not cover), and
 * `must_contain_any` phrases of which a right answer contains at least one (case-insensitive).
 * Provenance fields (`source`, `kind`, `anchor`) are kept for reports and otherwise ignored.
 */
export const questionSchema = z
  .object({
    id: z.string().min(1),
    question: z.string().trim().min(1).optional(),
    turns: z.array(z.string().trim().min(1)).min(1).optional(),
    expected_pages: z.array(z.string().min(1)),
    must_contain_any: z.array(z.string().trim().min(1)).optional(),
    kind: z.string().optional(),
    source: z.string().optional(),
    anchor: z.string().nullable().optional(),
    /** Where the expected page states the fact (prose, table, code, list, heading); for reports. */
    where: z.string().nullable().optional(),
  })
  .strict()
  .refine((row) => (row.question === undefined) !== (row.turns === undefined), {
    message: "give either question or turns, not both",
    path: ["question"],
  });

export interface EvalQuestion {
  id: string;
  /** The scored question (the last turn of a conversation). */
  question: string;
  /** Earlier turns of the conversation, asked first; empty for a single question. */
  previousTurns: string[];
  expected_pages: string[];
  must_contain_any?: string[];
  kind?: string;
}

/** Reads a JSONL questions file; any malformed line fails with its line number. */
export async function loadQuestions(file: string): Promise<EvalQuestion[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw createError(
      "QUESTIONS_FILE_INVALID",
      `Cannot read questions file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseQuestions(text, file);
}

export function parseQuestions(text: string, file = "questions"): EvalQuestion[] {
  const questions: EvalQuestion[] = [];
  const ids = new Set<string>();
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const where = `${file}:${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw createError("QUESTIONS_FILE_INVALID", `${where}: not valid JSON`, {
        details: { line: index + 1 },
      });
    }
    const parsed = questionSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join(".") || "line";
      throw createError(
        "QUESTIONS_FILE_INVALID",
        `${where}: ${field}: ${issue?.message ?? "invalid"}`,
        {
          details: { line: index + 1 },
        },
      );
    }
    if (ids.has(parsed.data.id)) {
      throw createError("QUESTIONS_FILE_INVALID", `${where}: duplicate id "${parsed.data.id}"`, {
        details: { line: index + 1 },
      });
    }
    ids.add(parsed.data.id);
    const row = parsed.data;
    const turns = row.turns ?? [row.question ?? ""];
    questions.push({
      id: row.id,
      question: turns.at(-1) ?? "",
      previousTurns: turns.slice(0, -1),
      expected_pages: row.expected_pages,
      ...(row.must_contain_any?.length ? { must_contain_any: row.must_contain_any } : {}),
      ...(row.kind ? { kind: row.kind } : {}),
    });
  }
  if (questions.length === 0) throw createError("QUESTIONS_FILE_INVALID", `${file}: no questions`);
  return questions;
}

/**
 * Deterministic split used for tuning: questions at odd positions (1st, 3rd, …) tune thresholds,
 * the others are held out and only ever measured.
 */
export function splitQuestions(
  questions: EvalQuestion[],
  split: "all" | "tune" | "holdout",
): EvalQuestion[] {
  if (split === "all") return questions;
  return questions.filter((_, index) => (index % 2 === 0) === (split === "tune"));
}
