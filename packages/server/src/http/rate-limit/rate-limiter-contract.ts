import { describe, expect, it } from "vitest";
import type { RateLimiter } from "./rate-limiter.ts";

/**
 * The behaviour every RateLimiter implementation keeps, as one suite: run it from the
 * implementation's test file with a factory that builds a fresh limiter (empty buckets) on the
 * given clock.
 */

export interface LimiterOptions {
  capacity: number;
  refillPerSecond: number;
  /** Milliseconds; the test moves it forward instead of sleeping. */
  now: () => number;
}

export function describeRateLimiterContract(
  name: string,
  create: (options: LimiterOptions) => RateLimiter | Promise<RateLimiter>,
): void {
  describe(`RateLimiter contract: ${name}`, () => {
    it("allows a burst up to capacity, then refuses with the seconds until a token returns", async () => {
      let now = 0;
      const limiter = await create({ capacity: 3, refillPerSecond: 0.5, now: () => now });
      const burst = [];
      for (let request = 0; request < 3; request++) burst.push((await limiter.take("ip")).allowed);
      expect(burst).toEqual([true, true, true]);
      expect(await limiter.take("ip")).toEqual({
        allowed: false,
        retryAfterSeconds: 2,
        remaining: 0,
      });
      now += 2_000;
      expect((await limiter.take("ip")).allowed).toBe(true);
      expect((await limiter.take("ip")).allowed).toBe(false);
    });

    it("keeps separate buckets per key", async () => {
      const limiter = await create({ capacity: 1, refillPerSecond: 1, now: () => 0 });
      expect((await limiter.take("a")).allowed).toBe(true);
      expect((await limiter.take("a")).allowed).toBe(false);
      expect((await limiter.take("b")).allowed).toBe(true);
    });

    it("never refills above capacity", async () => {
      let now = 0;
      const limiter = await create({ capacity: 2, refillPerSecond: 10, now: () => now });
      now += 60_000;
      expect((await limiter.take("k")).remaining).toBe(1);
      expect((await limiter.take("k")).remaining).toBe(0);
      expect((await limiter.take("k")).allowed).toBe(false);
    });

    it("counts every one of simultaneous takes once", async () => {
      const limiter = await create({ capacity: 5, refillPerSecond: 0.001, now: () => 0 });
      const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.take("burst")));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    });

    it("gives tokens back with a negative cost, never beyond capacity", async () => {
      const limiter = await create({ capacity: 2, refillPerSecond: 0.001, now: () => 0 });
      await limiter.take("k");
      await limiter.take("k");
      expect((await limiter.take("k")).allowed).toBe(false);
      await limiter.take("k", -1);
      expect(await limiter.take("k")).toMatchObject({ allowed: true, remaining: 0 });
      for (let refund = 0; refund < 5; refund++) await limiter.take("k", -1);
      expect((await limiter.take("k")).remaining).toBe(1);
    });

    it("takes a larger cost at once, or nothing", async () => {
      const limiter = await create({ capacity: 3, refillPerSecond: 1, now: () => 0 });
      expect(await limiter.take("k", 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.take("k", 2)).toEqual({
        allowed: false,
        retryAfterSeconds: 1,
        remaining: 0,
      });
      expect((await limiter.take("k")).allowed).toBe(true);
    });
  });
}
