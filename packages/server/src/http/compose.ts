import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { Lectern } from "../lectern.ts";
import type { AnswerSynthesizer } from "../pipeline/answer-synthesizer.ts";
import { createChatPipeline } from "../pipeline/answering.ts";
import type { QueryRewriter } from "../pipeline/query-rewriter.ts";
import { FeedbackStore } from "../store/feedback-store.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { OffHistoryStore } from "../store/off-history-store.ts";
import { SqlHistoryStore } from "../store/sql-history-store.ts";
import { VERSION } from "../version.ts";
import { type AppDeps, buildApp } from "./app.ts";
import { memoryRateLimiters } from "./rate-limit/memory-rate-limiter.ts";
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
    ...(options.isShuttingDown ? { isShuttingDown: options.isShuttingDown } : {}),
    ...(options.siteAndFeedback
      ? {
          site: createSite({ store: lectern.store, title: () => lectern.title() }),
          feedback: new FeedbackStore(lectern.db),
          rateLimiters: memoryRateLimiters(config),
        }
      : {}),
    ...options.overrides,
  });
  return { app, history };
}
