import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { KeywordHit } from "@lectern/engine/search/keyword-search";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { InsightsReport } from "../insights/report.ts";
import type { McpBookContent } from "../mcp/book.ts";
import type { AnswerCacheOptions } from "../pipeline/answer-cache.ts";
import type { ChatService, QuestionRecorder } from "../pipeline/chat-service.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import type { FeedbackStore } from "../store/feedback-store.ts";
import type { HistoryStore } from "../store/history-store.ts";
import type { ShareStore } from "../store/share-store.ts";
import type { Metrics } from "./metrics.ts";
import type { AdminAuth } from "./middleware/admin-auth.ts";
import type { Admission, RateLimit } from "./middleware/admission.ts";
import type { RateLimiters } from "./rate-limit/rate-limiter.ts";
import type { RouteSpec } from "./route-spec.ts";
import type { createSite } from "./site.ts";

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
    /** A round trip to the vector database, when the vectors live outside the database (Qdrant). */
    vectors?: () => Promise<void>;
    /** The index version being served. */
    indexVersion?: () => number;
    /** The language model's circuit, when a model is configured. */
    model?: () => { provider: string; model: string; state: "closed" | "open" | "half-open" };
  };
  /** The demo book site (pages and the widget script); omitted in API-only apps. */
  site?: ReturnType<typeof createSite>;
  /** Shared answers (POST/GET/DELETE /share), used when SHARE_ENABLED. */
  shares?: ShareStore;
  /** Starter questions for an empty conversation (GET /suggestions); omitted, none. */
  suggestions?: () => string[];
  /** Keyword search as the reader types (GET /search); omitted, it answers 503. */
  search?: (
    query: string,
    limit: number,
    /** The docs version to search (`?version=`); the latest, or the whole book without versions. */
    version?: string,
    /** The locale to search (`?locale=`); the default one, or the whole book without locales. */
    locale?: string,
  ) => KeywordHit[] | Promise<KeywordHit[]>;
  /** The chunks of these pages in page order: a cited passage's whole text (seed S3's excerpt). */
  chunksOfPages?: (filePaths: string[]) => Promise<Map<string, ChunkRecord[]>>;
  /** The book for the MCP server (retrieval and pages); omitted, POST /mcp answers 503. */
  book?: McpBookContent;
  /** Where readers' feedback is stored; omitted, POST /feedback answers 503. */
  feedback?: FeedbackStore;
  /** Where answered questions are logged for authors (INSIGHTS); omitted, nothing is logged. */
  questionLog?: QuestionRecorder;
  /** The authors' insights over a period (GET /admin); omitted, GET /admin answers 404. */
  insights?: (period: { since: Date; until: Date }) => Promise<InsightsReport>;
  /** Per-IP and per-session limits; omitted, token buckets in this process. */
  rateLimiters?: RateLimiters;
  /** Where first questions' answers are cached (ANSWER_CACHE); omitted, nothing is cached. */
  answerCache?: Omit<AnswerCacheOptions, "onResult">;
  /** What GET /metrics reports; omitted, the app makes its own from `checks`. */
  metrics?: Metrics;
  /** True once shutdown has begun: /ready answers 503 and new requests 503 SERVICE_UNAVAILABLE. */
  isShuttingDown?: () => boolean;
  /**
   * Aborted when the shutdown timeout has passed: an answer still running ends with
   * SERVICE_UNAVAILABLE (a 503, or an `error` event in a stream) before its connection is closed.
   */
  shutdownCutOff?: AbortSignal;
  newId?: () => string;
  now?: () => number;
  /** Wall clock for conversation states (seed S2's idle timeout); omitted, `new Date()`. */
  clock?: () => Date;
}

/** What a route handler is built from: the app's deps with defaults filled in, and shared parts. */
export interface RouteDeps extends Omit<AppDeps, "newId" | "now" | "rateLimiters"> {
  newId: () => string;
  now: () => number;
  /** Rate limits and the in-flight cap for the chat routes. */
  admission: Admission;
  /** Rate limits of their own for the history and feedback routes. */
  historyRateLimit: RateLimit;
  feedbackRateLimit: RateLimit;
  /** POST /share: per session at its own rate, per client IP at the chat rate. */
  shareRateLimit: RateLimit;
  /** Admin token checks (GET /admin, GET /feedback), with wrong tokens limited per client IP. */
  adminAuth: AdminAuth;
  /** The MCP endpoint's own bucket (each request); its questions also pass `admission`. */
  mcpRateLimit: RateLimit;
  /** One chat turn: the session's recent exchanges, the pipeline, and the exchange recorded. */
  chat: ChatService;
  /** What GET /metrics reports. */
  metrics: Metrics;
  /** Every route the app serves (for the endpoint listing and the OpenAPI document). */
  routes: readonly RouteSpec[];
}
