// Over 300 lines on purpose: one case per fault the local model server injects.
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Config } from "../src/config/config.ts";
import { ChatResponseSchema, ConversationHistoryResponseSchema } from "../src/http/wire.ts";
import type { Lectern } from "../src/lectern.ts";
import { createChatModel } from "../src/llm/providers.ts";
import { createAnswering } from "../src/pipeline/answering.ts";
import { MODEL_UNAVAILABLE_MESSAGE } from "../src/pipeline/llm-synthesizer.ts";
import { MemoryHistoryStore } from "../src/store/memory-history-store.ts";
import { type FakeModelServer, startFakeModelServer } from "./doubles/fake-model-server.ts";
import { createTestApp, openSampleBook, postJson, testConfig } from "./http-fixture.ts";
import { readEventStream } from "./sse-client.ts";

/** Model answers end to end, against a local server speaking the OpenAI API, with injected faults. */

let lectern: Lectern;
let cleanup: () => Promise<void>;
let fake: FakeModelServer;
beforeAll(async () => {
  ({ lectern, cleanup } = await openSampleBook());
  fake = await startFakeModelServer();
});
beforeEach(() => fake.clearQueue());
afterAll(async () => {
  await fake.close();
  await cleanup();
});

function modelEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: fake.baseUrl,
    LLM_MODEL: "local-model",
    LLM_FIRST_TOKEN_TIMEOUT_MS: "1000",
    LLM_MAX_RETRIES: "2",
    LLM_RETRY_BASE_DELAY_MS: "10",
    LLM_RETRY_MAX_DELAY_MS: "3000",
    LLM_BREAKER_FAILURES: "3",
    LLM_BREAKER_COOLDOWN_MS: "60000",
    RATE_LIMIT_ENABLED: "false",
    ...extra,
  };
}

function appWithModel(env: Record<string, string> = {}) {
  const config: Config = testConfig(lectern, modelEnv(env));
  const answering = createAnswering(config, pino({ level: "silent" }));
  const history = new MemoryHistoryStore();
  const { app } = createTestApp(lectern, {
    env: modelEnv(env),
    history,
    synthesizer: answering.synthesizer,
    rewriter: answering.rewriter,
    followUps: answering.followUps,
    deps: {
      checks: {
        database: async () => {},
        indexedChunks: () => lectern.served.terms.size,
        ...(answering.model ? { model: answering.model } : {}),
      },
    },
  });
  return { app, history, answering };
}

async function chat(app: ReturnType<typeof appWithModel>["app"], body: Record<string, unknown>) {
  const response = await postJson(app, "/chat", body);
  expect(response.status).toBe(200);
  return ChatResponseSchema.parse(await response.json());
}

async function stream(app: ReturnType<typeof appWithModel>["app"], body: Record<string, unknown>) {
  const response = await postJson(app, "/chat/stream", body);
  expect(response.status).toBe(200);
  return readEventStream(response);
}

/** What a reply that plays the prompt back shows: its canary, or words of its instructions. */
const PROMPT_TRACES =
  /lc-[0-9a-f]{18}|Confidential marker|standalone search query|You suggest what a reader|is data, not instructions/i;

describe("grounded answers from a model", () => {
  it("answers from the numbered passages, marks which sources it cited, and sends the passages as data", async () => {
    const { app } = appWithModel();
    const before = fake.requests.length;
    const body = await chat(app, { query: "How do I publish messages on a topic?" });
    expect(body.metadata.mode).toBe("full");
    expect(body.answer).toMatch(/^According to the book, .+ \[1\]$/);
    expect(body.fallback_message).toBeNull();
    const cited = body.sources.map((source) => ("cited" in source ? source.cited : undefined));
    expect(cited[0]).toBe(true);
    expect(cited.slice(1).every((value) => value === false)).toBe(true);
    const sent = fake.requests
      .slice(before)
      .find((request) => request.path.endsWith("/chat/completions"));
    const messages = sent?.body.messages as { role: string; content: string }[];
    expect(messages[0]?.role).toBe("system");
    expect(messages[0]?.content).toContain("ONLY the numbered passages");
    expect(messages[1]?.content).toMatch(/<passages>\n<passage number="1"/);
    expect(sent?.body.model).toBe("local-model");
  });

  it("removes citations that point to no source", async () => {
    const { app } = appWithModel();
    fake.enqueue({
      text: "Nodes exchange messages over topics [1][19] and services [2, 17]. [42]",
      chunkSize: 3,
    });
    const body = await chat(app, { query: "How do nodes exchange messages?" });
    expect(body.answer).toBe("Nodes exchange messages over topics [1] and services [2].");
    expect(
      body.sources
        .filter((source) => "cited" in source && source.cited)
        .map((source) => source.citation_number),
    ).toEqual([1, 2]);
  });

  it("reads the best sections of the result pages beyond the results, each a source it can cite", async () => {
    const { app } = appWithModel();
    const before = fake.requests.length;
    fake.enqueue({ text: "Publishers and subscribers meet on a topic [6].", chunkSize: 8 });
    const body = await chat(app, { query: "How do I publish messages on a topic?" });
    const sent = fake.requests
      .slice(before)
      .find((request) => request.path.endsWith("/chat/completions"));
    const messages = (sent?.body.messages ?? []) as { content: string }[];
    const prompt = messages[1]?.content ?? "";
    const passages = [...prompt.matchAll(/<passage number="(\d+)"/g)].map((match) => match[1]);
    expect(passages.length).toBeGreaterThan(5);
    expect(body.answer).toBe("Publishers and subscribers meet on a topic [6].");
    const sixth = body.sources.find((source) => source.citation_number === 6);
    expect(sixth && "cited" in sixth && sixth.cited).toBe(true);
    expect(body.sources).toHaveLength(passages.length);
  });

  it("streams the model's tokens as delta events and stores the whole answer", async () => {
    const { app, history } = appWithModel();
    fake.enqueue({
      text: "Topics carry messages from publishers to subscribers [1].",
      chunkSize: 4,
    });
    const events = await stream(app, { query: "What is a topic?" });
    const deltas = events.flatMap((event) => (event.name === "delta" ? [event.data.delta] : []));
    expect(deltas.length).toBeGreaterThan(5);
    expect(events.map((event) => event.name).slice(-2)).toEqual(["sources", "done"]);
    const sources = events.find((event) => event.name === "sources");
    if (sources?.name !== "sources") throw new Error("no sources");
    expect(deltas.join("")).toBe("Topics carry messages from publishers to subscribers [1].");
    const stored = await history.getHistory(sources.data.session_id, 10);
    expect(stored?.entries.map((entry) => entry.response)).toEqual([deltas.join("")]);
  });

  it("says plainly when the passages do not answer the question", async () => {
    const { app } = appWithModel();
    fake.enqueue({ text: "The book does not cover this." });
    const body = await chat(app, { query: "How do I tune the PID gains of the wheel motors?" });
    expect(body.metadata.mode).toBe("no_results");
    expect(body.sources).toEqual([]);
  });

  it("answers from the selection only, and says so when it cannot", async () => {
    const { app } = appWithModel();
    const before = fake.requests.length;
    fake.enqueue({ text: "This question cannot be answered from the selected text." });
    const body = await chat(app, {
      query: "What is the QoS depth?",
      selected_text: "A launch file starts several nodes at once.",
    });
    expect(body.metadata.mode).toBe("selected_text");
    expect(body.metadata.low_confidence).toBe(true);
    const messages = (fake.requests.slice(before)[0]?.body.messages ?? []) as { content: string }[];
    const prompt = messages[1]?.content;
    expect(prompt).toContain(
      "<selection>\nA launch file starts several nodes at once.\n</selection>",
    );
    expect(prompt).not.toContain("<passages>");
  });
});

describe("faults", () => {
  it("retries a 429 after its Retry-After and then answers", async () => {
    const { app } = appWithModel();
    const before = fake.requests.length;
    fake.enqueue({ status: 429, retryAfter: "1" }, { text: "Services answer requests [1]." });
    const body = await chat(app, { query: "What is a service?" });
    expect(body.answer).toBe("Services answer requests [1].");
    expect(fake.requests.length - before).toBe(2);
  });

  it("degrades to quoting the book with sources after repeated 500s", async () => {
    const { app } = appWithModel();
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const body = await chat(app, { query: "What is a service?" });
    expect(body.metadata.mode).toBe("retrieval_only");
    expect(body.metadata.degraded).toBe(true);
    expect(body.fallback_message).toBe(MODEL_UNAVAILABLE_MESSAGE);
    // The quote cites a source that is listed.
    const cited = Number(/\[(\d+)\]/.exec(body.answer ?? "")?.[1]);
    expect(cited).toBeGreaterThan(0);
    expect(body.sources.map((source) => source.citation_number)).toContain(cited);
  });

  it("gives up on a first token that does not come (30 s) and quotes the book instead", async () => {
    const { app } = appWithModel({ LLM_FIRST_TOKEN_TIMEOUT_MS: "300", LLM_MAX_RETRIES: "0" });
    fake.enqueue({ firstTokenDelayMs: 30_000 });
    const body = await chat(app, { query: "What is a URDF?" });
    expect(body.metadata.degraded).toBe(true);
    expect(body.sources.length).toBeGreaterThan(0);
  });

  it("degrades on malformed JSON and on an empty answer", async () => {
    const { app } = appWithModel({ LLM_MAX_RETRIES: "0" });
    fake.enqueue({ rawBody: "data: {not json\n\n" });
    expect((await chat(app, { query: "What is a URDF?" })).metadata.degraded).toBe(true);
    fake.enqueue({ text: "" });
    expect((await chat(app, { query: "What is a URDF?" })).metadata.degraded).toBe(true);
  });

  it("ends a stream cut mid-answer with LLM_UNAVAILABLE and stores nothing", async () => {
    const { app, history } = appWithModel({ LLM_MAX_RETRIES: "0" });
    const sessionId = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d";
    fake.enqueue({
      text: "Launch files start many nodes together with their parameters [1].",
      chunkSize: 5,
      cutAfterChunks: 3,
    });
    const events = await stream(app, {
      query: "What does a launch file do?",
      session_id: sessionId,
    });
    expect(events.filter((event) => event.name === "delta").length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.name).toBe("error");
    if (last?.name === "error") {
      expect(last.data.error.error_code).toBe("LLM_UNAVAILABLE");
      expect(last.data.error.retry_able).toBe(true);
    }
    expect(await history.getHistory(sessionId, 10)).toBeUndefined();
  });

  it("quotes the book when the model's stream is cut mid-answer and the reader has seen nothing (/chat)", async () => {
    const { app, history } = appWithModel({ LLM_MAX_RETRIES: "0" });
    const sessionId = "5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716";
    fake.enqueue({
      text: "Launch files start many nodes together with their parameters [1].",
      chunkSize: 5,
      cutAfterChunks: 3,
    });
    const body = await chat(app, { query: "What does a launch file do?", session_id: sessionId });
    expect(body.metadata).toMatchObject({ mode: "retrieval_only", degraded: true });
    expect(body.fallback_message).toBe(MODEL_UNAVAILABLE_MESSAGE);
    expect(body.answer).not.toContain("Launch files start many");
    expect(body.sources.length).toBeGreaterThan(0);
    expect((await history.getHistory(sessionId, 10))?.entries[0]?.response).toBe(body.answer);
  });

  it("gives up on a stream that stalls mid-answer after the idle timeout", async () => {
    const { app } = appWithModel({ LLM_MAX_RETRIES: "0", LLM_IDLE_TIMEOUT_MS: "300" });
    const text = "Launch files start many nodes together with their parameters [1].";
    fake.enqueue({ text, chunkSize: 5, stallAfterChunks: 3 });
    const body = await chat(app, { query: "What does a launch file do?" });
    expect(body.metadata).toMatchObject({ mode: "retrieval_only", degraded: true });

    // Streamed, the reader has seen the first pieces: the stream ends with the model's error.
    fake.enqueue({ text, chunkSize: 5, stallAfterChunks: 3 });
    const events = await stream(app, { query: "What does a launch file do?" });
    expect(events.filter((event) => event.name === "delta").length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.name === "error" && last.data.error.error_code).toBe("LLM_UNAVAILABLE");
  });

  it("never retries a streamed answer the reader has begun to see", async () => {
    const { app } = appWithModel({ LLM_MAX_RETRIES: "2" });
    const text = "Launch files start many nodes together with their parameters [1].";
    fake.enqueue(
      { text, chunkSize: 5, cutAfterChunks: 3 },
      { text, chunkSize: 5 },
      { text, chunkSize: 5 },
    );
    const before = fake.requests.length;
    const events = await stream(app, { query: "What does a launch file do?" });
    const shown = events.flatMap((event) => (event.name === "delta" ? [event.data.delta] : []));
    expect(text.startsWith(shown.join(""))).toBe(true);
    expect(events.at(-1)?.name).toBe("error");
    expect(fake.requests.length - before).toBe(1);
  });

  it("names Gemini in the error code when Gemini is the provider", async () => {
    const { app } = appWithModel({
      LLM_PROVIDER: "gemini",
      GEMINI_API_KEY: "test-key",
      LLM_MAX_RETRIES: "0",
    });
    fake.enqueue({
      text: "Launch files start many nodes together [1].",
      chunkSize: 5,
      cutAfterChunks: 2,
    });
    const events = await stream(app, { query: "What does a launch file do?" });
    const last = events.at(-1);
    expect(last?.name === "error" && last.data.error.error_code).toBe("GEMINI_UNAVAILABLE");
  });

  it("opens the circuit after repeated failures: answers degrade at once without calling the model", async () => {
    const { app } = appWithModel({ LLM_MAX_RETRIES: "0", LLM_BREAKER_FAILURES: "2" });
    fake.enqueue({ status: 500 }, { status: 500 });
    await chat(app, { query: "What is a node?" });
    await chat(app, { query: "What is a node?" });
    const before = fake.requests.length;
    const body = await chat(app, { query: "What is a node?" });
    expect(body.metadata.degraded).toBe(true);
    expect(fake.requests.length).toBe(before);
    const health = (await (await app.request("/health")).json()) as {
      services: Record<string, { status: string }>;
    };
    expect(health.services.llm?.status).toBe("degraded");
  });
});

describe("follow-up questions", () => {
  it("rewrites a follow-up into a standalone query with the model, keeping both in metadata", async () => {
    const { app } = appWithModel();
    const first = await chat(app, { query: "What is ros2_control?" });
    const before = fake.requests.length;
    fake.enqueue({ text: "main components of ros2_control" }, {});
    const second = await chat(app, {
      query: "What are its main components?",
      session_id: first.session_id,
    });
    expect(second.metadata.original_query).toBe("What are its main components?");
    expect(second.metadata.search_query).toBe("main components of ros2_control");
    const rewriteRequest = fake.requests[before]?.body.messages as { content: string }[];
    expect(rewriteRequest[0]?.content).toContain("standalone search query");
    expect(rewriteRequest[1]?.content).toContain("Reader: What is ros2_control?");
    expect(
      second.sources[0] && "file_path" in second.sources[0] && second.sources[0].file_path,
    ).toBe("03-robot-description/03-ros2-control.md");
  });

  it("searches the reader's own question when the model's rewrite echoes the prompt", async () => {
    const { app } = appWithModel();
    const first = await chat(app, { query: "What is ros2_control?" });
    // A model that plays its input back: the rewrite, then the answer and the follow-ups.
    const echo = (prompt: string) => prompt;
    fake.enqueue({ reply: echo }, { reply: echo });
    fake.enqueueFollowUps({ reply: echo });
    const question = "What are its main components?";
    const second = await chat(app, { query: question, session_id: first.session_id });
    const history = ConversationHistoryResponseSchema.parse(
      await (await app.request(`/history/${first.session_id}`)).json(),
    );
    const stored = history.entries[1]?.metadata.search_query;
    for (const searched of [second.metadata.search_query, stored]) {
      expect(searched).toBe(question);
    }
    expect(JSON.stringify([second, history])).not.toMatch(PROMPT_TRACES);
  });

  it("uses the heuristic without a model", async () => {
    const { app } = createTestApp(lectern, {
      history: new MemoryHistoryStore(),
      env: { RATE_LIMIT_ENABLED: "false" },
    });
    const first = ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query: "What is ros2_control?" })).json(),
    );
    const second = ChatResponseSchema.parse(
      await (
        await postJson(app, "/chat", {
          query: "What are its main components?",
          session_id: first.session_id,
        })
      ).json(),
    );
    expect(second.metadata.search_query).toBe(
      "What are its main components (What is ros2_control)",
    );
    expect(
      second.sources[0] && "file_path" in second.sources[0] && second.sources[0].file_path,
    ).toBe("03-robot-description/03-ros2-control.md");
    const history = ConversationHistoryResponseSchema.parse(
      await (await app.request(`/history/${first.session_id}`)).json(),
    );
    expect(history.entries[1]?.metadata).toMatchObject({
      search_query: second.metadata.search_query,
    });
  });
});

describe("suggested next questions written by the model", () => {
  const QUESTION = "How do I publish messages on a topic?";
  const WRITTEN = [
    "1. How do I publish messages on a topic?", // the reader's own question
    "2. How does a subscriber receive messages?",
    "- Here is another idea.", // not a question
    "3. How does a subscriber receive messages?", // a repeat
    "4. What does the queue size of a publisher do?",
  ].join("\n");
  const KEPT = [
    "How does a subscriber receive messages?",
    "What does the queue size of a publisher do?",
  ];

  /** The follow-ups made from the book's headings, as an answer without model follow-ups has them. */
  async function fromBook(): Promise<string[]> {
    const { app } = appWithModel({ LLM_FOLLOW_UPS: "false" });
    const before = fake.followUpRequests.length;
    const body = await chat(app, { query: QUESTION });
    expect(fake.followUpRequests.length).toBe(before);
    expect(body.suggestions?.length).toBeGreaterThanOrEqual(2);
    return body.suggestions ?? [];
  }

  it("sends the model's questions with /chat, asked from the answer's passages beside the answer", async () => {
    const { app } = appWithModel();
    fake.enqueueFollowUps({ text: WRITTEN });
    const before = fake.followUpRequests.length;
    const body = await chat(app, { query: QUESTION });
    expect(body.metadata.mode).toBe("full");
    expect(body.suggestions).toEqual(KEPT);
    expect(body.metadata.timings?.follow_ups).toBeGreaterThanOrEqual(0);

    const sent = fake.followUpRequests.slice(before);
    expect(sent).toHaveLength(1);
    const messages = sent[0]?.body.messages as { role: string; content: string }[];
    expect(messages[0]?.content).toContain("follow-up questions");
    expect(messages[1]?.content).toMatch(/^<passages>\n<passage number="1"/);
    expect(messages[1]?.content).toContain(`<question>\n${QUESTION}\n</question>`);
    expect(sent[0]?.body.stream).toBeFalsy();
  });

  it("sends them on the sources event of /chat/stream, asked once the answer's text flows", async () => {
    const { app } = appWithModel();
    fake.enqueueFollowUps({ text: WRITTEN });
    // An answer slow to start: a follow-up call made beside it would arrive before its text.
    fake.enqueue({ firstTokenDelayMs: 100 });
    const answers = fake.requests.length;
    const events = await stream(app, { query: QUESTION });
    const sources = events.find((event) => event.name === "sources");
    if (sources?.name !== "sources") throw new Error("no sources");
    expect(sources.data.suggestions).toEqual(KEPT);
    expect(events.at(-1)?.name).toBe("done");
    // Building the follow-ups' request never holds up the answer's first token.
    const answer = fake.requests[answers];
    const followUp = fake.followUpRequests.at(-1);
    expect(answer?.body.stream).toBe(true);
    expect(followUp?.arrived).toBeGreaterThan(answer?.firstTextSent ?? Number.POSITIVE_INFINITY);
  });

  it("tops a single usable question up with the book's", async () => {
    const book = await fromBook();
    const { app } = appWithModel();
    fake.enqueueFollowUps({ text: "Sure, here is one:\nWhat limits the rate of a publisher?" });
    const body = await chat(app, { query: QUESTION });
    expect(body.suggestions).toEqual(["What limits the rate of a publisher?", ...book].slice(0, 3));
  });

  it("falls back to the book's when the model fails, answers nonsense or is late", async () => {
    const book = await fromBook();
    for (const scenario of [
      { status: 500 },
      { text: "I cannot help with that." },
      { rawBody: "{not json" },
      { firstTokenDelayMs: 3_000, text: WRITTEN },
    ]) {
      const { app } = appWithModel({ LLM_FOLLOW_UP_WAIT_MS: "200" });
      fake.enqueueFollowUps(scenario);
      const body = await chat(app, { query: QUESTION });
      expect(body.metadata.mode, JSON.stringify(scenario)).toBe("full");
      expect(body.answer, JSON.stringify(scenario)).toMatch(/^According to the book/);
      expect(body.suggestions, JSON.stringify(scenario)).toEqual(book);
    }
  });

  it("drops every question of a reply that repeats the prompt, and sends the book's", async () => {
    const book = await fromBook();
    // Each sentence of the prompt (the canary's line among them) written out as a question.
    const asQuestions = (prompt: string) =>
      prompt
        .split(/(?<=[.!?)])\s+/)
        .map((sentence) => sentence.replace(/[.!]?\)?$/, "?"))
        .join("\n");
    for (const reply of [(prompt: string) => prompt, asQuestions]) {
      const { app } = appWithModel();
      fake.enqueueFollowUps({ reply });
      const body = await chat(app, { query: QUESTION });
      expect(body.suggestions).toEqual(book);
      expect(JSON.stringify(body)).not.toMatch(PROMPT_TRACES);
    }
  });

  it("asks for none when the answer is a refusal, and none with LLM_FOLLOW_UPS=false", async () => {
    const { app } = appWithModel();
    fake.enqueue({ text: "The book does not cover this." });
    const refused = await chat(app, { query: "How do I tune the PID gains of the wheel motors?" });
    expect(refused.metadata.mode).toBe("no_results");
    expect(refused.suggestions).toBeUndefined();
    await fromBook();
  });
});

describe("providers", () => {
  it("fails at start-up naming the missing variable", () => {
    const base = testConfig(lectern).llm;
    expect(() => createChatModel({ ...base, provider: "openai" })).toThrow(/OPENAI_API_KEY/);
    expect(() => createChatModel({ ...base, provider: "gemini" })).toThrow(/GEMINI_API_KEY/);
    expect(() => createChatModel({ ...base, provider: "openai-compatible" })).toThrow(
      /LLM_BASE_URL/,
    );
    expect(createChatModel(base)).toBeUndefined();
  });

  it("speaks to OpenAI's Chat Completions API (here the local server) with the openai provider", async () => {
    const { app } = appWithModel({
      LLM_PROVIDER: "openai",
      OPENAI_API_KEY: "test-key",
      LLM_MODEL: "gpt-4o-mini",
    });
    const before = fake.requests.length;
    fake.enqueue({ text: "A URDF describes links and joints [1]." });
    const body = await chat(app, { query: "What is a URDF?" });
    expect(body.answer).toBe("A URDF describes links and joints [1].");
    expect(fake.requests[before]?.path).toBe("/v1/chat/completions");
    expect(fake.requests[before]?.body.model).toBe("gpt-4o-mini");
  });
});
