import { createError } from "@lectern/engine/errors";

/** Environment variables: the config key each one sets and how its text becomes a value. */

export type EnvBinding = { key: string[]; type: "string" | "int" | "number" | "boolean" | "list" };

/** Every environment variable Lectern reads, and the config key it sets. */
export const ENV_BINDINGS: Record<string, EnvBinding> = {
  LECTERN_DATA_DIR: { key: ["dataDir"], type: "string" },
  LECTERN_DOCS_DIR: { key: ["docsDir"], type: "string" },
  LECTERN_COLLECTION: { key: ["collection"], type: "string" },
  LECTERN_TITLE: { key: ["title"], type: "string" },
  LECTERN_BASE_URL: { key: ["baseUrl"], type: "string" },
  LECTERN_ROUTE_BASE_PATH: { key: ["routeBasePath"], type: "string" },
  DATABASE_URL: { key: ["databaseUrl"], type: "string" },
  LECTERN_PGLITE_COMPILER: { key: ["pgliteCompiler"], type: "string" },
  LECTERN_PGLITE_THREAD: { key: ["pgliteThread"], type: "string" },
  PORT: { key: ["port"], type: "int" },
  HOST: { key: ["host"], type: "string" },
  LOG_LEVEL: { key: ["logLevel"], type: "string" },
  LECTERN_CHUNK_TARGET_TOKENS: { key: ["chunking", "targetTokens"], type: "int" },
  LECTERN_CHUNK_MAX_TOKENS: { key: ["chunking", "maxTokens"], type: "int" },
  LECTERN_CHUNK_OVERLAP: { key: ["chunking", "overlapRatio"], type: "number" },
  LECTERN_MAX_PAGE_BYTES: { key: ["ingest", "maxPageBytes"], type: "int" },
  LECTERN_FOLLOW_LINKS_OUTSIDE_DOCS: { key: ["ingest", "followLinksOutsideDocs"], type: "boolean" },
  LECTERN_TOP_K: { key: ["search", "topK"], type: "int" },
  LECTERN_MAX_CHUNKS_PER_PAGE: { key: ["search", "maxChunksPerPage"], type: "int" },
  HISTORY: { key: ["history", "mode"], type: "string" },
  HISTORY_RETENTION_DAYS: { key: ["history", "retentionDays"], type: "number" },
  HISTORY_WINDOW: { key: ["history", "window"], type: "int" },
  HISTORY_MAX_CONTEXT_MESSAGES: { key: ["history", "maxContextMessages"], type: "int" },
  HISTORY_INACTIVE_MINUTES: { key: ["history", "inactiveAfterMinutes"], type: "number" },
  INSIGHTS: { key: ["insights", "mode"], type: "string" },
  INSIGHTS_RETENTION_DAYS: { key: ["insights", "retentionDays"], type: "number" },
  INSIGHTS_KEEP_SELECTED_TEXT: { key: ["insights", "keepSelectedText"], type: "boolean" },
  INSIGHTS_FLUSH_MS: { key: ["insights", "flushMs"], type: "int" },
  INSIGHTS_TOPIC_SIMILARITY: { key: ["insights", "topicSimilarity"], type: "number" },
  LECTERN_SYNONYMS_FILE: { key: ["synonymsFile"], type: "string" },
  LECTERN_MAX_QUERY_CHARS: { key: ["limits", "maxQueryChars"], type: "int" },
  LECTERN_MAX_SELECTION_CHARS: { key: ["limits", "maxSelectionChars"], type: "int" },
  LECTERN_MAX_BODY_BYTES: { key: ["limits", "maxBodyBytes"], type: "int" },
  LECTERN_HISTORY_MAX_LIMIT: { key: ["limits", "historyMaxLimit"], type: "int" },
  LECTERN_MAX_CONCURRENT_CHATS: { key: ["limits", "maxConcurrentChats"], type: "int" },
  RATE_LIMIT_ENABLED: { key: ["rateLimit", "enabled"], type: "boolean" },
  RATE_LIMIT_PER_IP_PER_MINUTE: { key: ["rateLimit", "perIpPerMinute"], type: "number" },
  RATE_LIMIT_PER_IP_BURST: { key: ["rateLimit", "perIpBurst"], type: "int" },
  RATE_LIMIT_PER_SESSION_PER_MINUTE: { key: ["rateLimit", "perSessionPerMinute"], type: "number" },
  RATE_LIMIT_PER_SESSION_BURST: { key: ["rateLimit", "perSessionBurst"], type: "int" },
  RATE_LIMIT_SHARES_PER_MINUTE: { key: ["rateLimit", "sharesPerMinute"], type: "number" },
  RATE_LIMIT_ADMIN_FAILURES_BURST: { key: ["rateLimit", "adminFailuresBurst"], type: "int" },
  RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: {
    key: ["rateLimit", "adminFailuresPerMinute"],
    type: "number",
  },
  TRUST_PROXY: { key: ["rateLimit", "trustProxy"], type: "boolean" },
  CORS_ORIGINS: { key: ["corsOrigins"], type: "list" },
  LECTERN_FRAME_ANCESTORS: { key: ["frameAncestors"], type: "list" },
  LECTERN_ADMIN_TOKEN: { key: ["adminToken"], type: "string" },
  SHARE_ENABLED: { key: ["shareEnabled"], type: "boolean" },
  REDIS_URL: { key: ["redisUrl"], type: "string" },
  REDIS_KEY_PREFIX: { key: ["redisKeyPrefix"], type: "string" },
  REDIS_COMMAND_TIMEOUT_MS: { key: ["redisCommandTimeoutMs"], type: "int" },
  ANSWER_CACHE: { key: ["answerCache", "backend"], type: "string" },
  ANSWER_CACHE_TTL_S: { key: ["answerCache", "ttlSeconds"], type: "int" },
  LECTERN_METRICS_TOKEN: { key: ["metricsToken"], type: "string" },
  LLM_PROVIDER: { key: ["llm", "provider"], type: "string" },
  LLM_MODEL: { key: ["llm", "model"], type: "string" },
  LLM_BASE_URL: { key: ["llm", "baseUrl"], type: "string" },
  LLM_API_KEY: { key: ["llm", "apiKey"], type: "string" },
  OPENAI_API_KEY: { key: ["llm", "openaiApiKey"], type: "string" },
  GEMINI_API_KEY: { key: ["llm", "geminiApiKey"], type: "string" },
  LLM_FIRST_TOKEN_TIMEOUT_MS: { key: ["llm", "firstTokenTimeoutMs"], type: "int" },
  LLM_IDLE_TIMEOUT_MS: { key: ["llm", "idleTimeoutMs"], type: "int" },
  LLM_TIMEOUT_MS: { key: ["llm", "totalTimeoutMs"], type: "int" },
  LLM_MAX_RETRIES: { key: ["llm", "maxRetries"], type: "int" },
  LLM_RETRY_BASE_DELAY_MS: { key: ["llm", "retryBaseDelayMs"], type: "int" },
  LLM_RETRY_MAX_DELAY_MS: { key: ["llm", "retryMaxDelayMs"], type: "int" },
  LLM_BREAKER_FAILURES: { key: ["llm", "breakerFailures"], type: "int" },
  LLM_BREAKER_COOLDOWN_MS: { key: ["llm", "breakerCooldownMs"], type: "int" },
  LLM_CONTEXT_TOKENS: { key: ["llm", "contextTokens"], type: "int" },
  LLM_MAX_OUTPUT_TOKENS: { key: ["llm", "maxOutputTokens"], type: "int" },
  LLM_TEMPERATURE: { key: ["llm", "temperature"], type: "number" },
  LLM_FOLLOW_UPS: { key: ["llm", "followUps"], type: "boolean" },
  LLM_FOLLOW_UP_WAIT_MS: { key: ["llm", "followUpWaitMs"], type: "int" },
  EMBEDDINGS_PROVIDER: { key: ["embeddings", "provider"], type: "string" },
  EMBEDDINGS_MODEL: { key: ["embeddings", "model"], type: "string" },
  EMBEDDINGS_BASE_URL: { key: ["embeddings", "baseUrl"], type: "string" },
  EMBEDDINGS_API_KEY: { key: ["embeddings", "apiKey"], type: "string" },
  EMBEDDINGS_LOCAL_MODEL_DIR: { key: ["embeddings", "localModelDir"], type: "string" },
  EMBEDDINGS_DIMENSIONS: { key: ["embeddings", "dimensions"], type: "int" },
  EMBEDDINGS_BATCH_SIZE: { key: ["embeddings", "batchSize"], type: "int" },
  EMBEDDINGS_MIN_SIMILARITY: { key: ["embeddings", "minDenseSimilarity"], type: "number" },
  VECTOR_BACKEND: { key: ["vectors", "backend"], type: "string" },
  LEXICAL_BACKEND: { key: ["vectors", "lexical"], type: "string" },
  QDRANT_URL: { key: ["vectors", "qdrant", "url"], type: "string" },
  QDRANT_API_KEY: { key: ["vectors", "qdrant", "apiKey"], type: "string" },
  QDRANT_COLLECTION: { key: ["vectors", "qdrant", "collection"], type: "string" },
  QDRANT_TIMEOUT_MS: { key: ["vectors", "qdrant", "timeoutMs"], type: "int" },
  LECTERN_RERANK_MODEL_DIR: { key: ["rerank", "modelDir"], type: "string" },
  LECTERN_RERANK_CANDIDATES: { key: ["rerank", "candidates"], type: "int" },
  LECTERN_SHUTDOWN_TIMEOUT_MS: { key: ["shutdownTimeoutMs"], type: "int" },
  LECTERN_REQUEST_TIMEOUT_MS: { key: ["requestTimeoutMs"], type: "int" },
  LECTERN_INDEX_REFRESH_MS: { key: ["indexRefreshMs"], type: "int" },
  LECTERN_HEADERS_TIMEOUT_MS: { key: ["headersTimeoutMs"], type: "int" },
  LECTERN_BODY_TIMEOUT_MS: { key: ["bodyTimeoutMs"], type: "int" },
};

/** The text of environment variable `name` as a value of its type; a bad one is CONFIG_INVALID. */
export function coerce(name: string, value: string, type: EnvBinding["type"]): unknown {
  if (type === "string") return value;
  if (type === "list") {
    return value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  }
  if (type === "boolean") {
    const normalized = value.trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(normalized)) return true;
    if (["0", "false", "no", "off"].includes(normalized)) return false;
    throw createError(
      "CONFIG_INVALID",
      `Environment variable ${name} must be true or false, got "${value}".`,
      { details: { variable: name } },
    );
  }
  const number = Number(value.trim());
  if (
    value.trim() === "" ||
    !Number.isFinite(number) ||
    (type === "int" && !Number.isInteger(number))
  ) {
    throw createError(
      "CONFIG_INVALID",
      `Environment variable ${name} must be ${type === "int" ? "an integer" : "a number"}, got "${value}".`,
      { details: { variable: name } },
    );
  }
  return number;
}
