import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { citesEverySource, markersOf } from "../../../test/doubles/cites-every-source.ts";
import {
  askChat,
  createTestApp,
  expectError,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
  type TestApp,
} from "../../../test/http-fixture.ts";
import { MemoryHistoryStore } from "../../store/memory-history-store.ts";
import { ChatResponseSchema } from "../wire.ts";
import { S4ChatResponseSchema, S4ErrorSchema } from "./s4.ts";

/**
 * Seed S4's contract, written from its data model: an S4 client posts `query_text` to the same
 * POST /chat as S1 and reads S4's ChatResponse and ErrorMessage, with S4's codes and limits.
 */

const book = sampleBookForSuite();

async function s4Error(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = S4ErrorSchema.parse(await response.json());
  expect(body.error_code).toBe(code);
  return body;
}

/** A session the server knows: S4's first message leaves session_id out and gets one back. */
async function startSession(app: TestApp) {
  const response = await postJson(app, "/chat", { query_text: "What is a ROS 2 node?" });
  expect(response.status).toBe(200);
  return S4ChatResponseSchema.parse(await response.json()).session_id;
}

describe("seed S4 on POST /chat", () => {
  it("answers query_text in S4's shape, strictly: answer_text, sources, confidence, latency", async () => {
    const app = memoryHistoryApp(book.lectern);
    const sessionId = await startSession(app);
    const response = await postJson(app, "/chat", {
      query_text: "How do I publish messages on a topic?",
      session_id: sessionId,
      source_url: "https://example.com/docs/ros2/topics",
      response_format: "json",
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Record<string, unknown>;
    const body = S4ChatResponseSchema.parse(json);
    expect(Object.keys(json).sort()).toEqual([
      "answer_text",
      "confidence",
      "context_summaries",
      "latency_ms",
      "session_id",
      "sources",
    ]);
    expect(body.session_id).toBe(sessionId);
    expect(body.answer_text).toMatch(/publish/i);
    // A full URL, as S4's clients expect: the book's paths on the origin the request was sent to.
    expect(body.sources[0]?.url).toMatch(/^http:\/\/localhost\/docs\/ros2\/topics#/);
    expect(body.sources[0]?.section_path).toMatch(/ > /);
    const scores = body.sources.map((source) => source.relevance_score);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));
    // The earlier question of the session was the context of this one.
    expect(body.context_summaries).toEqual(["What is a ROS 2 node?"]);
    expect(body.latency_ms).toBeGreaterThan(0);
  });

  it("answers from the selection, citing it as a source", async () => {
    const app = memoryHistoryApp(book.lectern);
    const selection =
      "The zero moment point is the point on the ground where the net moment of gravity and inertia has no horizontal component. If it leaves the support polygon, the robot tips.";
    const body = S4ChatResponseSchema.parse(
      await (
        await postJson(app, "/chat", {
          query_text: "When does the robot tip over?",
          selected_text: selection,
          source_url: "https://example.com/docs/humanoids/balance",
        })
      ).json(),
    );
    expect(body.answer_text).toContain("support polygon");
    expect(body.sources[0]).toMatchObject({
      section_path: "Selected text",
      url: "https://example.com/docs/humanoids/balance",
    });
  });

  it("gives a selection sent without its page's URL the book's own address, a valid URL", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://docs.example" },
      body: JSON.stringify({
        query_text: "When does the robot tip over?",
        selected_text: "If the zero moment point leaves the support polygon, the robot tips.",
      }),
    });
    const body = S4ChatResponseSchema.parse(await response.json());
    const selection = body.sources[0];
    expect(selection?.section_path).toBe("Selected text");
    expect(selection?.url).toBe("https://docs.example/");
  });

  it("refuses invalid fields with 422 VALIDATION_ERROR in S4's error body", async () => {
    const app = memoryHistoryApp(book.lectern);
    const sessionId = "8d5e2f7a-1b3c-4d5e-9f60-718293a4b5c6";
    const bad = [
      { query_text: "" },
      { query_text: "   " },
      { query_text: 42 },
      { query_text: "What is a node?", session_id: "not-a-uuid" },
      { query_text: "What is a node?", source_url: "not a url" },
      { query_text: "What is a node?", response_format: "xml" },
      { response_format: "json" },
    ];
    for (const body of bad) {
      const error = await s4Error(
        await postJson(app, "/chat", { session_id: sessionId, ...body }),
        422,
        "VALIDATION_ERROR",
      );
      expect(error.error.length).toBeGreaterThan(0);
    }
    // The session named in the request is echoed for tracking.
    const echoed = await s4Error(
      await postJson(app, "/chat", { query_text: "", session_id: sessionId }),
      422,
      "VALIDATION_ERROR",
    );
    expect(echoed.session_id).toBe(sessionId);
  });

  it("holds S4's limits: 1,000 characters of question, 5,000 of selection", async () => {
    const app = memoryHistoryApp(book.lectern);
    const atLimit = await postJson(app, "/chat", { query_text: `node ${"x".repeat(995)}` });
    expect([200, 404]).toContain(atLimit.status); // answered or nothing found, never refused
    await s4Error(
      await postJson(app, "/chat", { query_text: "x".repeat(1_001) }),
      422,
      "VALIDATION_ERROR",
    );
    await s4Error(
      await postJson(app, "/chat", { query_text: "Why?", selected_text: "s".repeat(5_001) }),
      422,
      "VALIDATION_ERROR",
    );
    const selectionAtLimit = await postJson(app, "/chat", {
      query_text: "Why?",
      selected_text: "s".repeat(5_000),
    });
    expect(selectionAtLimit.status).not.toBe(422);
  });

  it("starts the conversation under the id the page made, and answers its follow-up in it", async () => {
    const app = memoryHistoryApp(book.lectern);
    // S4's page makes a UUID v4 when it opens and sends it with the first message.
    const pageId = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
    const first = await postJson(app, "/chat", {
      query_text: "What is a ROS 2 node?",
      session_id: pageId,
    });
    expect(first.status).toBe(200);
    expect(S4ChatResponseSchema.parse(await first.json()).session_id).toBe(pageId);
    const followUp = await postJson(app, "/chat", {
      query_text: "How do I start one?",
      session_id: pageId.toUpperCase(),
      response_format: "json",
    });
    expect(followUp.status).toBe(200);
    const body = S4ChatResponseSchema.parse(await followUp.json());
    expect(body.session_id).toBe(pageId);
    expect(body.context_summaries).toEqual(["What is a ROS 2 node?"]);
  });

  it("answers SESSION_NOT_FOUND for a conversation that was ended, on JSON and on the stream", async () => {
    const app = memoryHistoryApp(book.lectern);
    const sessionId = await startSession(app);
    expect((await app.request(`/sessions/${sessionId}/end`, { method: "POST" })).status).toBe(200);
    const error = await s4Error(
      await postJson(app, "/chat", { query_text: "And a topic?", session_id: sessionId }),
      404,
      "SESSION_NOT_FOUND",
    );
    expect(error.session_id).toBe(sessionId);
    await s4Error(
      await postJson(app, "/chat", {
        query_text: "And a topic?",
        session_id: sessionId,
        response_format: "stream",
      }),
      404,
      "SESSION_NOT_FOUND",
    );
  });

  it("answers RETRIEVAL_FAILED when the book has nothing on the question", async () => {
    const app = memoryHistoryApp(book.lectern);
    const error = await s4Error(
      await postJson(app, "/chat", { query_text: "Who won the 2018 FIFA World Cup?" }),
      404,
      "RETRIEVAL_FAILED",
    );
    expect(error.error).toMatch(/couldn't find this in the book/);
  });

  it("answers RATE_LIMITED with retry_after and Retry-After", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    await postJson(app, "/chat", { query_text: "What is a node?" });
    const response = await postJson(app, "/chat", { query_text: "What is a topic?" });
    const error = await s4Error(response, 429, "RATE_LIMITED");
    expect(error.retry_after).toBeGreaterThan(0);
    expect(response.headers.get("retry-after")).toBe(String(error.retry_after));
  });

  it('streams with response_format "stream": deltas, then the S4 response, then done', async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await postJson(app, "/chat", {
      query_text: "How do I publish messages on a topic?",
      response_format: "stream",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events: { event: string; data: string }[] = [];
    const parser = createParser({
      onEvent: (message) => events.push({ event: message.event ?? "", data: message.data }),
    });
    parser.feed(await response.text());
    const names = events.map((event) => event.event);
    expect(names.at(-1)).toBe("done");
    expect(names.at(-2)).toBe("response");
    expect(names.slice(0, -2).every((name) => name === "delta")).toBe(true);
    const deltas = events
      .filter((event) => event.event === "delta")
      .map((event) => (JSON.parse(event.data) as { delta: string }).delta)
      .join("");
    const final = S4ChatResponseSchema.parse(JSON.parse(events.at(-2)?.data ?? "null"));
    expect(deltas).toBe(final.answer_text);
    // Validation still comes before the stream, as JSON.
    await s4Error(
      await postJson(app, "/chat", { query_text: "", response_format: "stream" }),
      422,
      "VALIDATION_ERROR",
    );
  });

  it("links sources on the origin of the page that asks: a docs site embedding the widget", async () => {
    const app = memoryHistoryApp(book.lectern, { CORS_ORIGINS: "https://docs.example.com" });
    const response = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://docs.example.com" },
      body: JSON.stringify({ query_text: "How do I publish messages on a topic?" }),
    });
    const body = S4ChatResponseSchema.parse(await response.json());
    expect(body.sources.length).toBeGreaterThan(0);
    for (const source of body.sources)
      expect(source.url).toMatch(/^https:\/\/docs\.example\.com\/docs[/#]/);
  });

  it("leaves bodies without S4's fields to Lectern's own contract", async () => {
    const app = memoryHistoryApp(book.lectern);
    const own = await askChat(app, { query: "What is a URDF?" });
    expect(ChatResponseSchema.safeParse(own).success).toBe(true);
    await expectError(await postJson(app, "/chat", { query: "" }), 400, "EMPTY_QUERY");
    await expectError(await postJson(app, "/chat", "{oops"), 400, "INVALID_JSON");
  });

  it("renumbers the answer's markers to S4's order of sources, the selection first", async () => {
    const { app } = createTestApp(book.lectern, {
      synthesizer: citesEverySource,
      history: new MemoryHistoryStore(),
    });
    const question = "How do I publish messages on a topic with a quality of service?";
    const s1 = ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query: question })).json(),
    );
    const response = await postJson(app, "/chat", { query_text: question });
    const body = S4ChatResponseSchema.parse(await response.json());
    // "Fact i [k]": the k-th source S4 lists is the one the answer cited as i.
    for (const [, cited, listed] of body.answer_text.matchAll(/Fact (\d+) \[(\d+)\]/g))
      expect(body.sources[Number(listed) - 1]?.url).toBe(s1.sources[Number(cited) - 1]?.source_url);
    const markers = markersOf(body.answer_text);
    expect(markers.length).toBe(body.sources.length);
    expect([...markers].sort((left, right) => left - right)).toEqual(
      body.sources.map((_, index) => index + 1),
    );
  });
});
