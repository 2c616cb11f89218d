import { NO_RESULTS_MESSAGE } from "@lectern/engine/pipeline/answer-synthesizer";
import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { ChatOutcome } from "@lectern/engine/pipeline/types";
import type { Config } from "../../config/config.ts";
import type { Exchange } from "../../llm/prompts.ts";
import { type Flags, positiveInt } from "../flags.ts";
import { formatSources } from "../format.ts";
import { pipelineOf, requireDataDir, requireIndex, withBook } from "../open-book.ts";

/**
 * `lectern ask "<question>" [--top-k 5] [--source-url-prefix …] [--section …] [--json]`; the
 * arguments were checked by `checkUsage`.
 */
export async function askCommand(config: Config, flags: Flags, question: string): Promise<number> {
  const topK = positiveInt(flags["top-k"], "top-k", config.search.topK);
  requireDataDir(config);
  return withBook(config, async (lectern) => {
    requireIndex(lectern);
    const outcome = await askTurn(pipelineOf(lectern), question, {
      topK,
      sourceUrlPrefix: flags["source-url-prefix"],
      section: flags.section,
      version: flags["doc-version"],
      locale: flags.locale,
    });
    if (flags.json) {
      const body = {
        query: question,
        answer: outcome.answer,
        fallback_message: outcome.fallbackMessage,
        mode: outcome.mode,
        low_confidence: outcome.lowConfidence,
        confidence: outcome.confidence,
        route: outcome.route,
        search_query: outcome.searchQuery,
        sources: outcome.sources,
        ...(outcome.suggestions ? { suggestions: outcome.suggestions } : {}),
      };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return 0;
    }
    printAnswer(outcome);
    return 0;
  });
}

let turnCounter = 0;

/** One turn through the chat pipeline, as `POST /chat` answers it. */
export async function askTurn(
  pipeline: ChatPipeline,
  question: string,
  options: {
    topK?: number;
    sourceUrlPrefix?: string | undefined;
    section?: string | undefined;
    /** The docs version of a versioned book (default: the latest). */
    version?: string | undefined;
    /** The locale of a translated book (default: its default locale). */
    locale?: string | undefined;
    history?: Exchange[];
  } = {},
): Promise<ChatOutcome> {
  turnCounter++;
  const filters =
    options.sourceUrlPrefix || options.section || options.version || options.locale
      ? {
          sourceUrlPrefix: options.sourceUrlPrefix,
          section: options.section,
          ...(options.version ? { version: options.version } : {}),
          ...(options.locale ? { locale: options.locale } : {}),
        }
      : undefined;
  return pipeline.run({
    requestId: `cli-${turnCounter}`,
    sessionId: "cli",
    query: question,
    selectedText: null,
    filters,
    sourceUrl: null,
    topK: options.topK,
    history: options.history ?? [],
  });
}

/** The answer as text: the answer (or the fallback), a low-confidence note, then the sources. */
export function printAnswer(outcome: ChatOutcome): void {
  if (outcome.mode === "no_results" || outcome.answer === null) {
    process.stdout.write(`${outcome.fallbackMessage ?? NO_RESULTS_MESSAGE}\n`);
    return;
  }
  const note = outcome.lowConfidence
    ? "\n(Low confidence: the best passages only partly match the question.)"
    : "";
  const sources = outcome.sources.length ? `\n\nSources:\n${formatSources(outcome.sources)}` : "";
  const next = outcome.suggestions?.length
    ? `\n\nYou could also ask:\n${outcome.suggestions.map((question) => `  ${question}`).join("\n")}`
    : "";
  process.stdout.write(`${outcome.answer}${note}${sources}${next}\n`);
}
