import type { Config } from "../../config/config.ts";
import type { RateLimitDecision, RateLimiter, RateLimiters } from "./rate-limiter.ts";

/**
 * In-process rate limits: a token bucket per key (client IP, session). The clock is injectable so
 * tests need not sleep.
 */

export interface TokenBucketOptions {
  /** Tokens added per second (sustained rate). */
  refillPerSecond: number;
  /** Bucket size: how many requests may arrive at once. */
  capacity: number;
  now?: () => number;
  /** Buckets kept at most; the least recently used are forgotten beyond it. */
  maxKeys?: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private readonly now: () => number;
  private readonly maxKeys: number;

  constructor(private readonly options: TokenBucketOptions) {
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  async take(key: string, cost = 1): Promise<RateLimitDecision> {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.capacity, updated: now };
    const elapsedSeconds = Math.max(0, now - bucket.updated) / 1000;
    bucket.tokens = Math.min(
      this.options.capacity,
      bucket.tokens + elapsedSeconds * this.options.refillPerSecond,
    );
    bucket.updated = now;
    // Re-insert so the map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (bucket.tokens >= cost) {
      bucket.tokens = Math.min(this.options.capacity, bucket.tokens - cost);
      return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(bucket.tokens) };
    }
    const missing = cost - bucket.tokens;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(missing / this.options.refillPerSecond)),
      remaining: 0,
    };
  }
}

/** Today's limiters: token buckets in this process, sized from the config. */
export function memoryRateLimiters(config: Config): RateLimiters {
  return {
    perIp: new MemoryRateLimiter({
      capacity: config.rateLimit.perIpBurst,
      refillPerSecond: config.rateLimit.perIpPerMinute / 60,
    }),
    perSession: new MemoryRateLimiter({
      capacity: config.rateLimit.perSessionBurst,
      refillPerSecond: config.rateLimit.perSessionPerMinute / 60,
    }),
    shares: new MemoryRateLimiter({
      capacity: Math.ceil(config.rateLimit.sharesPerMinute),
      refillPerSecond: config.rateLimit.sharesPerMinute / 60,
    }),
    adminFailures: new MemoryRateLimiter({
      capacity: config.rateLimit.adminFailuresBurst,
      refillPerSecond: config.rateLimit.adminFailuresPerMinute / 60,
    }),
  };
}
