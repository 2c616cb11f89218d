import type { Citation, Confidence, SelectedTextCitation, SourceCitation } from "../http/wire.ts";
import type { RetrievedChunk, Retriever } from "../search/retriever.ts";
import { type AnswerSynthesizer, emitInPieces, NO_RESULTS_MESSAGE } from "./answer-synthesizer.ts";
import type { QueryRewriter } from "./query-rewriter.ts";
import { routeQuery } from "./query-router.ts";
import type { ChatInput, ChatOutcome, RequestState, RunOptions } from "./types.ts";

/**
 * The orchestrator (the seeds' RAGChatAgent): QueryRouter → Retriever → AnswerSynthesizer, with
 * per-stage timings and the request state machine RECEIVED → RETRIEVING → GENERATING →
 * COMPLETED / FAILED. Failures propagate to the caller, which hands them to ErrorRecovery.
 */
export class ChatPipeline {
  constructor(
    private readonly deps: {
      retriever: () => Retriever;
      synthesizer: AnswerSynthesizer;
      rewriter?: QueryRewriter;
      now?: () => number;
    },
  ) {}

  async run(input: ChatInput, options: RunOptions = {}): Promise<ChatOutcome> {
    const now = this.deps.now ?? (() => performance.now());
    const started = now();
    const states: RequestState[] = ["RECEIVED"];
    const timings: Record<string, number> = {};
    const time = async <T>(stage: string, work: () => Promise<T> | T): Promise<T> => {
      const stageStart = now();
      try {
        return await work();
      } finally {
        timings[stage] = round(now() - stageStart);
      }
    };

    try {
      const routed = await time("route", () => routeQuery(input.query));
      const base = {
        route: routed.route,
        injectionFlagged: routed.injectionFlagged,
        searchQuery: null as string | null,
        support: undefined as number | undefined,
        degraded: false,
      };
      const history = input.history ?? [];

      if (routed.reply && input.selectedText === null) {
        states.push("GENERATING");
        await emitInPieces(routed.reply, options);
        states.push("COMPLETED");
        return finish({
          ...base,
          answer: routed.reply,
          fallbackMessage: null,
          sources: [],
          mode: "full",
          lowConfidence: false,
          confidence: "high",
          retrievalCount: 0,
        });
      }

      if (input.selectedText !== null) {
        // Selected-text mode: no retrieval, the answer comes from the selection only.
        states.push("GENERATING");
        const output = await time("generate", () =>
          this.deps.synthesizer.synthesize(
            { question: routed.normalized, results: [], selectedText: input.selectedText, history },
            options,
          ),
        );
        const citation: SelectedTextCitation = {
          source_type: "selected_text",
          selection_length: input.selectedText.length,
          snippet: input.selectedText.slice(0, 200),
          relevance_note: output.answeredFromSelection
            ? "The answer quotes the sentences of the selection that match the question."
            : "The selection does not contain the answer to this question.",
          source_url: input.sourceUrl,
          citation_number: 1,
        };
        states.push("COMPLETED");
        return finish({
          ...base,
          degraded: output.degraded ?? false,
          answer: output.answer,
          fallbackMessage: output.fallbackMessage,
          sources: [citation],
          mode: "selected_text",
          lowConfidence: !output.answeredFromSelection,
          confidence: output.answeredFromSelection ? "high" : "low",
          retrievalCount: 0,
        });
      }

      // A follow-up is searched as a standalone question rewritten with the conversation so far.
      const searchQuery =
        history.length > 0 && this.deps.rewriter
          ? await time(
              "rewrite",
              () =>
                this.deps.rewriter?.rewrite(routed.normalized, history, options.signal) ??
                routed.normalized,
            )
          : routed.normalized;
      states.push("RETRIEVING");
      const retrieval = await time("retrieve", () =>
        this.deps.retriever().search(searchQuery, {
          ...(input.topK ? { topK: input.topK } : {}),
          ...(input.filters ? { filters: input.filters } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      );
      base.searchQuery = searchQuery;
      base.support = retrieval.signals.support;
      if (options.signal?.aborted) throw abortError();

      if (retrieval.decision === "no_results") {
        states.push("GENERATING");
        states.push("COMPLETED");
        return finish({
          ...base,
          answer: null,
          fallbackMessage: NO_RESULTS_MESSAGE,
          sources: [],
          mode: "no_results",
          lowConfidence: false,
          confidence: "low",
          retrievalCount: retrieval.results.length,
        });
      }

      states.push("GENERATING");
      const output = await time("generate", () =>
        this.deps.synthesizer.synthesize(
          { question: routed.normalized, results: retrieval.results, selectedText: null, history },
          options,
        ),
      );
      states.push("COMPLETED");
      if (output.mode === "no_results") {
        // The model read the passages and found no answer in them.
        return finish({
          ...base,
          answer: output.answer,
          fallbackMessage: NO_RESULTS_MESSAGE,
          sources: [],
          mode: "no_results",
          lowConfidence: false,
          confidence: "low",
          retrievalCount: retrieval.results.length,
        });
      }
      const cited = output.citedNumbers ? new Set(output.citedNumbers) : undefined;
      const sources = retrieval.results.map((result, index) => ({
        ...toCitation(result, index),
        ...(cited ? { cited: cited.has(index + 1) } : {}),
      }));
      return finish({
        ...base,
        degraded: output.degraded ?? false,
        answer: output.answer,
        fallbackMessage: output.fallbackMessage,
        sources,
        mode: output.mode,
        lowConfidence: retrieval.lowConfidence,
        confidence: confidenceOf(sources),
        retrievalCount: retrieval.results.length,
      });
    } catch (error) {
      states.push("FAILED");
      (error as { pipelineStates?: RequestState[] }).pipelineStates = states;
      throw error;
    }

    function finish(outcome: Omit<ChatOutcome, "timings" | "states">): ChatOutcome {
      timings.total = round(now() - started);
      return { ...outcome, timings, states };
    }
  }
}

export function toCitation(result: RetrievedChunk, index: number): SourceCitation {
  return {
    source_type: "book",
    source_url: result.chunk.url,
    title: result.chunk.title,
    section: result.chunk.section,
    chunk_position: result.chunk.chunkIndex,
    similarity_score: result.similarityScore,
    snippet: result.chunk.text.slice(0, 200),
    file_path: result.chunk.filePath,
    section_path: result.chunk.headingPath,
    citation_number: index + 1,
  };
}

/**
 * Seed S4's confidence rule: high when the top source scores above 0.75 and there are at least two
 * sources; medium when the mean score is above 0.5; low otherwise (and with no sources).
 */
export function confidenceOf(sources: Citation[]): Confidence {
  const scores = sources.map((source) =>
    "similarity_score" in source ? source.similarity_score : 0,
  );
  if (scores.length === 0) return "low";
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  if ((scores[0] ?? 0) > 0.75 && scores.length >= 2) return "high";
  if (mean > 0.5) return "medium";
  return "low";
}

function abortError(): Error {
  const error = new Error("The request was cancelled.");
  error.name = "AbortError";
  return error;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
