import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HungRedis, startHungRedis } from "../../test/doubles/hung-redis.ts";
import { postJson, sampleBookForSuite, testConfig } from "../../test/http-fixture.ts";
import { readEventStream } from "../../test/sse-client.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { composeApp } from "./compose.ts";
import { ChatResponseSchema } from "./wire.ts";

/**
 * A Redis that accepts connections and answers nothing (stopped with SIGSTOP, frozen): the chat
 * routes answer without it, rate limits let requests through and the answer cache is skipped,
 * and a warning says so.
 */

const book = sampleBookForSuite();
let hung: HungRedis;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  hung = await startHungRedis();
});

afterAll(async () => {
  for (const close of closers) await close();
  await hung?.close();
});

/** How long the test waits for each response: far more than the server's Redis timeout. */
const CLIENT_DEADLINE_MS = 10_000;

async function withinDeadline<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no response within ${CLIENT_DEADLINE_MS} ms`)),
      CLIENT_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function instance() {
  const logLines: { level: number; msg: string }[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const config = testConfig(book.lectern, {
    REDIS_URL: hung.url,
    REDIS_COMMAND_TIMEOUT_MS: "200",
    ANSWER_CACHE: "redis",
  });
  const { app, ready, close } = composeApp(book.lectern, config, {
    logger: pino({ level: "warn" }, logStream),
    history: new MemoryHistoryStore(),
    siteAndFeedback: true,
  });
  closers.push(close);
  return { app, ready, logLines };
}

describe("a Redis that hangs", () => {
  it("does not hold up /chat, /chat/stream or /history; a warning is logged", async () => {
    const { app, ready, logLines } = instance();
    await ready;

    const chat = await withinDeadline(
      "/chat",
      Promise.resolve(postJson(app, "/chat", { query: "What is a node?" })),
    );
    expect(chat.status).toBe(200);
    const answer = ChatResponseSchema.parse(await chat.json());
    expect(answer.answer).toBeTruthy();

    const followUp = await withinDeadline(
      "/chat with a session",
      Promise.resolve(
        postJson(app, "/chat", { query: "And a topic?", session_id: answer.session_id }),
      ),
    );
    expect(followUp.status).toBe(200);

    const events = await withinDeadline(
      "/chat/stream",
      (async () => {
        const response = await postJson(app, "/chat/stream", { query: "What is a node?" });
        expect(response.status).toBe(200);
        return readEventStream(response);
      })(),
    );
    expect(events.at(-1)?.name).toBe("done");

    const history = await withinDeadline(
      "/history",
      Promise.resolve(app.request(`/history/${answer.session_id}`)),
    );
    expect(history.status).toBe(200);
    expect(((await history.json()) as { entries: unknown[] }).entries).toHaveLength(2);

    // The requests did reach Redis (it was "ready") and were never answered there.
    expect(hung.unanswered).toBeGreaterThan(0);
    const warnings = logLines.filter((line) => line.level === 40 && /Redis/.test(line.msg));
    // Once per interval, not once per command.
    expect(warnings).toHaveLength(1);
  }, 60_000);
});
