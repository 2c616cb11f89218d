import type { ChatResponse } from "@lectern/protocol";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { AnsweredQuestion } from "../pipeline/chat-service.ts";
import type { QuestionLogEntry, QuestionLogStore } from "../store/question-log-store.ts";
import { BATCH_SIZE, BatchedQuestionLog, toLogEntry } from "./question-log.ts";

function source(number: number, cited?: boolean) {
  return {
    source_type: "book" as const,
    source_url: `/docs/page-${number}#s`,
    title: `Page ${number}`,
    section: "S",
    chunk_position: 0,
    similarity_score: 0.9 - number / 10,
    snippet: "…",
    file_path: `page-${number}.md`,
    section_path: [`Page ${number}`],
    citation_number: number,
    ...(cited === undefined ? {} : { cited }),
  };
}

function answered(query: string, overrides: Partial<ChatResponse> = {}): AnsweredQuestion {
  return {
    input: {
      requestId: crypto.randomUUID(),
      sessionId: crypto.randomUUID(),
      query,
      selectedText: null,
      filters: undefined,
      sourceUrl: null,
      topK: undefined,
    },
    response: {
      answer: "An answer [1].",
      fallback_message: null,
      sources: [source(1, true), source(2, false)],
      confidence: "high",
      message_id: crypto.randomUUID(),
      metadata: {
        query_time_ms: 1,
        retrieval_count: 2,
        mode: "full",
        low_confidence: false,
        request_id: crypto.randomUUID(),
        route: "question",
      },
      ...overrides,
    },
    outcome: undefined,
    askedAt: new Date("2026-03-02T10:00:00Z"),
  };
}

/** A store that records each batch, or fails while `failing` is set. */
function recordingStore() {
  const batches: QuestionLogEntry[][] = [];
  const store = {
    failing: false,
    batches,
    async saveMany(entries: readonly QuestionLogEntry[]) {
      if (store.failing) throw new Error("database down");
      batches.push([...entries]);
    },
  };
  return store;
}

describe("the question log writer", () => {
  it("writes what was recorded in one batch, after the answers", async () => {
    const store = recordingStore();
    const log = new BatchedQuestionLog(store as unknown as QuestionLogStore, {
      flushMs: 60_000,
      keepSelectedText: false,
    });
    log.record(answered("What is a topic?"));
    log.record(answered("What is a node?"));
    expect(store.batches).toEqual([]); // nothing is written while answering
    await log.flush();
    expect(store.batches.map((batch) => batch.map((entry) => entry.question))).toEqual([
      ["What is a topic?", "What is a node?"],
    ]);
  });

  it("writes a full batch at once, and drops a batch the database refused", async () => {
    const store = recordingStore();
    const log = new BatchedQuestionLog(store as unknown as QuestionLogStore, {
      flushMs: 60_000,
      keepSelectedText: false,
      logger: pino({ level: "silent" }),
    });
    store.failing = true;
    log.record(answered("lost"));
    await log.flush();
    store.failing = false;
    for (let index = 0; index < BATCH_SIZE; index++) log.record(answered(`q${index}`));
    await log.close();
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]).toHaveLength(BATCH_SIZE);
    expect(store.batches[0]?.[0]?.question).toBe("q0");
  });

  it("keeps the passages a model answer cites, and skips small talk", () => {
    const entry = toLogEntry(
      {
        ...answered("What is a topic?"),
        outcome: {
          sourceChunks: [
            { id: "c1", contentHash: "h1" },
            { id: "c2", contentHash: "h2" },
          ],
        } as AnsweredQuestion["outcome"],
      },
      false,
    );
    expect(entry?.cited.map((cited) => [cited.chunkId, cited.contentHash, cited.url])).toEqual([
      ["c1", "h1", "/docs/page-1#s"],
    ]);
    expect(entry?.topScore).toBe(0.8);
    const hello = answered("hello");
    hello.response.metadata.route = "greeting";
    expect(toLogEntry(hello, false)).toBeUndefined();
  });
});
