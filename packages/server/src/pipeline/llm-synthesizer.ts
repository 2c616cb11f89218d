import { createError } from "@lectern/engine/errors";
import {
  type AnswerSynthesizer,
  type ExtractiveSynthesizer,
  modelSources,
  type SynthesisInput,
  type SynthesisOutput,
} from "@lectern/engine/pipeline/answer-synthesizer";
import type { RunOptions } from "@lectern/engine/pipeline/types";
import type { Config } from "../config/config.ts";
import type { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { CitationFilter } from "../llm/citations.ts";
import { streamModelText } from "../llm/model-stream.ts";
import { isPromptLeak, PromptGuard } from "../llm/prompt-guard.ts";
import {
  BOOK_SYSTEM_PROMPT,
  bookUserPrompt,
  buildHistory,
  buildPassages,
  NOT_IN_BOOK_REPLY,
  NOT_IN_SELECTION_REPLY,
  SELECTION_SYSTEM_PROMPT,
  selectionUserPrompt,
} from "../llm/prompts.ts";
import type { ChatModelHandle } from "../llm/providers.ts";
import { withRetry } from "../llm/retry.ts";

/** What one completed model answer cost: seconds to the first token, tokens in and out. */
export interface ModelCallReport {
  firstTokenSeconds: number | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

export const MODEL_UNAVAILABLE_MESSAGE =
  "The AI model is unavailable right now, so this answer quotes the most relevant passages of the book.";

/**
 * Grounded answers from a language model. Failures before anything reached the reader degrade to
 * the extractive answer (retrieval_only): an error, no first token in time, a stream cut or
 * stalled (no token for `idleTimeoutMs`) mid-answer on a non-streaming request. A failure after
 * part of the answer was streamed to the reader ends the stream with LLM_UNAVAILABLE
 * (GEMINI_UNAVAILABLE for Gemini). Retries (408/409/429/5xx, with Retry-After) happen only before
 * the first token; the circuit breaker skips the model entirely after repeated failures.
 */
export class LlmSynthesizer implements AnswerSynthesizer {
  readonly kind = "llm";

  constructor(
    private readonly deps: {
      handle: ChatModelHandle;
      config: Config["llm"];
      breaker: CircuitBreaker;
      fallback: ExtractiveSynthesizer;
      sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
      onFailure?: (error: unknown) => void;
      /** Each completed model answer: time to its first token and the tokens used. */
      onModelCall?: (call: ModelCallReport) => void;
    },
  ) {}

  async synthesize(input: SynthesisInput, options: RunOptions = {}): Promise<SynthesisOutput> {
    const { breaker, config } = this.deps;
    if (!breaker.tryAcquire()) return this.degrade(input, options);
    const shown = { any: false };
    try {
      const output = await withRetry(() => this.attempt(input, options, shown), {
        maxRetries: config.maxRetries,
        baseDelayMs: config.retryBaseDelayMs,
        maxDelayMs: config.retryMaxDelayMs,
        signal: options.signal,
        ...(this.deps.sleep ? { sleep: this.deps.sleep } : {}),
      });
      breaker.recordSuccess();
      return output;
    } catch (error) {
      if (options.signal?.aborted) {
        breaker.recordCancelled();
        throw error;
      }
      if (isPromptLeak(error)) {
        // The model answered, so it is up; its answer is not for the reader, nor for the history.
        breaker.recordSuccess();
        this.deps.onFailure?.(error);
        return this.deps.fallback.synthesize(input, options);
      }
      breaker.recordFailure();
      this.deps.onFailure?.(error);
      if (shown.any) {
        throw createError(
          this.deps.handle.unavailableCode,
          "The AI model stopped in the middle of the answer. Please try again.",
          {
            details: { partial: true },
          },
        );
      }
      return this.degrade(input, options);
    }
  }

  private async degrade(input: SynthesisInput, options: RunOptions): Promise<SynthesisOutput> {
    const output = await this.deps.fallback.synthesize(input, options);
    return { ...output, fallbackMessage: MODEL_UNAVAILABLE_MESSAGE, degraded: true };
  }

  private async attempt(
    input: SynthesisInput,
    options: RunOptions,
    shown: { any: boolean },
  ): Promise<SynthesisOutput> {
    const { config, handle } = this.deps;
    const selection = input.selectedText;
    const historyBudget = Math.floor(config.contextTokens * 0.2);
    const history = buildHistory(input.history ?? [], historyBudget);
    const sources = selection !== null ? input.results : modelSources(input);
    const passages = buildPassages(sources, config.contextTokens - historyBudget);
    // The sections read beyond the results are sources of their own, numbered after them.
    const extraSources = sources.slice(input.results.length, passages.count);
    const sourceCount = selection !== null ? 1 : passages.count;
    const prompt =
      selection !== null
        ? selectionUserPrompt(
            input.question,
            selection,
            history,
            config.contextTokens - historyBudget,
          )
        : bookUserPrompt(input.question, passages.text, history);

    const controller = new AbortController();
    const abortWith = (reason: string) => () =>
      controller.abort(Object.assign(new Error(reason), { name: "TimeoutError" }));
    // Until the first token, the first-token timeout; after it, the idle timeout between tokens.
    let waiting = setTimeout(abortWith("no first token in time"), config.firstTokenTimeoutMs);
    const total = setTimeout(abortWith("answer took too long"), config.totalTimeoutMs);
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    const filter = new CitationFilter(sourceCount);
    const guard = new PromptGuard(
      selection !== null ? SELECTION_SYSTEM_PROMPT : BOOK_SYSTEM_PROMPT,
      [NOT_IN_BOOK_REPLY, NOT_IN_SELECTION_REPLY],
    );
    const started = performance.now();
    let firstTokenSeconds: number | undefined;
    let usage: { inputTokens: number | undefined; outputTokens: number | undefined } | undefined;
    try {
      const stream = streamModelText(handle.model, {
        system: guard.system,
        prompt,
        temperature: config.temperature,
        maxOutputTokens: config.maxOutputTokens,
        abortSignal: signal,
      });
      for await (const part of stream) {
        if (part.type === "text") {
          firstTokenSeconds ??= (performance.now() - started) / 1000;
          clearTimeout(waiting);
          waiting = setTimeout(abortWith("the model stopped sending"), config.idleTimeoutMs);
          const visible = filter.push(guard.push(part.text));
          // Only text sent to a streaming reader counts as shown: a non-streaming answer that
          // fails halfway has shown nothing, and falls back to quoting the book.
          if (visible && options.onDelta) {
            shown.any = true;
            options.onDelta(visible);
          }
        } else {
          usage = part;
        }
      }
      if (signal.aborted) throw signal.reason;
      const rest = filter.push(guard.finish()) + filter.finish();
      if (rest && options.onDelta) {
        shown.any = true;
        options.onDelta(rest);
      }
    } finally {
      clearTimeout(waiting);
      clearTimeout(total);
    }
    this.deps.onModelCall?.({
      firstTokenSeconds,
      inputTokens: usage?.inputTokens,
      outputTokens: usage?.outputTokens,
    });
    const answer = filter.answer.trim();
    if (!answer)
      throw Object.assign(new Error("The model returned an empty answer."), {
        name: "EmptyAnswerError",
      });
    if (selection !== null) {
      const unanswerable = answer.startsWith(NOT_IN_SELECTION_REPLY);
      return {
        answer,
        fallbackMessage: null,
        mode: "selected_text",
        answeredFromSelection: !unanswerable,
        citedNumbers: filter.citedNumbers(),
      };
    }
    if (answer.startsWith(NOT_IN_BOOK_REPLY)) {
      return { answer, fallbackMessage: null, mode: "no_results", citedNumbers: [] };
    }
    return {
      answer,
      fallbackMessage: null,
      mode: "full",
      citedNumbers: filter.citedNumbers(),
      ...(extraSources.length > 0 ? { extraSources } : {}),
    };
  }
}
