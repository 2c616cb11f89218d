import { createError } from "@lectern/engine/errors";
import type { Context } from "hono";
import type { Config } from "../../config/config.ts";
import type { RateLimiter } from "../rate-limit/rate-limiter.ts";
import { clientIp } from "./admission.ts";

/**
 * Whether a request's Authorization header is valid (`isValid` decides), with wrong admin tokens
 * counted per client IP: a client that has sent `rateLimit.adminFailuresBurst` wrong ones gets 429
 * RATE_LIMITED with Retry-After for every attempt, the right token included, until its bucket
 * refills, so the token cannot be guessed at the server's speed. Every attempt takes a token before
 * it is checked, so parallel guesses are counted too; the right token gives its token back. A
 * request without the header is no guess and costs nothing.
 */
export type AdminAuth = (
  context: Context,
  isValid: (authorization: string) => boolean,
) => Promise<boolean>;

export function createAdminAuth(config: Config, failures: RateLimiter): AdminAuth {
  return async (context, isValid) => {
    const authorization = context.req.header("authorization");
    if (!authorization) return false;
    if (!config.rateLimit.enabled) return isValid(authorization);
    const key = `ip:${clientIp(context, config.rateLimit.trustProxy)}`;
    const attempt = await failures.take(key);
    if (!attempt.allowed) {
      throw createError(
        "RATE_LIMITED",
        `Too many wrong tokens. Please wait ${attempt.retryAfterSeconds} s and try again.`,
        {
          details: { scope: "admin_token", retry_after: attempt.retryAfterSeconds },
          retryAfterSeconds: attempt.retryAfterSeconds,
        },
      );
    }
    if (!isValid(authorization)) return false;
    await failures.take(key, -1);
    return true;
  };
}
