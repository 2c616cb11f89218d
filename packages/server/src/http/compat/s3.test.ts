import { describe, expect, it } from "vitest";
import { citesEverySource, markersOf } from "../../../test/doubles/cites-every-source.ts";
import {
  createTestApp,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
} from "../../../test/http-fixture.ts";
import { MemoryHistoryStore } from "../../store/memory-history-store.ts";
import { ChatResponseSchema, HealthResponseSchema } from "../wire.ts";
import { S3_LIMITS, S3ChatResponseSchema, S3ErrorSchema, S3HistoryResponseSchema } from "./s3.ts";

/**
 * Seed S3's contract, written from its data model: POST /api/chat with `message`, a session's
 * ChatMessages at GET /api/sessions/{id}/history, S3's limits (1–1,000 characters), sources at or
 * above 0.7 relevance with `docs/` file paths and excerpts of at most 500 characters.
 */

const book = sampleBookForSuite();

async function s3Error(response: Response, status: number) {
  expect(response.status).toBe(status);
  return S3ErrorSchema.parse(await response.json());
}

describe("seed S3: /api", () => {
  it("answers a message, continues the session and lists its messages", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await postJson(app, "/api/chat", {
      message: "How do I publish messages on a topic?",
    });
    expect(response.status).toBe(200);
    const first = S3ChatResponseSchema.parse(await response.json());
    expect(first.message).toMatch(/publish/i);
    expect(first.sources.length).toBeGreaterThan(0);
    for (const source of first.sources) {
      expect(source.relevance_score).toBeGreaterThanOrEqual(S3_LIMITS.minRelevance);
      expect(source.file_path).toMatch(/^docs\/.+\.mdx?$/);
      expect(source.excerpt.length).toBeLessThanOrEqual(500);
    }
    const second = S3ChatResponseSchema.parse(
      await (
        await postJson(app, "/api/chat", {
          message: "What about its quality of service?",
          session_id: first.session_id,
          selected_text: "Quality of service decides how messages are delivered.",
        })
      ).json(),
    );
    expect(second.session_id).toBe(first.session_id);

    const history = S3HistoryResponseSchema.parse(
      await (await app.request(`/api/sessions/${first.session_id}/history`)).json(),
    );
    expect(history.session_id).toBe(first.session_id);
    expect(history.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(history.messages[0]?.content).toBe("How do I publish messages on a topic?");
    expect(history.messages[1]?.content).toBe(first.message);
    expect(history.messages[1]?.context_used?.chunks).toEqual(first.sources);
    expect(history.messages[2]?.selected_text).toBe(
      "Quality of service decides how messages are delivered.",
    );
    const ids = history.messages.map((message) => message.message_id);
    expect(new Set(ids).size).toBe(4);
    // Ids are stable from one read to the next.
    const again = S3HistoryResponseSchema.parse(
      await (await app.request(`/api/sessions/${first.session_id}/history`)).json(),
    );
    expect(again.messages.map((message) => message.message_id)).toEqual(ids);
  });

  it("cuts sources below 0.7 relevance and answers an off-topic message with none", async () => {
    const app = memoryHistoryApp(book.lectern);
    const own = (await (
      await postJson(app, "/chat", { query: "How is the robot's balance kept while walking?" })
    ).json()) as { sources: { similarity_score?: number }[] };
    const s3 = S3ChatResponseSchema.parse(
      await (
        await postJson(app, "/api/chat", {
          message: "How is the robot's balance kept while walking?",
        })
      ).json(),
    );
    const kept = own.sources.filter((source) => (source.similarity_score ?? 0) >= 0.7).length;
    expect(s3.sources.length).toBe(kept);
    const none = S3ChatResponseSchema.parse(
      await (
        await postJson(app, "/api/chat", { message: "Who won the 2018 FIFA World Cup?" })
      ).json(),
    );
    expect(none.sources).toEqual([]);
    expect(none.message).toMatch(/couldn't find this in the book/);
  });

  it("refuses a message or selection outside 1–1,000 characters with 422 and the field", async () => {
    const app = memoryHistoryApp(book.lectern);
    const cases: [Record<string, unknown>, string][] = [
      [{}, "message"],
      [{ message: "" }, "message"],
      [{ message: "x".repeat(1_001) }, "message"],
      [{ message: "a\u0007b" }, "message"],
      [{ message: "Why?", selected_text: "" }, "selected_text"],
      [{ message: "Why?", selected_text: "s".repeat(1_001) }, "selected_text"],
      [{ message: "Why?", session_id: "not-a-uuid" }, "session_id"],
    ];
    for (const [body, field] of cases) {
      const error = await s3Error(await postJson(app, "/api/chat", body), 422);
      expect(Array.isArray(error.detail) && error.detail[0]?.loc).toEqual(["body", field]);
    }
    const atLimit = await postJson(app, "/api/chat", {
      message: `node ${"x".repeat(995)}`,
      selected_text: "s".repeat(1_000),
    });
    expect(atLimit.status).toBe(200);
  });

  it("answers 404 for a session it does not know", async () => {
    const app = memoryHistoryApp(book.lectern);
    const unknown = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
    const posted = await s3Error(
      await postJson(app, "/api/chat", { message: "What is a node?", session_id: unknown }),
      404,
    );
    expect(posted.detail).toBe("No conversation with this session id.");
    await s3Error(await app.request(`/api/sessions/${unknown}/history`), 404);
    await s3Error(await app.request("/api/sessions/nope/history"), 422);
  });

  it("is rate limited with 429 and Retry-After", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    expect((await postJson(app, "/api/chat", { message: "What is a node?" })).status).toBe(200);
    const response = await postJson(app, "/api/chat", { message: "What is a topic?" });
    const error = await s3Error(response, 429);
    expect(typeof error.detail).toBe("string");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("reports health at /api/health", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await app.request("/api/health");
    expect(response.status).toBe(200);
    expect(HealthResponseSchema.parse(await response.json()).status).toBe("healthy");
  });
});

describe("seed S3: citations and excerpts", () => {
  it("cites only the sources it lists, renumbered, in the answer and in history", async () => {
    const { app } = createTestApp(book.lectern, {
      synthesizer: citesEverySource,
      history: new MemoryHistoryStore(),
    });
    const question = "How do I publish messages on a topic with a quality of service?";
    const s1 = ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query: question })).json(),
    );
    const below = s1.sources.filter(
      (source) => "similarity_score" in source && source.similarity_score < S3_LIMITS.minRelevance,
    );
    // The question brings sources under S3's cut-off, which its answer cites too.
    expect(below.length).toBeGreaterThan(0);

    const s3 = S3ChatResponseSchema.parse(
      await (await postJson(app, "/api/chat", { message: question })).json(),
    );
    expect(s3.sources.length).toBe(s1.sources.length - below.length);
    const markers = markersOf(s3.message);
    expect(markers.sort((left, right) => left - right)).toEqual(
      s3.sources.map((_, index) => index + 1),
    );
    for (const [, cited, listed] of s3.message.matchAll(/Fact (\d+) \[(\d+)\]/g)) {
      const source = s1.sources[Number(cited) - 1];
      expect(s3.sources[Number(listed) - 1]?.file_path).toBe(
        `docs/${source && "file_path" in source ? source.file_path : ""}`,
      );
    }
    // A fact whose source S3 leaves out keeps its sentence but loses its marker.
    expect(s3.message.match(/Fact \d+\./g)?.length).toBe(below.length);

    const history = S3HistoryResponseSchema.parse(
      await (await app.request(`/api/sessions/${s3.session_id}/history`)).json(),
    );
    expect(history.messages[1]?.content).toBe(s3.message);
    expect(history.messages[1]?.context_used?.chunks).toEqual(s3.sources);
  });

  it("gives each source's first 500 characters as its excerpt, ending in ... when cut", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = S3ChatResponseSchema.parse(
      await (
        await postJson(app, "/api/chat", { message: "How do I publish messages on a topic?" })
      ).json(),
    );
    const passages = await book.lectern.chunksOfPages(
      response.sources.map((source) => source.file_path.replace(/^docs\//, "")),
    );
    let cut = 0;
    for (const source of response.sources) {
      const chunks = passages.get(source.file_path.replace(/^docs\//, "")) ?? [];
      const whole = chunks.find((chunk) =>
        chunk.text.startsWith(source.excerpt.replace(/\.\.\.$/, "")),
      );
      expect(whole, source.excerpt).toBeDefined();
      if ((whole?.text.length ?? 0) > 500) {
        cut++;
        expect(source.excerpt.endsWith("...")).toBe(true);
        expect(source.excerpt.length).toBeLessThanOrEqual(500);
        expect(source.excerpt.length).toBeGreaterThan(400);
      } else expect(source.excerpt).toBe(whole?.text);
    }
    expect(cut).toBeGreaterThan(0);
  });
});
