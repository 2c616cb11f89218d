import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { Lectern } from "../lectern.ts";
import { mcpBookContent } from "../mcp/book.ts";
import type { AnswerSynthesizer } from "../pipeline/answer-synthesizer.ts";
import { createChatPipeline } from "../pipeline/answering.ts";
import type { QueryRewriter } from "../pipeline/query-rewriter.ts";
import { keywordSearch } from "../search/keyword-search.ts";
import { FeedbackStore } from "../store/feedback-store.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { OffHistoryStore } from "../store/off-history-store.ts";
import { ShareStore } from "../store/share-store.ts";
import { SqlHistoryStore } from "../store/sql-history-store.ts";
import { VERSION } from "../version.ts";
import { type AppDeps, buildApp } from "./app.ts";
import { memoryRateLimiters } from "./rate-limit/memory-rate-limiter.ts";
import type { RateLimiters } from "./rate-limit/rate-limiter.ts";
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
    history?: HistoryStore | undefined;
    /** The demo book site and the feedback store (the server has them; API-only apps do not). */
    siteAndFeedback?: boolean;
    isShuttingDown?: () => boolean;
    overrides?: Partial<AppDeps>;
  },
) {
  const history = options.history ?? createHistoryStore(config, lectern);
  const shared = options.siteAndFeedback ? sharedRateLimiters(config, options.logger) : undefined;
  const { pipeline, model } = createChatPipeline(lectern, options.logger, {
    ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}),
    ...(options.rewriter ? { rewriter: options.rewriter } : {}),
  });
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
      indexedChunks: () => lectern.index.size,
      ...(model ? { model } : {}),
    },
    search: (query, limit) => keywordSearch(lectern.index, query, { limit }),
    suggestions: () => lectern.synopsis?.starters ?? [],
    book: mcpBookContent(lectern),
    ...(config.shareEnabled ? { shares: new ShareStore(lectern.db) } : {}),
    ...(options.isShuttingDown ? { isShuttingDown: options.isShuttingDown } : {}),
    ...(options.siteAndFeedback
      ? {
          site: createSite({
            store: lectern.store,
            title: () => lectern.title(),
            description: () => lectern.synopsis?.about,
            share: config.shareEnabled,
          }),
          feedback: new FeedbackStore(lectern.db),
          rateLimiters: shared?.limiters ?? memoryRateLimiters(config),
        }
      : {}),
    ...options.overrides,
  });
  return {
    app,
    history,
    /** Resolves once shared backends (Redis) are connected, or have had 2 s to connect. */
    ready: shared?.ready ?? Promise.resolve(),
    close: async () => shared?.close(),
  };
}

/**
 * With REDIS_URL, rate limits live in Redis so every instance shares them; a Redis that cannot be
 * reached is logged and lets requests through.
 */
function sharedRateLimiters(
  config: Config,
  logger: Logger,
): { limiters: RateLimiters; ready: Promise<void>; close: () => void } | undefined {
  if (!config.redisUrl) return undefined;
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const ready = new Promise<void>((resolve) => {
    redis.once("ready", () => resolve());
    setTimeout(resolve, 2_000).unref();
  });
  let lastWarning = 0;
  const warn = (error: unknown) => {
    // One line a minute at most while Redis is down, and never the URL (it may hold a password).
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ error: message }, "Redis unavailable: rate limits are not applied");
  };
  redis.on("error", warn);
  return {
    limiters: redisRateLimiters(redis, config, warn, `${config.redisKeyPrefix}rl:`),
    ready,
    close: () => redis.disconnect(),
  };
}
