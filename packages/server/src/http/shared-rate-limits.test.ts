import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { postJson, sampleBookForSuite, testConfig } from "../../test/http-fixture.ts";
import { requireRedis, TEST_REDIS_URL } from "../../test/redis.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { composeApp } from "./compose.ts";

const available = await requireRedis();
const book = sampleBookForSuite();
const prefix = `lectern-test:${randomBytes(6).toString("hex")}:`;
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers) await close();
  const redis = new Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** One server instance as `lectern serve` composes it, its rate limits in the shared Redis. */
function instance(env: Record<string, string>) {
  const config = testConfig(book.lectern, {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...env,
  });
  const { app, ready, close } = composeApp(book.lectern, config, {
    logger: pino({ level: "silent" }),
    history: new MemoryHistoryStore(),
    siteAndFeedback: true,
  });
  closers.push(close);
  return { app, ready };
}

describe.skipIf(!available)("rate limits shared through Redis", () => {
  it("gives a client the configured burst once across two instances, not once per instance", async () => {
    const env = { RATE_LIMIT_PER_IP_BURST: "3", RATE_LIMIT_PER_IP_PER_MINUTE: "1" };
    const first = instance(env);
    const second = instance(env);
    await Promise.all([first.ready, second.ready]);
    const statuses: number[] = [];
    for (let request = 0; request < 6; request++) {
      const { app } = request % 2 === 0 ? first : second;
      statuses.push(
        (
          await postJson(
            app,
            "/chat",
            { query: "What is a node?" },
            { "x-forwarded-for": "198.51.100.23" },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it("lets requests through when Redis cannot be reached", async () => {
    const { app, ready } = instance({
      REDIS_URL: "redis://127.0.0.1:1",
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    await ready;
    for (let request = 0; request < 3; request++) {
      expect((await postJson(app, "/chat", { query: "What is a node?" })).status).toBe(200);
    }
  });
});
