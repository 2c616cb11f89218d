import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { ChatInput } from "@lectern/engine/pipeline/types";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { createChatService } from "./chat-service.ts";

const SESSION = "3c9d2e1f-0a4b-4c5d-8e6f-7a8b9c0d1e2f";

async function contextSeen(env: Record<string, string>, exchanges: number) {
  const history = new MemoryHistoryStore();
  for (let index = 0; index < exchanges; index++) {
    await history.saveExchange({
      sessionId: SESSION,
      requestId: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
      messageId: `20000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
      query: `question ${index}`,
      selectedText: null,
      response: `answer ${index}`,
      sources: [],
      metadata: {},
    });
  }
  const service = createChatService({
    pipeline: {} as ChatPipeline,
    history,
    config: loadConfig({ env: { HISTORY: "memory", ...env } }),
    logger: pino({ level: "silent" }),
  });
  const input: ChatInput = {
    requestId: "10000000-0000-4000-8000-000000000000",
    sessionId: SESSION,
    query: "next",
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
  };
  const withContext = await service.withHistory(input);
  return {
    context: withContext.history ?? [],
    total: (await history.getHistory(SESSION, 100))?.total,
  };
}

describe("the chat service's context", () => {
  it("gives the model at most HISTORY_MAX_CONTEXT_MESSAGES messages, dropping the oldest", async () => {
    const { context, total } = await contextSeen(
      { HISTORY_WINDOW: "40", HISTORY_MAX_CONTEXT_MESSAGES: "6" },
      10,
    );
    expect(context.map((exchange) => exchange.query)).toEqual([
      "question 7",
      "question 8",
      "question 9",
    ]);
    expect(total).toBe(10); // history keeps every exchange
  });

  it("caps at 50 messages (25 exchanges) by default, within HISTORY_WINDOW", async () => {
    expect((await contextSeen({ HISTORY_WINDOW: "50" }, 30)).context).toHaveLength(25);
    expect((await contextSeen({}, 30)).context).toHaveLength(5);
  });
});
