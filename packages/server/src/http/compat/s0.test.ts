import { describe, expect, it } from "vitest";
import {
  createTestApp,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
} from "../../../test/http-fixture.ts";
import { S0ErrorSchema, S0QueryResponseSchema, toS0Response } from "./s0.ts";
import type { AnsweredTurn } from "./shape.ts";

/**
 * Seed S0's contract, written from its data model: the frontend posts `{question}` to /query and
 * reads `{answer, sources}` (sources as "Chapter / Section"), or an ErrorContext as the frontend
 * sees it, `{error_type, user_safe_message, retry_able}`.
 */

const book = sampleBookForSuite();

async function s0Error(response: Response, status: number, errorType: string) {
  expect(response.status).toBe(status);
  const json = (await response.json()) as Record<string, unknown>;
  const body = S0ErrorSchema.parse(json);
  expect(Object.keys(json).sort()).toEqual(["error_type", "retry_able", "user_safe_message"]);
  expect(body.error_type).toBe(errorType);
  expect(body.user_safe_message).not.toMatch(/Traceback|File "|\bat .+\.ts:\d+|node_modules/);
  return body;
}

describe("seed S0: POST /query", () => {
  it("answers {question} with {answer, sources} naming chapter and section", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await postJson(app, "/query", {
      question: "How do I publish messages on a topic?",
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(["answer", "sources"]);
    const body = S0QueryResponseSchema.parse(json);
    expect(body.answer).toMatch(/publish/i);
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.sources[0]).toMatch(/^Topics and Messages \/ .+/);
    expect(new Set(body.sources).size).toBe(body.sources.length);
  });

  it("says the book does not cover an off-topic question, with no sources", async () => {
    const app = memoryHistoryApp(book.lectern);
    const body = S0QueryResponseSchema.parse(
      await (
        await postJson(app, "/query", { question: "Who won the 2018 FIFA World Cup?" })
      ).json(),
    );
    expect(body.answer).toMatch(/couldn't find this in the book/);
    expect(body.sources).toEqual([]);
  });

  it("refuses a missing, empty or over-long question as a validation error (422)", async () => {
    const app = memoryHistoryApp(book.lectern);
    for (const body of [{}, { question: "" }, { question: " \n " }, { question: 7 }]) {
      const error = await s0Error(await postJson(app, "/query", body), 422, "validation");
      expect(error.retry_able).toBe(false);
    }
    await s0Error(await postJson(app, "/query", "{not json"), 422, "validation");
    await s0Error(
      await postJson(app, "/query", { question: "q".repeat(10_001) }),
      422,
      "validation",
    );
    const atLimit = await postJson(app, "/query", { question: `node ${"q".repeat(9_995)}` });
    expect(atLimit.status).toBe(200);
  });

  it("is rate limited as a retryable error with Retry-After", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    expect((await postJson(app, "/query", { question: "What is a node?" })).status).toBe(200);
    const response = await postJson(app, "/query", { question: "What is a topic?" });
    const error = await s0Error(response, 429, "network");
    expect(error.retry_able).toBe(true);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("keeps no conversation with HISTORY=off: each question stands alone", async () => {
    const { app } = createTestApp(book.lectern, { env: { HISTORY: "off" } });
    const first = S0QueryResponseSchema.parse(
      await (await postJson(app, "/query", { question: "What is a ROS 2 node?" })).json(),
    );
    expect(first.sources.length).toBeGreaterThan(0);
    // S0 has no session: a session id sent along is not a field of S0's and changes nothing.
    const again = S0QueryResponseSchema.parse(
      await (
        await postJson(app, "/query", {
          question: "What is a ROS 2 node?",
          session_id: "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
        })
      ).json(),
    );
    expect(again).toEqual(first);
  });

  it("keeps no question log with HISTORY=off either, unless INSIGHTS=on asks for one", async () => {
    const token = "a-token-of-thirty-two-characters-x";
    const admin = (env: Record<string, string>) =>
      createTestApp(book.lectern, { env: { LECTERN_ADMIN_TOKEN: token, ...env } }).app.request(
        "/admin",
        { headers: { authorization: `Bearer ${token}` } },
      );
    // Without a question log there are no insights to show: /admin is not there.
    expect((await admin({ HISTORY: "off" })).status).toBe(404);
    expect((await admin({ HISTORY: "off", INSIGHTS: "on" })).status).toBe(200);
    expect((await admin({})).status).toBe(200);
  });

  it("cuts an over-long answer between characters, never inside an emoji", () => {
    const answer = `${"a".repeat(9_999)}😀 and more`;
    const turn = { response: { answer, sources: [] } } as unknown as AnsweredTurn;
    const cut = toS0Response(turn).answer;
    expect(cut).toBe("a".repeat(9_999));
    expect(cut).not.toMatch(/[\uD800-\uDFFF]$/);
  });
});
