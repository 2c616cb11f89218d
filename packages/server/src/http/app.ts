import { randomUUID, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { streamSSE } from "hono/streaming";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import { createError } from "../errors.ts";
import type { ChatPipeline } from "../pipeline/chat-pipeline.ts";
import { classifyError } from "../pipeline/error-recovery.ts";
import type { ChatInput, ChatOutcome } from "../pipeline/types.ts";
import type { FeedbackStore } from "../store/feedback-store.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { registerOpenApi } from "./openapi.ts";
import { ConcurrencyLimiter, TokenBucketLimiter } from "./rate-limit.ts";
import { invalidSession, isUuidV4, readChatInput } from "./request.ts";
import { type createSite, prefersHtml } from "./site.ts";
import {
  type ChatResponse,
  type ErrorBody,
  FeedbackRequestSchema,
  type ResponseMetadata,
} from "./wire.ts";

/** What the HTTP layer needs; passed in so tests can build the app without a socket. */
export interface AppDeps {
  config: Config;
  pipeline: ChatPipeline;
  history: HistoryStore;
  logger: Logger;
  version: string;
  /** Health of the book index: chunk count, and a database round trip. */
  checks: {
    database: () => Promise<void>;
    indexedChunks: () => number;
    /** The language model's circuit, when a model is configured. */
    model?: () => { provider: string; model: string; state: "closed" | "open" | "half-open" };
  };
  /** The demo book site (pages and the widget script); omitted in API-only apps. */
  site?: ReturnType<typeof createSite>;
  /** Where readers' feedback is stored; omitted, POST /feedback answers 503. */
  feedback?: FeedbackStore;
  /** True once shutdown has begun: /ready answers 503. */
  isShuttingDown?: () => boolean;
  newId?: () => string;
  now?: () => number;
}

type Env = { Variables: { requestId: string } };

const ENDPOINTS = [
  { method: "POST", path: "/chat", description: "Ask a question; JSON answer with sources" },
  { method: "POST", path: "/chat/stream", description: "Ask a question; Server-Sent Events" },
  {
    method: "GET",
    path: "/history/{session_id}",
    description: "A session's exchanges, oldest first",
  },
  {
    method: "DELETE",
    path: "/history/{session_id}",
    description: "Delete a session and its exchanges",
  },
  { method: "GET", path: "/health", description: "Status of the database and the index" },
  { method: "GET", path: "/ready", description: "Readiness for traffic" },
  { method: "POST", path: "/feedback", description: "Thumbs up or down on an answer" },
  { method: "GET", path: "/feedback", description: "Export feedback (admin token)" },
  { method: "GET", path: "/openapi.json", description: "This API as OpenAPI 3.1" },
];

export function buildApp(deps: AppDeps) {
  const { config, logger } = deps;
  const newId = deps.newId ?? randomUUID;
  const now = deps.now ?? (() => performance.now());
  const app = new Hono<Env>();
  const ipLimiter = new TokenBucketLimiter({
    capacity: config.rateLimit.perIpBurst,
    refillPerSecond: config.rateLimit.perIpPerMinute / 60,
  });
  const sessionLimiter = new TokenBucketLimiter({
    capacity: config.rateLimit.perSessionBurst,
    refillPerSecond: config.rateLimit.perSessionPerMinute / 60,
  });
  const inFlight = new ConcurrencyLimiter(config.limits.maxConcurrentChats);

  app.use("*", async (context, next) => {
    const incoming = context.req.header("x-request-id");
    const requestId = incoming && isUuidV4(incoming) ? incoming : newId();
    context.set("requestId", requestId);
    await next();
    context.header("X-Request-Id", requestId);
  });

  if (config.corsOrigins.length > 0) {
    const allowed = new Set(config.corsOrigins);
    app.use(
      "*",
      cors({
        origin: (origin) =>
          allowed.has("*") ? origin || "*" : allowed.has(origin) ? origin : null,
        allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
        allowHeaders: ["Content-Type", "X-Request-Id"],
        exposeHeaders: ["X-Request-Id", "Retry-After"],
        maxAge: 600,
      }),
    );
  }

  app.onError((error, context) => {
    const requestId = context.get("requestId") ?? newId();
    const classified = classifyError(error);
    if (classified.status >= 500) {
      logger.error({ err: error, requestId, errorType: classified.errorType }, "request failed");
    } else {
      logger.debug({ requestId, code: classified.errorCode }, classified.userSafeMessage);
    }
    const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    if (retryAfter) context.header("Retry-After", String(retryAfter));
    context.header("X-Request-Id", requestId);
    return context.json(
      errorBody(classified.errorCode, classified.userSafeMessage, requestId, classified.details),
      classified.status as 400,
    );
  });

  app.notFound(async (context) => {
    // A book page, for browsers reading the demo site.
    if (deps.site && context.req.method === "GET") {
      const page = await deps.site.page(context);
      if (page) return page;
    }
    const requestId = context.get("requestId") ?? newId();
    context.header("X-Request-Id", requestId);
    return context.json(
      errorBody("NOT_FOUND", `No endpoint ${context.req.method} ${context.req.path}.`, requestId),
      404,
    );
  });

  /** Rate limits and the in-flight cap; returns the release function of the in-flight slot. */
  const admit = (context: Context<Env>, sessionId: string | null): (() => void) => {
    if (config.rateLimit.enabled) {
      const byIp = ipLimiter.take(`ip:${clientIp(context, config.rateLimit.trustProxy)}`);
      if (!byIp.allowed) throw rateLimited(byIp.retryAfterSeconds, "ip");
      if (sessionId) {
        const bySession = sessionLimiter.take(`session:${sessionId}`);
        if (!bySession.allowed) throw rateLimited(bySession.retryAfterSeconds, "session");
      }
    }
    const release = inFlight.tryAcquire();
    if (!release) {
      const error = createError(
        "RATE_LIMITED",
        "Too many questions are being answered right now. Please try again in a moment.",
        {
          details: { reason: "concurrency", max_in_flight: config.limits.maxConcurrentChats },
        },
      );
      (error as { retryAfterSeconds?: number }).retryAfterSeconds = 1;
      throw error;
    }
    return release;
  };

  const toResponse = (input: ChatInput, outcome: ChatOutcome, started: number): ChatResponse => ({
    answer: outcome.answer,
    fallback_message: outcome.fallbackMessage,
    sources: outcome.sources,
    metadata: metadataOf(input, outcome, now() - started),
    session_id: input.sessionId,
    confidence: outcome.confidence,
    message_id: deps.history.kind === "off" ? null : input.requestId,
  });

  const saveExchange = async (input: ChatInput, response: ChatResponse) => {
    if (deps.history.kind === "off") return;
    await deps.history.saveExchange({
      sessionId: input.sessionId,
      requestId: input.requestId,
      query: input.query,
      selectedText: input.selectedText,
      response: response.answer ?? response.fallback_message ?? "",
      sources: response.sources,
      metadata: { ...response.metadata, confidence: response.confidence },
    });
  };

  /** The session's recent exchanges, as context for a follow-up; none when they cannot be read. */
  const withHistory = async (input: ChatInput): Promise<ChatInput> => {
    if (deps.history.kind === "off" || config.history.window === 0) return input;
    try {
      const recent = await deps.history.getHistory(input.sessionId, config.history.window);
      return {
        ...input,
        history: (recent?.entries ?? []).map((entry) => ({
          query: entry.query,
          answer: entry.response,
        })),
      };
    } catch (error) {
      logger.warn(
        { err: error, requestId: input.requestId },
        "history unavailable; answering without context",
      );
      return input;
    }
  };

  app.post("/chat", async (context) => {
    const started = now();
    const requestId = context.get("requestId");
    const request = await readChatInput(context, config, { requestId, newSessionId: newId });
    const release = admit(context, request.sessionId);
    const timeout = AbortSignal.timeout(config.requestTimeoutMs);
    const signal = AbortSignal.any([timeout, context.req.raw.signal]);
    try {
      const input = await withHistory(request);
      const outcome = await withTimeout(deps.pipeline.run(input, { signal }), timeout);
      const response = toResponse(input, outcome, started);
      await saveExchange(input, response);
      logger.info(
        {
          requestId,
          mode: outcome.mode,
          ms: response.metadata.query_time_ms,
          states: outcome.states,
        },
        "chat",
      );
      return context.json(response);
    } finally {
      release();
    }
  });

  app.post("/chat/stream", async (context) => {
    const started = now();
    const requestId = context.get("requestId");
    const request = await readChatInput(context, config, { requestId, newSessionId: newId });
    const release = admit(context, request.sessionId);
    const input = await withHistory(request).catch((error: unknown) => {
      release();
      throw error;
    });
    const abort = new AbortController();
    const timeout = AbortSignal.timeout(config.requestTimeoutMs);
    const signal = AbortSignal.any([abort.signal, timeout, context.req.raw.signal]);
    return streamSSE(context, async (stream) => {
      stream.onAbort(() => abort.abort());
      try {
        const pending: Promise<void>[] = [];
        const outcome = await withTimeout(
          deps.pipeline.run(input, {
            signal,
            onDelta: (delta) => {
              pending.push(stream.writeSSE({ event: "delta", data: JSON.stringify({ delta }) }));
            },
          }),
          timeout,
        );
        await Promise.all(pending);
        if (signal.aborted) return;
        const response = toResponse(input, outcome, started);
        await stream.writeSSE({
          event: "sources",
          data: JSON.stringify({
            sources: response.sources,
            metadata: response.metadata,
            session_id: response.session_id,
            confidence: response.confidence,
            answer: response.answer,
            fallback_message: response.fallback_message,
          }),
        });
        // The exchange is stored only once the whole answer has been produced and sent.
        if (signal.aborted) return;
        await saveExchange(input, response);
        await stream.writeSSE({
          event: "done",
          data: JSON.stringify({ done: true, message_id: response.message_id }),
        });
        logger.info(
          { requestId, mode: outcome.mode, stream: true, states: outcome.states },
          "chat",
        );
      } catch (error) {
        if (abort.signal.aborted || context.req.raw.signal.aborted) {
          logger.info({ requestId }, "stream cancelled by the client");
          return;
        }
        const classified = classifyError(timeout.aborted ? createError("TIMEOUT") : error);
        if (classified.status >= 500) logger.error({ err: error, requestId }, "stream failed");
        await stream.writeSSE({
          event: "error",
          data: JSON.stringify({
            error: {
              error_code: classified.errorCode,
              message: classified.userSafeMessage,
              request_id: requestId,
              retry_able: classified.retryable,
            },
          }),
        });
      } finally {
        release();
      }
    });
  });

  app.get("/history/:session_id", async (context) => {
    const sessionId = context.req.param("session_id");
    if (!isUuidV4(sessionId)) throw invalidSession();
    const limitText = context.req.query("limit");
    const limit =
      limitText === undefined ? Math.min(50, config.limits.historyMaxLimit) : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > config.limits.historyMaxLimit) {
      throw createError(
        "VALIDATION_ERROR",
        `limit must be an integer from 1 to ${config.limits.historyMaxLimit}.`,
        {
          details: { field: "limit" },
        },
      );
    }
    const history = await deps.history.getHistory(sessionId.toLowerCase(), limit);
    if (!history) throw createError("SESSION_NOT_FOUND", "No conversation with this session id.");
    return context.json({
      session_id: sessionId.toLowerCase(),
      entries: history.entries.map((entry) => ({
        timestamp: entry.timestamp.toISOString(),
        query: entry.query,
        response: entry.response,
        sources: entry.sources,
        selected_text: entry.selectedText,
        message_id: entry.requestId,
        request_id: entry.requestId,
        metadata: entry.metadata,
      })),
      total_entries: history.total,
    });
  });

  app.delete("/history/:session_id", async (context) => {
    const sessionId = context.req.param("session_id");
    if (!isUuidV4(sessionId)) throw invalidSession();
    const deleted = await deps.history.deleteSession(sessionId.toLowerCase());
    if (!deleted) throw createError("SESSION_NOT_FOUND", "No conversation with this session id.");
    return context.json({ session_id: sessionId.toLowerCase(), deleted: true });
  });

  app.post("/feedback", async (context) => {
    const contentType = context.req.header("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw createError("UNSUPPORTED_MEDIA_TYPE");
    const text = await context.req.text();
    if (text.length > 16_384)
      throw createError("PAYLOAD_TOO_LARGE", "Feedback is limited to 16 KiB.");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw createError("INVALID_JSON");
    }
    const parsed = FeedbackRequestSchema.safeParse(json);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join(".") || "body";
      if (field === "session_id") throw invalidSession();
      throw createError("VALIDATION_ERROR", `Invalid field "${field}".`, { details: { field } });
    }
    if (!isUuidV4(parsed.data.session_id)) throw invalidSession();
    if (!deps.feedback)
      throw createError("SERVICE_UNAVAILABLE", "Feedback is not stored on this server.");
    await deps.feedback.save({
      sessionId: parsed.data.session_id.toLowerCase(),
      messageId: parsed.data.message_id,
      rating: parsed.data.rating,
      comment: parsed.data.comment?.trim() || null,
    });
    return context.json({ stored: true }, 201);
  });

  app.get("/feedback", async (context) => {
    const token = context.req.header("authorization")?.replace(/^Bearer\s+/i, "");
    if (!config.adminToken || !token || !sameSecret(token, config.adminToken)) {
      throw createError(
        "UNAUTHORIZED",
        config.adminToken
          ? "A valid admin token is required."
          : "Set LECTERN_ADMIN_TOKEN to export feedback.",
      );
    }
    if (!deps.feedback)
      throw createError("SERVICE_UNAVAILABLE", "Feedback is not stored on this server.");
    const entries = (await deps.feedback.all()).map((entry) => ({
      session_id: entry.sessionId,
      message_id: entry.messageId,
      rating: entry.rating,
      comment: entry.comment,
      created_at: entry.createdAt.toISOString(),
    }));
    if (context.req.query("format") === "csv") {
      const cell = (value: string | null) => `"${(value ?? "").replace(/"/g, '""')}"`;
      const lines = [
        "session_id,message_id,rating,comment,created_at",
        ...entries.map((entry) =>
          [entry.session_id, entry.message_id, entry.rating, entry.comment, entry.created_at]
            .map(cell)
            .join(","),
        ),
      ];
      return context.body(`${lines.join("\n")}\n`, 200, {
        "content-type": "text/csv; charset=utf-8",
      });
    }
    return context.json({ entries, total: entries.length });
  });

  app.get("/health", async (context) => {
    const services: Record<
      string,
      {
        name: string;
        status: "healthy" | "degraded" | "unavailable";
        latency_ms: number | null;
        error: string | null;
      }
    > = {};
    const databaseStart = now();
    try {
      await Promise.all([deps.checks.database(), deps.history.ping()]);
      services.database = {
        name: "database",
        status: "healthy",
        latency_ms: round(now() - databaseStart),
        error: null,
      };
    } catch (error) {
      logger.warn({ err: error }, "health: database unavailable");
      services.database = {
        name: "database",
        status: "unavailable",
        latency_ms: null,
        error: "The database cannot be reached.",
      };
    }
    const indexStart = now();
    const chunks = deps.checks.indexedChunks();
    services.index = {
      name: "index",
      status: chunks > 0 ? "healthy" : "degraded",
      latency_ms: round(now() - indexStart),
      error: chunks > 0 ? null : "Nothing has been ingested yet.",
    };
    const model = deps.checks.model?.();
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
    const statuses = Object.values(services).map((service) => service.status);
    const status = statuses.every((value) => value === "healthy")
      ? "healthy"
      : statuses.every((value) => value === "unavailable")
        ? "unavailable"
        : "degraded";
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
  });

  app.get("/ready", async (context) => {
    if (deps.isShuttingDown?.())
      return context.json({ ready: false, reason: "shutting down" }, 503);
    try {
      await deps.checks.database();
    } catch {
      return context.json({ ready: false, reason: "database unavailable" }, 503);
    }
    return context.json({ ready: true, indexed_chunks: deps.checks.indexedChunks() });
  });

  app.get("/lectern.js", async (context) => {
    if (!deps.site) throw createError("NOT_FOUND", "No endpoint GET /lectern.js.");
    return deps.site.widget(context);
  });

  app.get("/", async (context) => {
    if (deps.site && prefersHtml(context)) {
      const page = await deps.site.page(context);
      if (page) return page;
    }
    return context.json({
      name: "Lectern",
      description: "Answers questions about a documentation book, with citations to its sections.",
      version: deps.version,
      endpoints: ENDPOINTS,
      openapi: "/openapi.json",
    });
  });

  registerOpenApi(app, deps.version);

  // Known paths with another method: 405 with the methods that are allowed.
  const allowed: Record<string, string> = {
    "/chat": "POST",
    "/chat/stream": "POST",
    "/history/:session_id": "GET, DELETE",
    "/health": "GET",
    "/ready": "GET",
    "/openapi.json": "GET",
    "/": "GET",
    "/lectern.js": "GET",
    "/feedback": "GET, POST",
  };
  for (const [path, methods] of Object.entries(allowed)) {
    app.all(path, (context) => {
      if (context.req.method === "OPTIONS") return context.body(null, 204);
      context.header("Allow", methods);
      return context.json(
        errorBody(
          "METHOD_NOT_ALLOWED",
          `${context.req.method} is not allowed on ${context.req.path}; use ${methods}.`,
          context.get("requestId"),
        ),
        405,
      );
    });
  }
  return app;
}

function metadataOf(input: ChatInput, outcome: ChatOutcome, elapsedMs: number): ResponseMetadata {
  return {
    query_time_ms: round(elapsedMs),
    retrieval_count: outcome.retrievalCount,
    mode: outcome.mode,
    low_confidence: outcome.lowConfidence,
    request_id: input.requestId,
    search_query: outcome.searchQuery,
    original_query: input.query,
    route: outcome.route,
    injection_flagged: outcome.injectionFlagged,
    timings: outcome.timings,
    ...(outcome.support === undefined ? {} : { support: outcome.support }),
    ...(outcome.degraded ? { degraded: true } : {}),
  };
}

export function errorBody(
  code: string,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
): ErrorBody {
  return { error_code: code, message, request_id: requestId, ...(details ? { details } : {}) };
}

function rateLimited(retryAfterSeconds: number, scope: "ip" | "session") {
  const error = createError(
    "RATE_LIMITED",
    `Too many requests. Please wait ${retryAfterSeconds} s and try again.`,
    {
      details: { scope, retry_after: retryAfterSeconds },
    },
  );
  (error as { retryAfterSeconds?: number }).retryAfterSeconds = retryAfterSeconds;
  return error;
}

/** The client's address: the socket's, or the first X-Forwarded-For entry behind a trusted proxy. */
function clientIp(context: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = context.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (
    context.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  )?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

async function withTimeout<T>(work: Promise<T>, timeout: AbortSignal): Promise<T> {
  if (timeout.aborted) throw createError("TIMEOUT");
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(createError("TIMEOUT"));
    timeout.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    if (onAbort) timeout.removeEventListener("abort", onAbort);
  }
}

/** Compares secrets in constant time. */
function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
