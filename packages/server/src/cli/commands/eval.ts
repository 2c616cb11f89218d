import type { Config } from "../../config/config.ts";
import { evaluate } from "../../eval/evaluate.ts";
import { loadQuestions, splitQuestions } from "../../eval/questions.ts";
import { tuneThresholds } from "../../eval/tune.ts";
import { type Flags, positiveInt, UsageError } from "../flags.ts";
import { formatEvalReport } from "../format.ts";
import { pipelineOf, requireDataDir, requireIndex, withLectern } from "../open-book.ts";

/** `lectern eval --questions <file.jsonl> [--k 5] [--split all|tune|holdout] [--tune] [--json]` */
export async function evalCommand(config: Config, flags: Flags): Promise<number> {
  if (!flags.questions) throw new UsageError("Missing --questions <file.jsonl>.");
  const k = positiveInt(flags.k, "k", 5);
  const split = flags.split ?? "all";
  if (split !== "all" && split !== "tune" && split !== "holdout") {
    throw new UsageError(`--split must be all, tune or holdout, got "${split}".`);
  }
  const allQuestions = await loadQuestions(flags.questions);
  const questions = splitQuestions(allQuestions, flags.tune ? "holdout" : split);
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    requireIndex(lectern);
    let retriever = lectern.retriever;
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
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`${formatEvalReport(metrics, flags.tune ? "holdout" : split)}\n`);
    return 0;
  });
}
