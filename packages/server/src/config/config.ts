import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { createError } from "../errors.ts";

/**
 * Lectern's configuration: one zod schema, filled from an optional `lectern.config.json` and then
 * from environment variables (the environment wins). Parsed once, frozen, unknown keys rejected.
 */
const chunkingSchema = z
  .object({
    targetTokens: z.number().int().min(50).max(4000).default(350), // ~350 tokens per chunk
    maxTokens: z.number().int().min(100).max(8000).default(600), // hard cap per chunk
    overlapRatio: z.number().min(0).max(0.5).default(0.15), // 15 % of the target repeated
  })
  .strict()
  .refine((chunking) => chunking.maxTokens >= chunking.targetTokens, {
    message: "maxTokens must be at least targetTokens",
    path: ["maxTokens"],
  });

const searchSchema = z
  .object({
    topK: z.number().int().min(1).max(20).default(5),
    maxChunksPerPage: z.number().int().min(1).max(20).default(1),
  })
  .strict();

const historySchema = z
  .object({
    mode: z.enum(["postgres", "memory", "off"]).default("postgres"), // postgres = the SQL store (PGlite or DATABASE_URL)
    retentionDays: z.number().min(0.001).max(3650).default(7), // sessions idle longer are purged
    window: z.number().int().min(0).max(50).default(5), // exchanges of context for follow-ups
  })
  .strict();

const limitsSchema = z
  .object({
    maxQueryChars: z.number().int().min(1).max(1_000_000).default(32_000),
    maxSelectionChars: z.number().int().min(1).max(1_000_000).default(64_000),
    maxBodyBytes: z
      .number()
      .int()
      .min(1_024)
      .max(50_000_000)
      .default(512 * 1024), // 512 KiB
    historyMaxLimit: z.number().int().min(1).max(1_000).default(100),
    maxConcurrentChats: z.number().int().min(1).max(100_000).default(64),
  })
  .strict();

const rateLimitSchema = z
  .object({
    enabled: z.boolean().default(true),
    perIpPerMinute: z.number().min(1).max(1_000_000).default(60), // sustained rate per client IP
    perIpBurst: z.number().int().min(1).max(1_000_000).default(30),
    perSessionPerMinute: z.number().min(1).max(1_000_000).default(30),
    perSessionBurst: z.number().int().min(1).max(1_000_000).default(15),
    trustProxy: z.boolean().default(false), // read the client IP from X-Forwarded-For
  })
  .strict();

const llmSchema = z
  .object({
    provider: z.enum(["none", "openai", "gemini", "openai-compatible"]).default("none"),
    model: z.string().min(1).optional(), // default per provider (see llm/providers.ts)
    baseUrl: z.string().url().optional(),
    apiKey: z.string().min(1).optional(), // for openai-compatible endpoints
    openaiApiKey: z.string().min(1).optional(),
    geminiApiKey: z.string().min(1).optional(),
    firstTokenTimeoutMs: z.number().int().min(100).max(600_000).default(20_000), // 20 s to the first token
    totalTimeoutMs: z.number().int().min(100).max(1_800_000).default(90_000), // 90 s per answer
    maxRetries: z.number().int().min(0).max(10).default(2),
    retryBaseDelayMs: z.number().int().min(0).max(60_000).default(500),
    retryMaxDelayMs: z.number().int().min(0).max(120_000).default(10_000), // longest Retry-After honoured
    breakerFailures: z.number().int().min(1).max(1_000).default(5), // consecutive failures that open the circuit
    breakerCooldownMs: z.number().int().min(100).max(3_600_000).default(30_000), // then a probe after 30 s
    contextTokens: z.number().int().min(200).max(1_000_000).default(6_000), // passages + history budget
    maxOutputTokens: z.number().int().min(16).max(100_000).default(800),
    temperature: z.number().min(0).max(2).default(0.2),
  })
  .strict();

const embeddingsSchema = z
  .object({
    provider: z.enum(["none", "openai", "gemini", "openai-compatible", "local"]).default("none"),
    model: z.string().min(1).optional(), // default per provider
    baseUrl: z.string().url().optional(),
    apiKey: z.string().min(1).optional(),
    localModelDir: z.string().min(1).optional(), // transformers.js model directory for "local"
    dimensions: z.number().int().min(1).max(20_000).optional(),
    batchSize: z.number().int().min(1).max(2_048).default(64),
    /** Cosine similarity from which a dense match alone counts as covering the question. */
    minDenseSimilarity: z.number().min(0).max(1).default(0.5),
  })
  .strict();

const rerankSchema = z
  .object({
    modelDir: z.string().min(1).optional(), // local cross-encoder (transformers.js export); unset = off
    candidates: z.number().int().min(1).max(100).default(20), // top retrieval candidates rescored
  })
  .strict();

export const configSchema = z
  .object({
    dataDir: z.string().min(1).default("./.lectern"),
    docsDir: z.string().min(1).optional(),
    collection: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "use lowercase letters, digits, '-' and '_'")
      .default("default"),
    baseUrl: z.string().default(""),
    routeBasePath: z.string().default("/docs"),
    databaseUrl: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65_535).default(3000),
    host: z.string().min(1).default("127.0.0.1"),
    logLevel: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .default("info"),
    // Each section's defaults live in its own schema; `prefault` parses `{}` through it.
    chunking: chunkingSchema.prefault({}),
    search: searchSchema.prefault({}),
    history: historySchema.prefault({}),
    limits: limitsSchema.prefault({}),
    rateLimit: rateLimitSchema.prefault({}),
    llm: llmSchema.prefault({}),
    embeddings: embeddingsSchema.prefault({}),
    rerank: rerankSchema.prefault({}),
    corsOrigins: z.array(z.string().min(1)).default([]), // exact origins allowed; none by default
    adminToken: z.string().min(16, "use at least 16 characters").optional(), // for GET /feedback
    shutdownTimeoutMs: z.number().int().min(0).max(600_000).default(10_000), // 10 s for in-flight work
    requestTimeoutMs: z.number().int().min(100).max(600_000).default(60_000), // 60 s per chat
  })
  .strict();

export type Config = Readonly<z.infer<typeof configSchema>>;

type EnvBinding = { key: string[]; type: "string" | "int" | "number" | "boolean" | "list" };

/** Every environment variable Lectern reads, and the config key it sets. */
export const ENV_BINDINGS: Record<string, EnvBinding> = {
  LECTERN_DATA_DIR: { key: ["dataDir"], type: "string" },
  LECTERN_DOCS_DIR: { key: ["docsDir"], type: "string" },
  LECTERN_COLLECTION: { key: ["collection"], type: "string" },
  LECTERN_BASE_URL: { key: ["baseUrl"], type: "string" },
  LECTERN_ROUTE_BASE_PATH: { key: ["routeBasePath"], type: "string" },
  DATABASE_URL: { key: ["databaseUrl"], type: "string" },
  PORT: { key: ["port"], type: "int" },
  HOST: { key: ["host"], type: "string" },
  LOG_LEVEL: { key: ["logLevel"], type: "string" },
  LECTERN_CHUNK_TARGET_TOKENS: { key: ["chunking", "targetTokens"], type: "int" },
  LECTERN_CHUNK_MAX_TOKENS: { key: ["chunking", "maxTokens"], type: "int" },
  LECTERN_CHUNK_OVERLAP: { key: ["chunking", "overlapRatio"], type: "number" },
  LECTERN_TOP_K: { key: ["search", "topK"], type: "int" },
  LECTERN_MAX_CHUNKS_PER_PAGE: { key: ["search", "maxChunksPerPage"], type: "int" },
  HISTORY: { key: ["history", "mode"], type: "string" },
  HISTORY_RETENTION_DAYS: { key: ["history", "retentionDays"], type: "number" },
  HISTORY_WINDOW: { key: ["history", "window"], type: "int" },
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
  TRUST_PROXY: { key: ["rateLimit", "trustProxy"], type: "boolean" },
  CORS_ORIGINS: { key: ["corsOrigins"], type: "list" },
  LECTERN_ADMIN_TOKEN: { key: ["adminToken"], type: "string" },
  LLM_PROVIDER: { key: ["llm", "provider"], type: "string" },
  LLM_MODEL: { key: ["llm", "model"], type: "string" },
  LLM_BASE_URL: { key: ["llm", "baseUrl"], type: "string" },
  LLM_API_KEY: { key: ["llm", "apiKey"], type: "string" },
  OPENAI_API_KEY: { key: ["llm", "openaiApiKey"], type: "string" },
  GEMINI_API_KEY: { key: ["llm", "geminiApiKey"], type: "string" },
  LLM_FIRST_TOKEN_TIMEOUT_MS: { key: ["llm", "firstTokenTimeoutMs"], type: "int" },
  LLM_TIMEOUT_MS: { key: ["llm", "totalTimeoutMs"], type: "int" },
  LLM_MAX_RETRIES: { key: ["llm", "maxRetries"], type: "int" },
  LLM_RETRY_BASE_DELAY_MS: { key: ["llm", "retryBaseDelayMs"], type: "int" },
  LLM_RETRY_MAX_DELAY_MS: { key: ["llm", "retryMaxDelayMs"], type: "int" },
  LLM_BREAKER_FAILURES: { key: ["llm", "breakerFailures"], type: "int" },
  LLM_BREAKER_COOLDOWN_MS: { key: ["llm", "breakerCooldownMs"], type: "int" },
  LLM_CONTEXT_TOKENS: { key: ["llm", "contextTokens"], type: "int" },
  LLM_MAX_OUTPUT_TOKENS: { key: ["llm", "maxOutputTokens"], type: "int" },
  LLM_TEMPERATURE: { key: ["llm", "temperature"], type: "number" },
  EMBEDDINGS_PROVIDER: { key: ["embeddings", "provider"], type: "string" },
  EMBEDDINGS_MODEL: { key: ["embeddings", "model"], type: "string" },
  EMBEDDINGS_BASE_URL: { key: ["embeddings", "baseUrl"], type: "string" },
  EMBEDDINGS_API_KEY: { key: ["embeddings", "apiKey"], type: "string" },
  EMBEDDINGS_LOCAL_MODEL_DIR: { key: ["embeddings", "localModelDir"], type: "string" },
  EMBEDDINGS_DIMENSIONS: { key: ["embeddings", "dimensions"], type: "int" },
  EMBEDDINGS_BATCH_SIZE: { key: ["embeddings", "batchSize"], type: "int" },
  EMBEDDINGS_MIN_SIMILARITY: { key: ["embeddings", "minDenseSimilarity"], type: "number" },
  LECTERN_RERANK_MODEL_DIR: { key: ["rerank", "modelDir"], type: "string" },
  LECTERN_RERANK_CANDIDATES: { key: ["rerank", "candidates"], type: "int" },
  LECTERN_SHUTDOWN_TIMEOUT_MS: { key: ["shutdownTimeoutMs"], type: "int" },
  LECTERN_REQUEST_TIMEOUT_MS: { key: ["requestTimeoutMs"], type: "int" },
};

/** Variables that select the config file itself rather than a key in it. */
const META_VARIABLES = new Set(["LECTERN_CONFIG"]);

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  /** Explicit config file; otherwise LECTERN_CONFIG, otherwise ./lectern.config.json when present. */
  configFile?: string;
  cwd?: string;
  /** Values from command-line flags; they win over everything else. */
  overrides?: Record<string, unknown>;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const raw: Record<string, unknown> = readConfigFile(options, env, cwd);
  const origin = new Map<string, string>();
  const fileName = explicitConfigPath(options, env) ?? "lectern.config.json";
  for (const key of Object.keys(raw)) origin.set(key, `${fileName}: "${key}"`);

  for (const name of Object.keys(env)) {
    if (name.startsWith("LECTERN_") && !(name in ENV_BINDINGS) && !META_VARIABLES.has(name)) {
      throw createError("CONFIG_INVALID", `Unknown environment variable ${name}.`, {
        details: { variable: name, known: Object.keys(ENV_BINDINGS) },
      });
    }
  }
  for (const [name, binding] of Object.entries(ENV_BINDINGS)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    setPath(raw, binding.key, coerce(name, value, binding.type));
    origin.set(binding.key.join("."), `environment variable ${name}`);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    if (value === undefined) continue;
    raw[key] = value;
    origin.set(key, `option --${key}`);
  }

  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keyPath = (issue?.path ?? []).map(String).join(".");
    const unknownKeys =
      issue?.code === "unrecognized_keys" ? (issue as { keys: string[] }).keys : undefined;
    const where = unknownKeys
      ? `${fileName}: unknown key ${unknownKeys.map((key) => `"${keyPath ? `${keyPath}.` : ""}${key}"`).join(", ")}`
      : describeOrigin(origin, keyPath);
    throw createError("CONFIG_INVALID", `Invalid configuration (${where}): ${issue?.message}`, {
      details: { key: keyPath },
    });
  }
  return deepFreeze(parsed.data);
}

function explicitConfigPath(
  options: LoadConfigOptions,
  env: Record<string, string | undefined>,
): string | undefined {
  return options.configFile ?? (env.LECTERN_CONFIG || undefined);
}

function readConfigFile(
  options: LoadConfigOptions,
  env: Record<string, string | undefined>,
  cwd: string,
): Record<string, unknown> {
  const explicit = explicitConfigPath(options, env);
  const filePath = path.resolve(cwd, explicit ?? "lectern.config.json");
  if (!existsSync(filePath)) {
    if (explicit) {
      throw createError("CONFIG_INVALID", `Config file not found: ${explicit}`, {
        details: { file: explicit },
      });
    }
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(filePath, "utf8"));
  } catch (error) {
    throw createError(
      "CONFIG_INVALID",
      `Config file ${filePath} is not valid JSON: ${(error as Error).message}`,
      { details: { file: filePath } },
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw createError("CONFIG_INVALID", `Config file ${filePath} must contain a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

function coerce(name: string, value: string, type: EnvBinding["type"]): unknown {
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

function setPath(target: Record<string, unknown>, keyPath: string[], value: unknown): void {
  let node = target;
  for (const [index, key] of keyPath.entries()) {
    if (index === keyPath.length - 1) {
      node[key] = value;
      return;
    }
    const child = node[key];
    if (typeof child !== "object" || child === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
}

function describeOrigin(origin: Map<string, string>, keyPath: string): string {
  const exact = origin.get(keyPath);
  if (exact) return exact;
  const top = keyPath.split(".")[0] ?? keyPath;
  const parent = origin.get(top);
  return parent ? `${parent}, key "${keyPath}"` : `key "${keyPath}"`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
