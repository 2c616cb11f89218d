import { randomUUID } from "node:crypto";
import { createError } from "@lectern/engine/errors";
import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { ChatInput, ChatOutcome, RunOptions } from "@lectern/engine/pipeline/types";
import type { ChatResponse } from "@lectern/protocol";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { HistoryStore } from "../store/history-store.ts";
import type { AnswerCache } from "./answer-cache.ts";

/**
 * The chat service: one turn of a conversation for every entry point that keeps one (the HTTP
 * routes today): the session's recent exchanges as context for a follow-up, the pipeline, and the
 * finished exchange recorded afterwards. Nothing is read or written with HISTORY=off. Each saved
 * turn also goes to the question log when one is given (INSIGHTS, on by default).
 */
export interface ChatService {
  /** Runs one turn: the session's recent exchanges as context, then the pipeline. */
  ask(input: ChatInput, options?: RunOptions): Promise<{ input: ChatInput; outcome: ChatOutcome }>;
  /** Runs a turn whose context was already read with `withHistory` (a stream reads it first). */
  run(input: ChatInput, options?: RunOptions): Promise<ChatOutcome>;
  /** The input with the session's recent exchanges; unchanged when they cannot be read. */
  withHistory(input: ChatInput): Promise<ChatInput>;
  /** Records the answered turn under its message id. */
  saveExchange(input: ChatInput, response: RecordedAnswer): Promise<void>;
  /**
   * A new id for the answer about to be given, which a reader rates it by; null when nothing is
   * kept. Assigned here, never taken from the client: the request id only correlates logs.
   */
  newMessageId(): string | null;
}

/** Where answered questions go for authors' insights (insights/question-log.ts); never awaited. */
export interface QuestionRecorder {
  record(question: AnsweredQuestion): void;
}

export interface AnsweredQuestion {
  input: ChatInput;
  response: RecordedAnswer;
  /** The pipeline's outcome for this input, when this service ran it. */
  outcome: ChatOutcome | undefined;
  askedAt: Date;
}

/** What is stored of an answer: the parts of the response a reader was shown, and its id. */
export type RecordedAnswer = Pick<
  ChatResponse,
  "answer" | "fallback_message" | "sources" | "metadata" | "confidence"
> & { message_id?: string | null | undefined };

export function createChatService(deps: {
  pipeline: ChatPipeline;
  history: HistoryStore;
  config: Config;
  logger: Logger;
  newId?: () => string;
  /** First questions answered before are answered from here (ANSWER_CACHE). */
  answerCache?: AnswerCache | undefined;
  /** Seconds each history write took (to its commit), and whether it succeeded. */
  onHistoryWrite?: ((seconds: number, ok: boolean) => void) | undefined;
  questionLog?: QuestionRecorder | undefined;
  clock?: () => Date;
}): ChatService {
  const { pipeline, history, config, logger, answerCache, questionLog } = deps;
  const newId = deps.newId ?? randomUUID;
  const clock = deps.clock ?? (() => new Date());
  // The outcome of each turn this service ran, for the question log when the turn is saved.
  const outcomes = new WeakMap<ChatInput, ChatOutcome>();
  const service: ChatService = {
    async ask(input, options = {}) {
      const withContext = await service.withHistory(input);
      return { input: withContext, outcome: await service.run(withContext, options) };
    },

    async run(input, options = {}) {
      const cached = answerCache ? await answerCache.lookup(input) : undefined;
      if (cached) {
        if (cached.answer) options.onDelta?.(cached.answer);
        // A cached answer is still a question readers asked: the question log counts it.
        if (questionLog) outcomes.set(input, cached);
        return cached;
      }
      const outcome = await pipeline.run(input, options);
      if (answerCache && !options.signal?.aborted) await answerCache.store(input, outcome);
      if (questionLog) outcomes.set(input, outcome);
      return outcome;
    },

    async withHistory(input) {
      // At most maxContextMessages messages (two per exchange) reach the model; the oldest drop.
      const window = Math.min(
        config.history.window,
        Math.floor(config.history.maxContextMessages / 2),
      );
      // A session made for this turn has nothing stored yet: no read on the request's path.
      if (history.kind === "off" || input.newSession) return input;
      let recent: Awaited<ReturnType<HistoryStore["getHistory"]>>;
      try {
        recent =
          window === 0
            ? await history
                .sessionState(input.sessionId)
                .then((state) => state && { entries: [], total: 0, ended: !!state.endedAt })
            : await history.getHistory(input.sessionId, window);
      } catch (error) {
        logger.warn(
          { err: error, requestId: input.requestId },
          "history unavailable; answering without context",
        );
        return input;
      }
      // An ended conversation takes no new message (seed S2's ENDED is terminal).
      if (recent?.ended) throw createError("SESSION_ENDED");
      if (window === 0) return input;
      return {
        ...input,
        history: (recent?.entries ?? []).map((entry) => ({
          query: entry.query,
          answer: entry.response,
        })),
      };
    },

    async saveExchange(input, response) {
      questionLog?.record({ input, response, outcome: outcomes.get(input), askedAt: clock() });
      if (history.kind === "off") return;
      const started = performance.now();
      let ok = false;
      try {
        await history.saveExchange({
          sessionId: input.sessionId,
          messageId: response.message_id ?? newId(),
          requestId: input.requestId,
          query: input.query,
          selectedText: input.selectedText,
          response: response.answer ?? response.fallback_message ?? "",
          sources: response.sources,
          metadata: { ...response.metadata, confidence: response.confidence },
        });
        ok = true;
      } finally {
        deps.onHistoryWrite?.((performance.now() - started) / 1000, ok);
      }
    },

    newMessageId() {
      return history.kind === "off" ? null : newId();
    },
  };
  return service;
}
