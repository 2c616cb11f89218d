import path from "node:path";
import type { Config } from "../../config/config.ts";
import { compareRuns, formatComparison, loadRun, runOf, saveRun } from "../../eval/answer-runs.ts";
import { evaluate } from "../../eval/evaluate.ts";
import { loadQuestions, splitQuestions } from "../../eval/questions.ts";
import { tuneThresholds } from "../../eval/tune.ts";
import { VERSION } from "../../version.ts";
import { type Flags, positiveInt, UsageError } from "../flags.ts";
import { formatEvalReport } from "../format.ts";
import { pipelineOf, requireDataDir, requireIndex, withLectern } from "../open-book.ts";
import { evalSplit } from "../usage.ts";

/**
 * `lectern eval --questions <file.jsonl> [--k 5] [--split all|tune|holdout] [--tune] [--json]
 * [--save run.json]` and `lectern eval --compare before.json after.json [--json]`; the arguments
 * were checked by `checkUsage`.
 */
export async function evalCommand(
  config: Config,
  flags: Flags,
  positionals: string[] = [],
): Promise<number> {
  if (flags.compare !== undefined) return compareCommand(flags, positionals);
  if (!flags.questions) throw new UsageError("Missing --questions <file.jsonl>.");
  const k = positiveInt(flags.k, "k", 5);
  const split = evalSplit(flags.split);
  const allQuestions = await loadQuestions(flags.questions);
  const questions = splitQuestions(allQuestions, flags.tune ? "holdout" : split);
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    requireIndex(lectern);
    let retriever = lectern.served.retriever;
    if (flags.tune) {
      const tuneHalf = splitQuestions(allQuestions, "tune");
      const tuned = await tuneThresholds(
        retriever,
        (candidate) => pipelineOf(lectern, candidate),
        tuneHalf,
        k,
      );
      retriever = retriever.withThresholds(tuned.thresholds);
      process.stdout.write(
        `Tuned on ${tuneHalf.length} questions: ${JSON.stringify(tuned.thresholds)} ` +
          `(decision score ${tuned.decisionScore.toFixed(3)}, low-confidence F1 ${tuned.lowConfidenceF1.toFixed(2)})\n` +
          "Held-out questions with these thresholds:\n",
      );
    }
    const metrics = await evaluate(pipelineOf(lectern, retriever), questions, k);
    if (flags.save !== undefined) {
      const run = runOf(metrics, {
        title: await lectern.title(),
        indexVersion: (await lectern.store.indexState()).indexVersion,
        lecternVersion: VERSION,
        now: new Date(),
      });
      await saveRun(flags.save, run);
      // The report stays on stdout (--json included); where the run went is said on stderr.
      process.stderr.write(
        `Saved ${run.questions.length} answers to ${path.resolve(flags.save)}\n`,
      );
    }
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`${formatEvalReport(metrics, flags.tune ? "holdout" : split)}\n`);
    return 0;
  });
}

/** `lectern eval --compare before.json after.json [--json]`: what changed between two saved runs. */
async function compareCommand(flags: Flags, positionals: string[]): Promise<number> {
  const before = flags.compare;
  const after = positionals[0];
  if (!before || !after) {
    throw new UsageError("Usage: lectern eval --compare <before.json> <after.json>");
  }
  const comparison = compareRuns(await loadRun(before), await loadRun(after));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${formatComparison(comparison, { before: path.basename(before), after: path.basename(after) })}\n`,
    );
  }
  return 0;
}
