import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter, TokenBucketLimiter } from "./rate-limit.ts";

describe("TokenBucketLimiter", () => {
  it("allows a burst up to capacity, then refuses with the seconds until a token returns", () => {
    let now = 0;
    const limiter = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 0.5, now: () => now });
    expect([1, 2, 3].map(() => limiter.take("ip").allowed)).toEqual([true, true, true]);
    expect(limiter.take("ip")).toEqual({ allowed: false, retryAfterSeconds: 2, remaining: 0 });
    now += 2_000;
    expect(limiter.take("ip").allowed).toBe(true);
    expect(limiter.take("ip").allowed).toBe(false);
  });

  it("keeps separate buckets per key", () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, now: () => 0 });
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    expect(limiter.take("b").allowed).toBe(true);
  });

  it("never refills above capacity", () => {
    let now = 0;
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 10, now: () => now });
    now += 60_000;
    expect(limiter.take("k").remaining).toBe(1);
    expect(limiter.take("k").remaining).toBe(0);
    expect(limiter.take("k").allowed).toBe(false);
  });

  it("forgets the least recently used keys beyond maxKeys", () => {
    const limiter = new TokenBucketLimiter({
      capacity: 1,
      refillPerSecond: 0.001,
      now: () => 0,
      maxKeys: 2,
    });
    limiter.take("a");
    limiter.take("b");
    limiter.take("c"); // evicts "a"
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("c").allowed).toBe(false);
  });
});

describe("ConcurrencyLimiter", () => {
  it("refuses beyond the cap and frees a slot on release, once", () => {
    const limiter = new ConcurrencyLimiter(2);
    const first = limiter.tryAcquire();
    const second = limiter.tryAcquire();
    expect(limiter.tryAcquire()).toBeUndefined();
    first?.();
    first?.();
    expect(limiter.inFlight).toBe(1);
    expect(limiter.tryAcquire()).toBeDefined();
    second?.();
  });
});
