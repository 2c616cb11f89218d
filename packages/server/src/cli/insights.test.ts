import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../test/cli.ts";
import { openSampleBook } from "../../test/http-fixture.ts";
import type { InsightsReport } from "../insights/report.ts";
import { type QuestionLogEntry, QuestionLogStore } from "../store/question-log-store.ts";

/** `lectern insights` in a child process, on the sample book with a question log written into it. */

let book: Awaited<ReturnType<typeof openSampleBook>>;

function logged(question: string, overrides: Partial<QuestionLogEntry> = {}): QuestionLogEntry {
  return {
    sessionId: crypto.randomUUID(),
    messageId: crypto.randomUUID(),
    askedAt: new Date(Date.now() - 3_600_000),
    question,
    selectedText: null,
    mode: "retrieval_only",
    lowConfidence: false,
    topScore: 0.8,
    unknownWords: [],
    cited: [],
    ...overrides,
  };
}

beforeAll(async () => {
  book = await openSampleBook();
  await new QuestionLogStore(book.lectern.db, "default").saveMany([
    logged("How does a droid keep its balance?", { lowConfidence: true, unknownWords: ["droid"] }),
    logged("Why does my droid fall over when walking?", { unknownWords: ["droid"] }),
    logged("Can I pay by invoice?", { mode: "no_results", unknownWords: ["pay", "invoice"] }),
    logged("What was asked long ago?", { askedAt: new Date(Date.now() - 40 * 86_400_000) }),
  ]);
  // The embedded database belongs to one process at a time: the CLI opens it next.
  await book.lectern.close();
}, 120_000);

afterAll(async () => book?.cleanup());

describe("lectern insights", () => {
  it("prints the report of the period as JSON", async () => {
    const result = await runCli([
      "insights",
      "--data-dir",
      book.dataDir,
      "--since",
      "7d",
      "--json",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as InsightsReport;
    expect(report.totals).toMatchObject({
      questions: 3,
      answered: 1,
      lowConfidence: 1,
      unanswered: 1,
    });
    expect(report.vocabularyGaps[0]).toMatchObject({
      word: "droid",
      count: 2,
      proposal: { kind: "synonym", phrase: "humanoid" },
    });
    expect(report.unanswered.map((question) => question.text)).toEqual([
      "Can I pay by invoice?",
      "How does a droid keep its balance?",
    ]);
    // No embedder is configured: the topics are grouped by their shared terms, and say so.
    expect(report.topicsMethod).toBe("lexical");
  });

  it("prints it as text, with the proposed synonyms file entries", async () => {
    const result = await runCli(["insights", "--data-dir", book.dataDir, "--since", "60d"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^4 questions: 2 answered, 1 low confidence, 1 unanswered/m);
    expect(result.stdout).toMatch(/^Top questions by topic \(grouped by shared terms\)$/m);
    expect(result.stdout).toMatch(/Vocabulary gaps[^\n]*\n {2}droid ×2 → \/docs\/humanoids/);
    expect(result.stdout).toMatch(
      /Proposed lectern\.synonyms\.yml entries:\n#[^\n]*\ndroid: humanoid/,
    );
  });

  it("refuses a period it cannot read, with a stable code", async () => {
    const result = await runCli(["insights", "--data-dir", book.dataDir, "--since", "a week"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error [VALIDATION_ERROR]: Invalid period "a week": use a number and a unit, such as 30m, 12h, 7d or 2w.\n',
    );
  });
});
