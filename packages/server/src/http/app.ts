import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { createAnswerCache } from "../pipeline/answer-cache.ts";
import { createChatService } from "../pipeline/chat-service.ts";
import type { AppDeps, RouteDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { createMetrics } from "./metrics.ts";
import { createAdminAuth } from "./middleware/admin-auth.ts";
import { createAdmission, createRateLimit } from "./middleware/admission.ts";
import { corsForOrigins } from "./middleware/cors.ts";
import { handleErrors, methodNotAllowed, notFound } from "./middleware/errors.ts";
import { requestIds } from "./middleware/request-id.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { refuseWhileStopping } from "./middleware/shutdown.ts";
import { memoryRateLimiters } from "./rate-limit/memory-rate-limiter.ts";
import { allowedMethods, honoPath } from "./route-spec.ts";
import { ROUTES } from "./route-table.ts";
import { SITE_INLINE_SOURCES } from "./site.ts";

export type { AppDeps } from "./deps.ts";

/**
 * The HTTP app: request ids, CORS, the central error handler, then every route of the route table
 * and a 405 with `Allow` for a known path asked with another method. No socket: `server.ts` listens.
 */
export function buildApp(deps: AppDeps) {
  const { config, logger } = deps;
  const newId = deps.newId ?? randomUUID;
  const limiters = deps.rateLimiters ?? memoryRateLimiters(config);
  const metrics = deps.metrics ?? createMetrics(deps.checks);
  const answerCache = deps.answerCache
    ? createAnswerCache({ ...deps.answerCache, onResult: metrics.observeAnswerCache })
    : undefined;
  const routeDeps: RouteDeps = {
    ...deps,
    newId,
    now: deps.now ?? (() => performance.now()),
    admission: createAdmission(config, limiters),
    historyRateLimit: createRateLimit(config, limiters, "history:"),
    feedbackRateLimit: createRateLimit(config, limiters, "feedback:"),
    shareRateLimit: createRateLimit(
      config,
      { perIp: limiters.perIp, perSession: limiters.shares },
      "share:",
    ),
    adminAuth: createAdminAuth(config, limiters.adminFailures),
    mcpRateLimit: createRateLimit(config, limiters, "mcp:"),
    chat: createChatService({
      ...deps,
      newId,
      answerCache,
      onHistoryWrite: metrics.observeHistoryWrite,
    }),
    metrics,
    routes: ROUTES,
  };

  const app = new Hono<AppEnv>();
  app.use("*", ...requestIds(newId));
  app.use("*", async (context, next) => {
    const started = performance.now();
    await next();
    const route = context.get("route") ?? "unmatched";
    const status = context.res.status;
    metrics.observeRequest(context.req.method, route, status, (performance.now() - started) / 1000);
    if (status === 429) metrics.observeRateLimited(route);
  });
  app.use("*", securityHeaders(config.frameAncestors, SITE_INLINE_SOURCES));
  const cors = corsForOrigins(config.corsOrigins);
  if (cors) app.use("*", cors);
  const { isShuttingDown } = deps;
  if (isShuttingDown) app.use("*", refuseWhileStopping(isShuttingDown));
  app.onError(handleErrors(logger, newId));
  app.notFound(notFound(deps.site, newId));

  for (const route of ROUTES) {
    app.on(
      route.method,
      honoPath(route.path),
      async (context, next) => {
        context.set("route", route.path);
        await next();
      },
      route.handler(routeDeps),
    );
  }
  for (const [path, allow] of allowedMethods(ROUTES)) {
    app.all(honoPath(path), methodNotAllowed(allow));
  }
  return app;
}
