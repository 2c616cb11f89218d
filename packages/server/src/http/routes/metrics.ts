import { createError } from "@lectern/engine/errors";
import type { Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { bearerToken, sameSecret } from "../secret.ts";

/**
 * GET /metrics: Prometheus text format; with LECTERN_METRICS_TOKEN set, only for that bearer. Wrong
 * tokens are limited per client in the same bucket as the admin token's (`deps.adminAuth`).
 */
export function getMetrics(deps: RouteDeps): Handler<AppEnv> {
  const { metricsToken } = deps.config;
  const { registry } = deps.metrics;
  return async (context) => {
    if (metricsToken) {
      const valid = (authorization: string) => {
        const token = bearerToken(authorization);
        return token !== undefined && sameSecret(token, metricsToken);
      };
      if (!(await deps.adminAuth(context, valid))) {
        throw createError("UNAUTHORIZED", "A valid metrics token is required.");
      }
    }
    context.header("Content-Type", registry.contentType);
    return context.body(await registry.metrics());
  };
}
