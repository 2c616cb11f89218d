import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import type { ModelFollowUps } from "@lectern/engine/pipeline/follow-ups";
import type { QueryRewriter } from "@lectern/engine/pipeline/query-rewriter";
import { sliceFilePrefix } from "@lectern/engine/pipeline/version-scope";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import { loadInsights } from "../insights/load.ts";
import { BatchedQuestionLog } from "../insights/question-log.ts";
import type { Lectern } from "../lectern.ts";
import { mcpBookContent } from "../mcp/book.ts";
import { answerSettingsIdentity } from "../pipeline/answer-cache.ts";
import { createChatPipeline } from "../pipeline/answering.ts";
import type { ModelCallReport } from "../pipeline/llm-synthesizer.ts";
import { FeedbackStore } from "../store/feedback-store.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { OffHistoryStore } from "../store/off-history-store.ts";
import { QuestionLogStore } from "../store/question-log-store.ts";
import { RedisAnswerStore } from "../store/redis-answer-store.ts";
import { ShareStore } from "../store/share-store.ts";
import { SqlHistoryStore } from "../store/sql-history-store.ts";
import { VERSION } from "../version.ts";
import { type AppDeps, buildApp } from "./app.ts";
import { createMetrics } from "./metrics.ts";
import { memoryRateLimiters } from "./rate-limit/memory-rate-limiter.ts";
import { redisRateLimiters } from "./rate-limit/redis-rate-limiter.ts";
import { createSite } from "./site.ts";

export { VERSION };

export function createHistoryStore(config: Config, lectern: Lectern): HistoryStore {
  switch (config.history.mode) {
    case "memory":
      return new MemoryHistoryStore();
    case "off":
      return new OffHistoryStore();
    default:
      return new SqlHistoryStore(lectern.db);
  }
}

/**
 * The composition root of the HTTP app: the opened book (config → providers → stores → index) and
 * the chat pipeline every entry point runs, wired into `buildApp`. The server and the HTTP tests
 * both build their app here; tests replace parts through `options`.
 */
export function composeApp(
  lectern: Lectern,
  config: Config,
  options: {
    logger: Logger;
    synthesizer?: AnswerSynthesizer | undefined;
    rewriter?: QueryRewriter | undefined;
    followUps?: ModelFollowUps | undefined;
    history?: HistoryStore | undefined;
    /** The demo book site and the feedback store (the server has them; API-only apps do not). */
    siteAndFeedback?: boolean;
    isShuttingDown?: () => boolean;
    shutdownCutOff?: AbortSignal;
    overrides?: Partial<AppDeps>;
  },
) {
  const history = options.history ?? createHistoryStore(config, lectern);
  const useAnswerCache = config.answerCache.backend === "redis";
  const redis =
    options.siteAndFeedback || useAnswerCache ? sharedRedis(config, options.logger) : undefined;
  // The model reports each call to the metrics, which are made once the model is known.
  let observeModelCall: ((call: ModelCallReport) => void) | undefined;
  // The question log for authors (INSIGHTS=off turns it off): written in batches, off the answer path.
  const questionLogStore =
    config.insights.mode === "on" ? new QuestionLogStore(lectern.db, config.collection) : undefined;
  const questionLog = questionLogStore
    ? new BatchedQuestionLog(questionLogStore, {
        flushMs: config.insights.flushMs,
        keepSelectedText: config.insights.keepSelectedText,
        logger: options.logger,
      })
    : undefined;
  const { pipeline, model } = createChatPipeline(lectern, options.logger, {
    ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}),
    ...(options.rewriter ? { rewriter: options.rewriter } : {}),
    onModelCall: (call) => observeModelCall?.(call),
    ...(options.followUps ? { followUps: options.followUps } : {}),
  });
  const metrics = createMetrics({
    indexedChunks: () => lectern.served.terms.size,
    indexVersion: () => lectern.indexVersion(),
    ...(model ? { model } : {}),
  });
  observeModelCall = metrics.observeModelCall;
  const settings = answerSettingsIdentity(config, VERSION);
  const app = buildApp({
    config,
    pipeline,
    history,
    logger: options.logger,
    version: VERSION,
    checks: {
      database: async () => {
        await lectern.db.query("SELECT 1");
      },
      indexedChunks: () => lectern.served.terms.size,
      indexVersion: () => lectern.indexVersion(),
      ...(model ? { model } : {}),
      ...(lectern.vectors?.backend === "qdrant"
        ? {
            vectors: async () => {
              await lectern.vectors?.count();
            },
          }
        : {}),
    },
    metrics,
    search: (query, limit, version, locale) =>
      lectern.searchKeywords(query, { limit, filePrefix: sliceOf(lectern)({ version, locale }) }),
    suggestions: () => lectern.served.synopsis?.starters ?? [],
    book: mcpBookContent(lectern),
    chunksOfPages: (filePaths) => lectern.chunksOfPages(filePaths),
    ...(config.shareEnabled ? { shares: new ShareStore(lectern.db) } : {}),
    ...(questionLog
      ? {
          questionLog,
          insights: async (period: { since: Date; until: Date }) => {
            await questionLog.flush();
            return loadInsights(lectern, period, {
              warn: (error) =>
                options.logger.warn(
                  { err: error },
                  "Embedding the questions failed: insights topics are grouped lexically",
                ),
            });
          },
        }
      : {}),
    ...(options.isShuttingDown ? { isShuttingDown: options.isShuttingDown } : {}),
    ...(options.shutdownCutOff ? { shutdownCutOff: options.shutdownCutOff } : {}),
    ...(options.siteAndFeedback
      ? {
          site: createSite({
            store: lectern.store,
            title: () => lectern.title(),
            description: () => lectern.served.synopsis?.about,
            share: config.shareEnabled,
            slice: sliceOf(lectern),
          }),
          feedback: new FeedbackStore(lectern.db),
          rateLimiters: redis
            ? redisRateLimiters(redis.client, config, redis.onError, `${config.redisKeyPrefix}rl:`)
            : memoryRateLimiters(config),
        }
      : {}),
    ...(useAnswerCache && redis
      ? {
          answerCache: {
            store: new RedisAnswerStore(redis.client, `${config.redisKeyPrefix}answer:`),
            ttlSeconds: config.answerCache.ttlSeconds,
            scope: () => `${settings}:${lectern.indexVersion()}`,
            onError: redis.onError,
          },
        }
      : {}),
    ...options.overrides,
  });
  return {
    app,
    history,
    /** The question log's store, for its retention purge; undefined with INSIGHTS=off. */
    questionLogStore,
    /** Resolves once shared backends (Redis) are connected, or have had 2 s to connect. */
    ready: redis?.ready ?? Promise.resolve(),
    /** Writes the questions still queued, and disconnects shared backends. */
    close: async () => {
      await questionLog?.close();
      redis?.close();
    },
  };
}

/**
 * With REDIS_URL, rate limits (and, with ANSWER_CACHE=redis, cached answers) live in Redis so every
 * instance shares them; a Redis that cannot be reached is logged and lets requests through, uncached.
 *
 * A Redis that hangs (stopped, frozen, behind a partition that drops packets) keeps its connection
 * open and answers nothing, so every command is bounded by REDIS_COMMAND_TIMEOUT_MS, handshake
 * included. A command that times out drops the connection: until Redis answers the handshake of
 * a new one the client is not ready, and the limiter and the cache answer at once without it
 * instead of each request waiting out the timeout again.
 */
function sharedRedis(
  config: Config,
  logger: Logger,
):
  | { client: Redis; onError: (error: unknown) => void; ready: Promise<void>; close: () => void }
  | undefined {
  if (!config.redisUrl) return undefined;
  const timeoutMs = config.redisCommandTimeoutMs;
  const client = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const ready = new Promise<void>((resolve) => {
    client.once("ready", () => resolve());
    setTimeout(resolve, 2_000).unref();
  });
  let lastWarning = 0;
  const onError = (error: unknown) => {
    const timedOut = error instanceof Error && /Command timed out/.test(error.message);
    if (timedOut && client.status === "ready") client.disconnect(true);
    // One line a minute at most while Redis is down, and never the URL (it may hold a password).
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    const message = timedOut
      ? `no reply within ${timeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`
      : error instanceof Error
        ? error.message
        : String(error);
    logger.warn(
      { error: message },
      "Redis unavailable: rate limits are not applied and answers are not cached",
    );
  };
  client.on("error", onError);
  return { client, onError, ready, close: () => client.disconnect() };
}

/**
 * The file prefix of the docs version and locale a request names (`version`, `locale`; the
 * latest version and the default locale when absent); undefined for a book without either.
 */
export function sliceOf(
  lectern: Pick<Lectern, "served" | "config">,
): (request: { version?: string | undefined; locale?: string | undefined }) => string | undefined {
  return (request) => sliceFilePrefix(lectern.served, lectern.config.routeBasePath, request);
}
