import type { Handler } from "hono";
import { createError } from "../../errors.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { bearerToken, sameSecret } from "../secret.ts";

/** GET /metrics: Prometheus text format; with LECTERN_METRICS_TOKEN set, only for that bearer. */
export function getMetrics(deps: RouteDeps): Handler<AppEnv> {
  const { metricsToken } = deps.config;
  const { registry } = deps.metrics;
  return async (context) => {
    if (metricsToken) {
      const token = bearerToken(context.req.header("authorization"));
      if (!token || !sameSecret(token, metricsToken)) {
        throw createError("UNAUTHORIZED", "A valid metrics token is required.");
      }
    }
    context.header("Content-Type", registry.contentType);
    return context.body(await registry.metrics());
  };
}
