import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/** CORS for the configured origins (`*` for any); undefined when none are configured. */
export function corsForOrigins(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return cors({
    origin: (origin) => (allowed.has("*") ? origin || "*" : allowed.has(origin) ? origin : null),
    allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
    allowHeaders: ["Content-Type", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id", "Retry-After"],
    maxAge: 600,
  });
}
