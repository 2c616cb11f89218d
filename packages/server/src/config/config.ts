import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { coerce, ENV_BINDINGS } from "./env.ts";

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

const ingestSchema = z
  .object({
    // Pages and partials larger than this are skipped with a message; parsing holds a page many
    // times over in memory, so one huge generated file must not take the machine with it.
    maxPageBytes: z
      .number()
      .int()
      .min(1_024)
      .max(1_000_000_000)
      .default(4 * 1024 * 1024), // 4 MiB
    // Files whose real path (through symlinks) lies outside the docs folder are refused unless set.
    followLinksOutsideDocs: z.boolean().default(false),
  })
  .strict();

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
    maxContextMessages: z.number().int().min(0).max(1_000).default(50), // seed S2: messages (2 per exchange) the model may see
    inactiveAfterMinutes: z.number().min(1).max(525_600).default(30), // seed S2: idle → INACTIVE (30 min)
  })
  .strict();

const answerCacheSchema = z
  .object({
    // Answers to first questions (no earlier turn in the session) kept in Redis; off by default.
    backend: z.enum(["off", "redis"]).default("off"),
    ttlSeconds: z.number().int().min(1).max(604_800).default(300), // 5 min; at most a week
  })
  .strict();

const insightsSchema = z
  .object({
    // The question log for authors (`lectern insights`, GET /admin): on unless INSIGHTS=off
    // (or HISTORY=off without INSIGHTS=on).
    mode: z.enum(["on", "off"]).default("on"),
    retentionDays: z.number().min(0.001).max(3650).default(30), // logged questions older are purged
    // A reader's selected text is never logged unless this is set (it may quote private pages).
    keepSelectedText: z.boolean().default(false),
    flushMs: z.number().int().min(10).max(60_000).default(1_000), // 1 s: questions are written in batches
    // Cosine similarity at which a question joins a topic when an embedder groups them; model-dependent.
    topicSimilarity: z.number().min(0).max(1).default(0.6),
  })
  .strict();

/** Reader phrase → the book's phrase or phrases (search/synonyms.ts). */
const synonymsSchema = z.record(
  z.string().trim().min(1).max(200),
  z.union([z.string().trim().min(1).max(200), z.array(z.string().trim().min(1).max(200)).min(1)]),
);

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
    // POST /share per session (as many at once, then this many a minute); per client IP it counts
    // at the chat rates above, in buckets of its own.
    sharesPerMinute: z.number().min(1).max(1_000_000).default(10),
    // Wrong admin tokens (GET /admin, GET /feedback) a client IP may send at once, then one
    // more every 1 / adminFailuresPerMinute minutes; beyond them every attempt is 429.
    adminFailuresBurst: z.number().int().min(1).max(1_000).default(10),
    adminFailuresPerMinute: z.number().min(0.01).max(1_000).default(1),
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
    idleTimeoutMs: z.number().int().min(100).max(600_000).default(15_000), // 15 s between tokens mid-answer
    // 45 s per answer: within the request timeout, so a slow model still leaves time to quote the book.
    totalTimeoutMs: z.number().int().min(100).max(1_800_000).default(45_000),
    maxRetries: z.number().int().min(0).max(10).default(2),
    retryBaseDelayMs: z.number().int().min(0).max(60_000).default(500),
    retryMaxDelayMs: z.number().int().min(0).max(120_000).default(10_000), // longest Retry-After honoured
    breakerFailures: z.number().int().min(1).max(1_000).default(5), // consecutive failures that open the circuit
    breakerCooldownMs: z.number().int().min(100).max(3_600_000).default(30_000), // then a probe after 30 s
    contextTokens: z.number().int().min(200).max(1_000_000).default(6_000), // passages + history budget
    maxOutputTokens: z.number().int().min(16).max(100_000).default(800),
    temperature: z.number().min(0).max(2).default(0.2),
    followUps: z.boolean().default(true), // the model writes the follow-up questions under an answer
    // Longest an answer waits for them once it is complete (they are written beside it), then the
    // follow-ups made from the book's headings are sent instead.
    followUpWaitMs: z.number().int().min(0).max(60_000).default(2_000), // 2 s
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

const vectorsSchema = z
  .object({
    // Where chunk embeddings live: pgvector in the SQL database, or a Qdrant server.
    backend: z.enum(["pgvector", "qdrant"]).default("pgvector"),
    // Where the BM25 ranking and its statistics live: the in-process index, or Qdrant's sparse
    // vectors with a term-statistics table (needs backend "qdrant" and an embedding model).
    lexical: z.enum(["memory", "qdrant"]).default("memory"),
    qdrant: z
      .object({
        // e.g. http://localhost:6333; required with backend "qdrant"
        url: z
          .string()
          .regex(/^https?:\/\/[^\s/?#]+(?:\/\S*)?$/, "use an http:// or https:// URL")
          .optional(),
        apiKey: z.string().min(1).optional(), // sent as the api-key header
        // The collection of the book; unset: "lectern-<collection>". A docs version adds "--<version>".
        collection: z
          .string()
          .regex(
            /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/,
            "use letters, digits, '.', '-' and '_' (at most 200)",
          )
          .optional(),
        timeoutMs: z.number().int().min(100).max(600_000).default(30_000), // 30 s per Qdrant call
      })
      .strict()
      .prefault({}),
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
    // Unset: the CLI gives each book its own directory under ./.lectern (see cli/book-dir.ts).
    dataDir: z.string().min(1).optional(),
    docsDir: z.string().min(1).optional(),
    title: z.string().trim().min(1).max(200).optional(), // the book's title; else its root page's
    collection: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "use lowercase letters, digits, '-' and '_'")
      .default("default"),
    baseUrl: z.string().default(""),
    routeBasePath: z.string().default("/docs"),
    // A versioned book that is no Docusaurus site (docs/versions.md): each version's folder
    // (relative to the working directory), its URL segment after routeBasePath ("" for the one
    // served there) and, optionally, its label and whether it is the latest (default the last).
    versions: z
      .array(
        z
          .object({
            name: z.string().trim().min(1).max(100),
            path: z.string().min(1),
            url: z.string(),
            label: z.string().trim().min(1).max(100).optional(),
            latest: z.boolean().optional(),
          })
          .strict(),
      )
      .optional(),
    databaseUrl: z.string().min(1).optional(),
    // How V8 compiles the embedded database's WebAssembly (no databaseUrl; see store/pglite.ts):
    // "baseline" saves 35–120 MB, "optimizing" runs PostgreSQL's own work 10–30 % faster;
    // "auto" is baseline for `lectern ingest` and optimizing for a server.
    pgliteCompiler: z.enum(["auto", "baseline", "optimizing"]).default("auto"),
    // Where the embedded database runs (no databaseUrl; see store/pglite-thread.ts): "worker"
    // on a thread of its own, so a server's database work takes the second core; "main" on the
    // calling thread; "auto" is worker for `lectern serve` / `start` on a machine with more than
    // one core, and main for everything else.
    pgliteThread: z.enum(["auto", "main", "worker"]).default("auto"),
    redisUrl: z.string().min(1).optional(), // rate limits shared by every instance
    redisKeyPrefix: z.string().min(1).max(100).default("lectern:"), // one per deployment
    // How long one Redis command may take before it is given up (a hung Redis is then treated
    // like an unreachable one): 500 ms, many round trips of a Redis that is merely busy.
    redisCommandTimeoutMs: z.number().int().min(10).max(60_000).default(500),
    port: z.number().int().min(0).max(65_535).default(3000),
    host: z.string().min(1).default("127.0.0.1"),
    logLevel: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .default("info"),
    // Each section's defaults live in its own schema; `prefault` parses `{}` through it.
    chunking: chunkingSchema.prefault({}),
    ingest: ingestSchema.prefault({}),
    search: searchSchema.prefault({}),
    history: historySchema.prefault({}),
    insights: insightsSchema.prefault({}),
    // Author-approved synonyms; lectern.synonyms.yml adds to them (see loadSynonymsFile).
    synonyms: synonymsSchema.default({}),
    synonymsFile: z.string().min(1).optional(), // default: lectern.synonyms.yml beside the config or in the docs
    limits: limitsSchema.prefault({}),
    rateLimit: rateLimitSchema.prefault({}),
    answerCache: answerCacheSchema.prefault({}),
    llm: llmSchema.prefault({}),
    embeddings: embeddingsSchema.prefault({}),
    rerank: rerankSchema.prefault({}),
    vectors: vectorsSchema.prefault({}),
    corsOrigins: z.array(z.string().min(1)).default([]), // exact origins allowed; none by default
    // Who may show the demo site's pages in a frame (CSP frame-ancestors); none by default.
    frameAncestors: z
      .array(
        z
          .string()
          .regex(
            /^(?:'self'|(?:https?:\/\/)?(?:\*\.)?[a-z0-9.-]+(?::\d+)?)$/i,
            "use 'self' or an origin such as https://docs.example.com",
          ),
      )
      .default([]),
    adminToken: z.string().min(16, "use at least 16 characters").optional(), // for GET /feedback
    shareEnabled: z.boolean().default(false), // read-only links to an answer: POST /share
    metricsToken: z.string().min(16, "use at least 16 characters").optional(), // for GET /metrics
    shutdownTimeoutMs: z.number().int().min(0).max(600_000).default(10_000), // 10 s for in-flight work
    requestTimeoutMs: z.number().int().min(100).max(600_000).default(60_000), // 60 s per chat
    // A request's headers, then the whole request, must arrive within these (408 otherwise), so
    // a client sending slowly cannot hold a connection open.
    headersTimeoutMs: z.number().int().min(50).max(600_000).default(10_000), // 10 s
    bodyTimeoutMs: z.number().int().min(50).max(600_000).default(30_000), // 30 s
    // How often a running server looks for an index version stored by another process.
    indexRefreshMs: z.number().int().min(10).max(3_600_000).default(5_000), // 5 s
  })
  .strict()
  .refine((config) => config.headersTimeoutMs <= config.bodyTimeoutMs, {
    message: "headersTimeoutMs must not be more than bodyTimeoutMs",
    path: ["headersTimeoutMs"],
  })
  .refine((config) => config.answerCache.backend !== "redis" || config.redisUrl !== undefined, {
    message: "the Redis answer cache needs REDIS_URL (redisUrl)",
    path: ["answerCache", "backend"],
  });

export type Config = Readonly<
  Omit<z.infer<typeof configSchema>, "dataDir"> & {
    /** The book's own data directory (PGlite database and BM25 snapshot). */
    dataDir: string;
  }
>;

/** The data directory when none is configured and no `defaultDataDir` is given. */
export const DEFAULT_DATA_DIR = "./.lectern";

export { ENV_BINDINGS } from "./env.ts";

/** Variables that select the config file itself rather than a key in it. */
const META_VARIABLES = new Set(["LECTERN_CONFIG"]);

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  /** Explicit config file; otherwise LECTERN_CONFIG, otherwise ./lectern.config.json when present. */
  configFile?: string;
  cwd?: string;
  /** Values from command-line flags; they win over everything else. */
  overrides?: Record<string, unknown>;
  /** The data directory to use when none is configured, from the docs folder (if any). */
  defaultDataDir?: (docsDir: string | undefined) => string;
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
  checkTimeouts(parsed.data, origin);
  checkVectorBackend(parsed.data, origin);
  // HISTORY=off keeps nothing of a conversation: the question log is off with it unless INSIGHTS
  // turns it on explicitly.
  const insights = raw.insights as { mode?: unknown } | undefined;
  if (parsed.data.history.mode === "off" && insights?.mode === undefined) {
    parsed.data.insights.mode = "off";
  }
  const dataDir =
    parsed.data.dataDir ?? options.defaultDataDir?.(parsed.data.docsDir) ?? DEFAULT_DATA_DIR;
  const fromFile = loadSynonymsFile(parsed.data, path.dirname(path.resolve(cwd, fileName)), cwd);
  // The config's own entries win over the file's for the same reader phrase.
  const synonyms = { ...fromFile, ...parsed.data.synonyms };
  return deepFreeze({ ...parsed.data, dataDir, synonyms });
}

/**
 * A model allowed to run longer than the request would be cut off by the request timeout (504)
 * before it gave up, and the reader would never get the quoted-passages answer a model failure
 * falls back to. Without a model the model's timeout plays no part.
 */
function checkTimeouts(config: z.infer<typeof configSchema>, origin: Map<string, string>): void {
  if (config.llm.provider === "none" || config.llm.totalTimeoutMs <= config.requestTimeoutMs)
    return;
  const named = (key: string, variable: string) =>
    origin.has(key) || origin.has(key.split(".")[0] ?? key)
      ? describeOrigin(origin, key)
      : `the default of ${variable}`;
  throw createError(
    "CONFIG_INVALID",
    `Invalid configuration: the model timeout (${named("llm.totalTimeoutMs", "LLM_TIMEOUT_MS")}, ${config.llm.totalTimeoutMs} ms) exceeds the request timeout (${named("requestTimeoutMs", "LECTERN_REQUEST_TIMEOUT_MS")}, ${config.requestTimeoutMs} ms). Lower LLM_TIMEOUT_MS or raise LECTERN_REQUEST_TIMEOUT_MS.`,
    {
      details: {
        key: "llm.totalTimeoutMs",
        totalTimeoutMs: config.llm.totalTimeoutMs,
        requestTimeoutMs: config.requestTimeoutMs,
      },
    },
  );
}

/** Qdrant chosen as the vector backend needs to know where Qdrant is. */
function checkVectorBackend(
  config: z.infer<typeof configSchema>,
  origin: Map<string, string>,
): void {
  if (config.vectors.lexical === "qdrant" && config.vectors.backend !== "qdrant") {
    throw createError(
      "CONFIG_INVALID",
      `Invalid configuration (${describeOrigin(origin, "vectors.lexical")}): the qdrant lexical backend needs the qdrant vector backend. Set VECTOR_BACKEND=qdrant (and QDRANT_URL), or LEXICAL_BACKEND=memory.`,
      { details: { key: "vectors.lexical", variable: "LEXICAL_BACKEND" } },
    );
  }
  if (config.vectors.backend !== "qdrant" || config.vectors.qdrant.url) return;
  throw createError(
    "CONFIG_INVALID",
    `Invalid configuration (${describeOrigin(origin, "vectors.backend")}): the qdrant vector backend needs the server's URL. Set QDRANT_URL (e.g. http://localhost:6333) or "vectors.qdrant.url".`,
    { details: { key: "vectors.qdrant.url", variable: "QDRANT_URL" } },
  );
}

/** The synonyms file's usual name, looked for beside the config file and in the docs folder. */
export const SYNONYMS_FILE = "lectern.synonyms.yml";

/**
 * The entries of the synonyms file: `synonymsFile` (LECTERN_SYNONYMS_FILE) when set, which must
 * exist; else lectern.synonyms.yml beside the config file (or in the working directory), else in
 * the docs folder. A YAML mapping of reader phrase → book phrase or list of phrases.
 */
function loadSynonymsFile(
  config: z.infer<typeof configSchema>,
  configDir: string,
  cwd: string,
): Record<string, string | string[]> {
  const candidates = config.synonymsFile
    ? [path.resolve(cwd, config.synonymsFile)]
    : [
        path.join(configDir, SYNONYMS_FILE),
        ...(config.docsDir ? [path.resolve(cwd, config.docsDir, SYNONYMS_FILE)] : []),
      ];
  const filePath = candidates.find((candidate) => existsSync(candidate));
  if (!filePath) {
    if (config.synonymsFile) {
      throw createError("CONFIG_INVALID", `Synonyms file not found: ${config.synonymsFile}`, {
        details: { file: config.synonymsFile },
      });
    }
    return {};
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(filePath, "utf8"), { maxAliasCount: 50 }) ?? {};
  } catch (error) {
    throw createError(
      "CONFIG_INVALID",
      `Synonyms file ${filePath} is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
      { details: { file: filePath } },
    );
  }
  const entries = synonymsSchema.safeParse(parsed);
  if (!entries.success) {
    const issue = entries.error.issues[0];
    const entry = issue?.path[0] === undefined ? "" : ` (entry "${String(issue.path[0])}")`;
    throw createError(
      "CONFIG_INVALID",
      `Synonyms file ${filePath}${entry}: write one "reader phrase: book phrase" or "reader phrase: [book phrase, …]" per line.`,
      { details: { file: filePath } },
    );
  }
  return entries.data;
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
