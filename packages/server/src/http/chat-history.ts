import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { ChatInput } from "../pipeline/types.ts";
import type { HistoryStore } from "../store/history-store.ts";
import type { ChatResponse } from "./wire.ts";

/**
 * The conversation around a chat turn: the session's recent exchanges as context for a follow-up,
 * and the finished exchange recorded afterwards. Nothing is read or written with HISTORY=off.
 */
export interface ChatHistory {
  /** The input with the session's recent exchanges; unchanged when they cannot be read. */
  withHistory(input: ChatInput): Promise<ChatInput>;
  /** Records the answered turn. */
  saveExchange(input: ChatInput, response: ChatResponse): Promise<void>;
  /** The id a reader can rate the answer by, or null when nothing is kept. */
  messageId(input: ChatInput): string | null;
}

export function createChatHistory(deps: {
  history: HistoryStore;
  config: Config;
  logger: Logger;
}): ChatHistory {
  const { history, config, logger } = deps;
  return {
    async withHistory(input) {
      if (history.kind === "off" || config.history.window === 0) return input;
      try {
        const recent = await history.getHistory(input.sessionId, config.history.window);
        return {
          ...input,
          history: (recent?.entries ?? []).map((entry) => ({
            query: entry.query,
            answer: entry.response,
          })),
        };
      } catch (error) {
        logger.warn(
          { err: error, requestId: input.requestId },
          "history unavailable; answering without context",
        );
        return input;
      }
    },

    async saveExchange(input, response) {
      if (history.kind === "off") return;
      await history.saveExchange({
        sessionId: input.sessionId,
        requestId: input.requestId,
        query: input.query,
        selectedText: input.selectedText,
        response: response.answer ?? response.fallback_message ?? "",
        sources: response.sources,
        metadata: { ...response.metadata, confidence: response.confidence },
      });
    },

    messageId(input) {
      return history.kind === "off" ? null : input.requestId;
    },
  };
}
