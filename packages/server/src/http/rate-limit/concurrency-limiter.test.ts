import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter } from "./concurrency-limiter.ts";

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
