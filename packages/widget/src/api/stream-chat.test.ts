import { afterEach, describe, expect, it, vi } from "vitest";
import * as fetchMock from "../test/fetch-mock.ts";
import {
  answerEvents,
  doneEvent,
  errorEvent,
  REQUEST_ID,
  SESSION_ID,
  sseEvent,
  URDF_DELTAS,
} from "../test/sse-fixtures.ts";
import { ChatRequestError, parseRetryAfter } from "./chat-request-error.ts";
import { type ChatAnswerEvent, streamChat } from "./stream-chat.ts";

const API = "https://api.example.com";
const BODY = { query: "What is a URDF?", session_id: SESSION_ID };

async function collect(signal = new AbortController().signal): Promise<ChatAnswerEvent[]> {
  const events: ChatAnswerEvent[] = [];
  await streamChat(API, BODY, { signal, onEvent: (event) => events.push(event) });
  return events;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("streamChat", () => {
  it("POSTs the question as JSON and yields validated events in order", async () => {
    const calls = fetchMock.installFetch(() => fetchMock.sseResponse(answerEvents()));
    const events = await collect();
    expect(calls).toMatchObject([{ url: `${API}/chat/stream`, method: "POST", body: BODY }]);
    expect(events.map((event) => event.name)).toEqual([
      ...URDF_DELTAS.map(() => "delta"),
      "sources",
      "done",
    ]);
    expect(events.at(-1)).toEqual({ name: "done", data: { done: true, message_id: REQUEST_ID } });
  });

  it("skips events whose names it does not know", async () => {
    fetchMock.installFetch(() =>
      fetchMock.sseResponse([sseEvent("progress", { stage: "retrieve" }), doneEvent()]),
    );
    expect(await collect()).toHaveLength(1);
  });

  it("rejects a payload that does not match the wire schema", async () => {
    fetchMock.installFetch(() =>
      fetchMock.sseResponse([sseEvent("delta", { text: "wrong field" })]),
    );
    await expect(collect()).rejects.toMatchObject({ code: "INVALID_RESPONSE" });
  });

  it("turns an error event into a ChatRequestError with the server's message", async () => {
    fetchMock.installFetch(() =>
      fetchMock.sseResponse([
        sseEvent("delta", { delta: "Part" }),
        errorEvent("INTERNAL_ERROR", "Something broke."),
      ]),
    );
    await expect(collect()).rejects.toEqual(
      new ChatRequestError("INTERNAL_ERROR", "Something broke."),
    );
  });

  it("reads the error body and Retry-After of an HTTP error", async () => {
    fetchMock.installFetch(() =>
      fetchMock.jsonResponse(
        429,
        {
          error_code: "RATE_LIMITED",
          message: "Too many requests. Please wait 12 s and try again.",
          request_id: REQUEST_ID,
          details: { scope: "session", retry_after: 12 },
        },
        { "Retry-After": "12" },
      ),
    );
    await expect(collect()).rejects.toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
      retryAfterSeconds: 12,
      message: "Too many requests. Please wait 12 s and try again.",
    });
  });

  it("falls back to details.retry_after, and to a generic message for a body that is not ours", async () => {
    fetchMock.installFetch(() =>
      fetchMock.jsonResponse(429, {
        error_code: "RATE_LIMITED",
        message: "Slow down.",
        request_id: REQUEST_ID,
        details: { retry_after: 5 },
      }),
    );
    await expect(collect()).rejects.toMatchObject({ retryAfterSeconds: 5 });
    fetchMock.installFetch(() => new Response("<html>Bad gateway</html>", { status: 502 }));
    await expect(collect()).rejects.toMatchObject({
      code: "HTTP_502",
      message: "The assistant is unavailable right now. Please try again later.",
    });
  });

  it("reports a network failure in plain words", async () => {
    fetchMock.installFetch(() => Promise.reject(new TypeError("Failed to fetch")));
    await expect(collect()).rejects.toMatchObject({ code: "NETWORK_ERROR" });
  });

  it("stops reading and cancels the body when aborted", async () => {
    const stream = fetchMock.controlledSseResponse();
    fetchMock.installFetch(() => stream.response);
    const controller = new AbortController();
    const events: ChatAnswerEvent[] = [];
    const done = streamChat(API, BODY, {
      signal: controller.signal,
      onEvent: (event) => events.push(event),
    });
    stream.push(sseEvent("delta", { delta: "Hello" }));
    await vi.waitFor(() => expect(events).toHaveLength(1));
    controller.abort(new Error("stopped"));
    await expect(done).rejects.toThrow("stopped");
    expect(stream.cancelled).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("30")).toBe(30);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 1_000)).toBe(60);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});
