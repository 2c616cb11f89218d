import type { Handler } from "hono";
import { roundMs } from "../chat-turn.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from "../middleware/errors.ts";

type ServiceStatus = {
  name: string;
  status: "healthy" | "degraded" | "unavailable";
  latency_ms: number | null;
  error: string | null;
};

/** GET /health: the database, the index and the model, each with a status; 503 when all are down. */
export function getHealth(deps: RouteDeps): Handler<AppEnv> {
  const { checks, now } = deps;
  return async (context) => {
    const services: Record<string, ServiceStatus> = {};
    const databaseStart = now();
    try {
      await Promise.all([checks.database(), deps.history.ping()]);
      services.database = {
        name: "database",
        status: "healthy",
        latency_ms: roundMs(now() - databaseStart),
        error: null,
      };
    } catch (error) {
      deps.logger.warn({ err: error }, "health: database unavailable");
      services.database = {
        name: "database",
        status: "unavailable",
        latency_ms: null,
        error: "The database cannot be reached.",
      };
    }
    const indexStart = now();
    const chunks = checks.indexedChunks();
    services.index = {
      name: "index",
      status: chunks > 0 ? "healthy" : "degraded",
      latency_ms: roundMs(now() - indexStart),
      error: chunks > 0 ? null : "Nothing has been ingested yet.",
    };
    const model = checks.model?.();
    if (model) {
      services.llm = {
        name: `${model.provider}:${model.model}`,
        status: model.state === "closed" ? "healthy" : "degraded",
        latency_ms: null,
        error:
          model.state === "closed"
            ? null
            : "Recent model calls failed; answers quote the book until a probe succeeds.",
      };
    }
    // The services S1 names, listed when in use: PostgreSQL when DATABASE_URL points at one (it
    // is then the database), Qdrant when the vectors live there (VECTOR_BACKEND=qdrant).
    const database = services.database;
    if (deps.config.databaseUrl && database) services.postgres = { ...database, name: "postgres" };
    if (checks.vectors) services.qdrant = await qdrantStatus(checks.vectors, deps);
    const statuses = Object.values(services)
      .filter((service) => service.name !== "postgres")
      .map((service) => service.status);
    const status = statuses.every((value) => value === "healthy")
      ? "healthy"
      : statuses.every((value) => value === "unavailable")
        ? "unavailable"
        : "degraded";
    if (status === "unavailable") {
      context.header("Retry-After", String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    return context.json(
      {
        status,
        timestamp: new Date().toISOString(),
        services,
        version: deps.version,
        indexed_chunks: chunks,
      },
      status === "unavailable" ? 503 : 200,
    );
  };
}

/** GET /ready: 200 while the database answers and shutdown has not begun. */
export function getReady(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const notReady = (reason: string) => {
      context.header("Retry-After", String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      return context.json({ ready: false, reason }, 503);
    };
    if (deps.isShuttingDown?.()) return notReady("shutting down");
    try {
      await deps.checks.database();
    } catch {
      return notReady("database unavailable");
    }
    return context.json({ ready: true, indexed_chunks: deps.checks.indexedChunks() });
  };
}

async function qdrantStatus(ping: () => Promise<void>, deps: RouteDeps): Promise<ServiceStatus> {
  const started = deps.now();
  try {
    await ping();
    return {
      name: "qdrant",
      status: "healthy",
      latency_ms: roundMs(deps.now() - started),
      error: null,
    };
  } catch (error) {
    deps.logger.warn({ err: error }, "health: qdrant unavailable");
    return {
      name: "qdrant",
      status: "unavailable",
      latency_ms: null,
      error: "The vector database cannot be reached; answers are unavailable until it is back.",
    };
  }
}
