import { describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "./memory-rate-limiter.ts";
import { describeRateLimiterContract } from "./rate-limiter-contract.ts";

describeRateLimiterContract("memory", (options) => new MemoryRateLimiter(options));

describe("MemoryRateLimiter", () => {
  it("forgets the least recently used keys beyond maxKeys", async () => {
    const limiter = new MemoryRateLimiter({
      capacity: 1,
      refillPerSecond: 0.001,
      now: () => 0,
      maxKeys: 2,
    });
    await limiter.take("a");
    await limiter.take("b");
    await limiter.take("c"); // evicts "a"
    expect((await limiter.take("a")).allowed).toBe(true);
    expect((await limiter.take("c")).allowed).toBe(false);
  });
});
