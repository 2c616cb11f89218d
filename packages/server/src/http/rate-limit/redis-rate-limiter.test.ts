import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { requireRedis, TEST_REDIS_URL } from "../../../test/redis.ts";
import { describeRateLimiterContract } from "./rate-limiter-contract.ts";
import { RedisRateLimiter } from "./redis-rate-limiter.ts";

const available = await requireRedis();
const clients: Redis[] = [];
const prefix = `lectern-test:${randomBytes(6).toString("hex")}:`;
let suite = 0;

function client(): Redis {
  const redis = new Redis(TEST_REDIS_URL);
  clients.push(redis);
  return redis;
}

/** A client once connected (a limiter lets requests through while Redis is not). */
async function connected(): Promise<Redis> {
  const redis = client();
  if (redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve));
  return redis;
}

afterAll(async () => {
  const cleanup = client();
  const keys = await cleanup.keys(`${prefix}*`);
  if (keys.length > 0) await cleanup.del(...keys);
  for (const redis of clients) redis.disconnect();
});

describe.skipIf(!available)("Redis rate limits", () => {
  describeRateLimiterContract("redis", async (options) => {
    suite++;
    return new RedisRateLimiter(await connected(), { ...options, prefix: `${prefix}${suite}:` });
  });

  it("is one bucket for every instance: two clients together get the burst once", async () => {
    const options = {
      capacity: 4,
      refillPerSecond: 0.001,
      prefix: `${prefix}shared:`,
      now: () => 0,
    };
    const first = new RedisRateLimiter(await connected(), options);
    const second = new RedisRateLimiter(await connected(), options);
    const decisions = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? first : second).take("203.0.113.9")),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(4);
  });

  it("answers at once, letting the request through, while Redis is not connected", async () => {
    const errors: unknown[] = [];
    const offline = new Redis("redis://127.0.0.1:1", { lazyConnect: true });
    clients.push(offline);
    const limiter = new RedisRateLimiter(offline, {
      capacity: 1,
      refillPerSecond: 0.001,
      prefix: `${prefix}offline:`,
      onError: (error) => errors.push(error),
    });
    expect(await limiter.take("k")).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
    expect((await limiter.take("k")).allowed).toBe(true);
    expect(errors).toHaveLength(2);
  });

  it("lets an idle bucket expire once it would be full again", async () => {
    const redis = await connected();
    const limiter = new RedisRateLimiter(redis, {
      capacity: 2,
      refillPerSecond: 1,
      prefix: `${prefix}ttl:`,
      now: () => 0,
    });
    await limiter.take("k");
    const ttl = await redis.pttl(`${prefix}ttl:k`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });
});
