import type { Redis } from "ioredis";
import type { Config } from "../../config/config.ts";
import type { RateLimitDecision, RateLimiter, RateLimiters } from "./rate-limiter.ts";

/**
 * Rate limits shared by every instance: the same token bucket as MemoryRateLimiter, kept in Redis
 * and updated by one Lua script, so two instances taking from one bucket at once never both get
 * the last token. Buckets expire once they would be full again, so idle keys cost nothing.
 */

const TAKE = `
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(bucket[1])
local updated = tonumber(bucket[2])
if tokens == nil then
  tokens = capacity
  updated = now
end
local elapsed = math.max(0, now - updated) / 1000
tokens = math.min(capacity, tokens + elapsed * refill)
local allowed = 0
if tokens >= cost then
  tokens = math.min(capacity, tokens - cost)
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / refill * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

export interface RedisRateLimiterOptions {
  capacity: number;
  refillPerSecond: number;
  /** Prepended to every key, so limits of different deployments never mix. */
  prefix: string;
  /** Milliseconds; instances should keep their clocks in sync (NTP), as any shared limit needs. */
  now?: () => number;
  /**
   * Called when Redis cannot be reached; the request is then let through (a limit that is down
   * must not take the assistant down with it).
   */
  onError?: (error: unknown) => void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisRateLimiterOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async take(key: string, cost = 1): Promise<RateLimitDecision> {
    const { capacity, refillPerSecond, prefix } = this.options;
    // While Redis is not connected, answer at once rather than wait for it.
    if (this.redis.status !== "ready") {
      this.options.onError?.(new Error(`Redis is ${this.redis.status}`));
      return { allowed: true, retryAfterSeconds: 0, remaining: 0 };
    }
    let reply: [number, string];
    try {
      reply = (await this.redis.eval(
        TAKE,
        1,
        `${prefix}${key}`,
        capacity,
        refillPerSecond,
        this.now(),
        cost,
      )) as [number, string];
    } catch (error) {
      this.options.onError?.(error);
      return { allowed: true, retryAfterSeconds: 0, remaining: 0 };
    }
    const [allowed, tokensText] = reply;
    const tokens = Number(tokensText);
    if (allowed === 1) {
      return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(tokens + 1e-9) };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((cost - tokens) / refillPerSecond - 1e-9)),
      remaining: 0,
    };
  }
}

/** The chat routes' limits in Redis, sized from the config like the in-process ones. */
export function redisRateLimiters(
  redis: Redis,
  config: Config,
  onError: (error: unknown) => void,
  prefix = "lectern:rl:",
): RateLimiters {
  return {
    perIp: new RedisRateLimiter(redis, {
      capacity: config.rateLimit.perIpBurst,
      refillPerSecond: config.rateLimit.perIpPerMinute / 60,
      prefix: `${prefix}ip:`,
      onError,
    }),
    perSession: new RedisRateLimiter(redis, {
      capacity: config.rateLimit.perSessionBurst,
      refillPerSecond: config.rateLimit.perSessionPerMinute / 60,
      prefix: `${prefix}session:`,
      onError,
    }),
    shares: new RedisRateLimiter(redis, {
      capacity: Math.ceil(config.rateLimit.sharesPerMinute),
      refillPerSecond: config.rateLimit.sharesPerMinute / 60,
      prefix: `${prefix}share:`,
      onError,
    }),
    adminFailures: new RedisRateLimiter(redis, {
      capacity: config.rateLimit.adminFailuresBurst,
      refillPerSecond: config.rateLimit.adminFailuresPerMinute / 60,
      prefix: `${prefix}admin-auth:`,
      onError,
    }),
  };
}
