/**
 * A rate limit per key (a client IP, a session). Asynchronous so that a shared backend (Redis) can
 * hold the buckets for every instance; `rate-limiter-contract.ts` is the suite each implementation
 * runs.
 */
export interface RateLimiter {
  /**
   * Takes `cost` tokens (default 1) from the key's bucket when it has them. A negative cost gives
   * tokens back (an attempt that turned out not to count), never beyond the bucket's capacity.
   */
  take(key: string, cost?: number): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until a token is available (0 when allowed); sent as Retry-After. */
  retryAfterSeconds: number;
  /** Whole tokens left after this one. */
  remaining: number;
}

/** The limits the routes apply. */
export interface RateLimiters {
  /** Chats per client IP (other routes use it too, under keys of their own). */
  perIp: RateLimiter;
  /** Chats per session (likewise). */
  perSession: RateLimiter;
  /** POST /share per session. */
  shares: RateLimiter;
  /** Wrong admin tokens per client IP. */
  adminFailures: RateLimiter;
}
