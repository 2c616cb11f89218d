import type { ChatInput, ChatOutcome } from "@lectern/engine/pipeline/types";
import { describe, expect, it } from "vitest";
import {
  type AnswerCacheStore,
  answerCacheKey,
  createAnswerCache,
  normalizeQuestion,
} from "./answer-cache.ts";

const input: ChatInput = {
  requestId: "r1",
  sessionId: "s1",
  query: "What is a node?",
  selectedText: null,
  filters: undefined,
  sourceUrl: null,
  topK: undefined,
};

const outcome: ChatOutcome = {
  answer: "A node is a process [1].",
  fallbackMessage: null,
  sources: [],
  mode: "retrieval_only",
  lowConfidence: false,
  confidence: "high",
  retrievalCount: 1,
  route: "question",
  injectionFlagged: false,
  searchQuery: "What is a node?",
  degraded: false,
  support: 0.9,
  timings: { retrieve: 3, total: 4 },
  states: ["RECEIVED", "RETRIEVING", "GENERATING", "COMPLETED"],
};

class MapStore implements AnswerCacheStore {
  readonly entries = new Map<string, { value: string; ttlSeconds: number }>();
  async get(key: string) {
    return this.entries.get(key)?.value;
  }
  async set(key: string, value: string, ttlSeconds: number) {
    this.entries.set(key, { value, ttlSeconds });
  }
}

describe("answer cache keys", () => {
  it("ignore case, spacing and closing punctuation of the question", () => {
    expect(normalizeQuestion("  What IS a\tnode ?! ")).toBe("what is a node");
    expect(answerCacheKey({ ...input, query: "what is a   NODE" }, "v1")).toBe(
      answerCacheKey(input, "v1"),
    );
  });

  it("differ by scope (index version, settings), selection, filters, top-k and page", () => {
    const key = answerCacheKey(input, "v1");
    const others = [
      answerCacheKey(input, "v2"),
      answerCacheKey({ ...input, query: "What is a topic?" }, "v1"),
      answerCacheKey({ ...input, selectedText: "A node is…" }, "v1"),
      answerCacheKey({ ...input, filters: { section: "Nodes" } }, "v1"),
      answerCacheKey({ ...input, topK: 3 }, "v1"),
      answerCacheKey({ ...input, sourceUrl: "https://example.com/docs/a" }, "v1"),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });
});

describe("createAnswerCache", () => {
  it("keeps a complete first answer with its TTL, and returns it without this run's timings", async () => {
    const store = new MapStore();
    const results: string[] = [];
    let scope = "v1";
    const cache = createAnswerCache({
      store,
      ttlSeconds: 60,
      scope: () => scope,
      onResult: (result) => results.push(result),
    });
    expect(await cache.lookup(input)).toBeUndefined();
    await cache.store(input, outcome);
    expect([...store.entries.values()].map((entry) => entry.ttlSeconds)).toEqual([60]);
    const hit = await cache.lookup({ ...input, sessionId: "s2", requestId: "r2" });
    expect(hit).toMatchObject({ answer: outcome.answer, mode: "retrieval_only", degraded: false });
    expect(hit?.states).toEqual(["RECEIVED", "COMPLETED"]);
    expect(Object.keys(hit?.timings ?? {}).sort()).toEqual(["cache", "total"]);
    scope = "v2";
    expect(await cache.lookup(input)).toBeUndefined();
    expect(results).toEqual(["miss", "stored", "hit", "miss"]);
  });

  it("neither looks up nor keeps a follow-up, a degraded answer or an unfinished run", async () => {
    const store = new MapStore();
    const cache = createAnswerCache({ store, ttlSeconds: 60, scope: () => "v1" });
    const followUp = { ...input, history: [{ query: "What is ROS?", answer: "A framework." }] };
    await cache.store(followUp, outcome);
    await cache.store(input, { ...outcome, degraded: true });
    await cache.store(input, { ...outcome, states: ["RECEIVED", "RETRIEVING", "FAILED"] });
    expect(store.entries.size).toBe(0);
    await cache.store(input, outcome);
    expect(await cache.lookup(followUp)).toBeUndefined();
  });

  it("treats a store that fails as a miss and reports the error", async () => {
    const errors: unknown[] = [];
    const cache = createAnswerCache({
      store: {
        get: () => Promise.reject(new Error("down")),
        set: () => Promise.reject(new Error("down")),
      },
      ttlSeconds: 60,
      scope: () => "v1",
      onError: (error) => errors.push(error),
    });
    expect(await cache.lookup(input)).toBeUndefined();
    await cache.store(input, outcome);
    expect(errors).toHaveLength(2);
  });
});
