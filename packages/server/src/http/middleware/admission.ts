import { createError } from "@lectern/engine/errors";
import type { Context } from "hono";
import type { Config } from "../../config/config.ts";
import { ConcurrencyLimiter } from "../rate-limit/concurrency-limiter.ts";
import type { RateLimiters } from "../rate-limit/rate-limiter.ts";

/**
 * Admission for a chat: the per-IP and per-session rate limits (429 with Retry-After), then a slot
 * under the in-flight cap. Resolves to the function that frees the slot.
 */
export type Admission = (context: Context, sessionId: string | null) => Promise<() => void>;

export function createAdmission(config: Config, limiters: RateLimiters): Admission {
  const inFlight = new ConcurrencyLimiter(config.limits.maxConcurrentChats);
  const limitChats = createRateLimit(config, limiters, "");
  return async (context, sessionId) => {
    await limitChats(context, sessionId);
    const release = inFlight.tryAcquire();
    if (!release) {
      throw createError(
        "RATE_LIMITED",
        "Too many questions are being answered right now. Please try again in a moment.",
        {
          details: { reason: "concurrency", max_in_flight: config.limits.maxConcurrentChats },
          retryAfterSeconds: 1,
        },
      );
    }
    return release;
  };
}

/**
 * Takes a token from the per-IP and (given a session) the per-session bucket, or throws 429
 * RATE_LIMITED with Retry-After. Routes other than the chats count in buckets of their own
 * (`prefix`), at the same configured rates unless given buckets of their own, so reading history
 * or voting never costs a question.
 */
export type RateLimit = (context: Context, sessionId: string | null) => Promise<void>;

export function createRateLimit(
  config: Config,
  limiters: Pick<RateLimiters, "perIp" | "perSession">,
  prefix: string,
): RateLimit {
  return async (context, sessionId) => {
    if (!config.rateLimit.enabled) return;
    const byIp = await limiters.perIp.take(
      `${prefix}ip:${clientIp(context, config.rateLimit.trustProxy)}`,
    );
    if (!byIp.allowed) throw rateLimited(byIp.retryAfterSeconds, "ip");
    if (sessionId) {
      const bySession = await limiters.perSession.take(`${prefix}session:${sessionId}`);
      if (!bySession.allowed) throw rateLimited(bySession.retryAfterSeconds, "session");
    }
  };
}

function rateLimited(retryAfterSeconds: number, scope: "ip" | "session") {
  return createError(
    "RATE_LIMITED",
    `Too many requests. Please wait ${retryAfterSeconds} s and try again.`,
    { details: { scope, retry_after: retryAfterSeconds }, retryAfterSeconds },
  );
}

/** The client's address: the socket's, or the first X-Forwarded-For entry behind a trusted proxy. */
export function clientIp(context: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = context.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (
    context.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  )?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}
