// Over 300 lines on purpose: one case per setting, source and error of the configuration.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LecternError } from "@lectern/engine/errors";
import { afterEach, describe, expect, it } from "vitest";
import { type Config, ENV_BINDINGS, type LoadConfigOptions, loadConfig } from "./config.ts";

const createdDirectories: string[] = [];

afterEach(() => {
  for (const directory of createdDirectories.splice(0)) {
    rmSync(directory, { recursive: true, force: true });
  }
});

/** A fresh, empty working directory so no real `lectern.config.json` is ever picked up. */
function emptyDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), "lectern-config-"));
  createdDirectories.push(directory);
  return directory;
}

/** A working directory holding `fileName` with the given contents (JSON-encoded unless a string). */
function directoryWithFile(contents: unknown, fileName = "lectern.config.json"): string {
  const directory = emptyDirectory();
  const text = typeof contents === "string" ? contents : JSON.stringify(contents);
  const filePath = path.join(directory, fileName);
  mkdirSync(path.dirname(filePath), { recursive: true });
  writeFileSync(filePath, text);
  return directory;
}

/** Runs loadConfig expecting it to throw, and returns the thrown error. */
function loadError(options: LoadConfigOptions): LecternError {
  try {
    loadConfig(options);
  } catch (error) {
    expect(error).toBeInstanceOf(LecternError);
    const lecternError = error as LecternError;
    expect(lecternError.code).toBe("CONFIG_INVALID");
    return lecternError;
  }
  throw new Error("expected loadConfig to throw");
}

const DEFAULTS: Config = {
  dataDir: "./.lectern",
  collection: "default",
  baseUrl: "",
  routeBasePath: "/docs",
  pgliteCompiler: "auto",
  pgliteThread: "auto",
  port: 3000,
  host: "127.0.0.1",
  logLevel: "info",
  chunking: { targetTokens: 350, maxTokens: 600, overlapRatio: 0.15 },
  ingest: { maxPageBytes: 4 * 1024 * 1024, followLinksOutsideDocs: false },
  search: { topK: 5, maxChunksPerPage: 1 },
  history: {
    mode: "postgres",
    retentionDays: 7,
    window: 5,
    maxContextMessages: 50,
    inactiveAfterMinutes: 30,
  },
  insights: {
    mode: "on",
    retentionDays: 30,
    keepSelectedText: false,
    flushMs: 1_000,
    topicSimilarity: 0.6,
  },
  synonyms: {},
  limits: {
    maxQueryChars: 32_000,
    maxSelectionChars: 64_000,
    maxBodyBytes: 512 * 1024,
    historyMaxLimit: 100,
    maxConcurrentChats: 64,
  },
  rateLimit: {
    enabled: true,
    perIpPerMinute: 60,
    perIpBurst: 30,
    perSessionPerMinute: 30,
    perSessionBurst: 15,
    trustProxy: false,
    sharesPerMinute: 10,
    adminFailuresBurst: 10,
    adminFailuresPerMinute: 1,
  },
  answerCache: { backend: "off", ttlSeconds: 300 },
  llm: {
    provider: "none",
    firstTokenTimeoutMs: 20_000,
    idleTimeoutMs: 15_000,
    totalTimeoutMs: 45_000,
    maxRetries: 2,
    retryBaseDelayMs: 500,
    retryMaxDelayMs: 10_000,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    contextTokens: 6_000,
    maxOutputTokens: 800,
    temperature: 0.2,
    followUps: true,
    followUpWaitMs: 2_000,
  },
  embeddings: { provider: "none", batchSize: 64, minDenseSimilarity: 0.5 },
  rerank: { candidates: 20 },
  vectors: { backend: "pgvector", lexical: "memory", qdrant: { timeoutMs: 30_000 } },
  corsOrigins: [],
  shareEnabled: false,
  redisKeyPrefix: "lectern:",
  redisCommandTimeoutMs: 500,
  frameAncestors: [],
  shutdownTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  indexRefreshMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
};

describe("HISTORY=off", () => {
  it.each([
    ["history on", {}, "on"],
    ["history off", { HISTORY: "off" }, "off"],
    ["history off, the question log asked for", { HISTORY: "off", INSIGHTS: "on" }, "on"],
    ["history on, the question log off", { INSIGHTS: "off" }, "off"],
  ])("%s: the question log is %s", (_, env, mode) => {
    expect(loadConfig({ env }).insights.mode).toBe(mode);
  });
});

describe("the answer cache", () => {
  it("is read from ANSWER_CACHE and ANSWER_CACHE_TTL_S", () => {
    const config = loadConfig({
      cwd: emptyDirectory(),
      env: { REDIS_URL: "redis://127.0.0.1:6379", ANSWER_CACHE: "redis", ANSWER_CACHE_TTL_S: "60" },
    });
    expect(config.answerCache).toEqual({ backend: "redis", ttlSeconds: 60 });
  });

  it("refuses the Redis cache without REDIS_URL, and an unknown backend, naming the variable", () => {
    expect(loadError({ cwd: emptyDirectory(), env: { ANSWER_CACHE: "redis" } }).message).toMatch(
      /ANSWER_CACHE.*needs REDIS_URL/,
    );
    expect(
      loadError({ cwd: emptyDirectory(), env: { ANSWER_CACHE: "memcached" } }).message,
    ).toMatch(/environment variable ANSWER_CACHE/);
    expect(loadError({ cwd: emptyDirectory(), env: { ANSWER_CACHE_TTL_S: "0" } }).message).toMatch(
      /environment variable ANSWER_CACHE_TTL_S/,
    );
  });
});

describe("model and request timeouts", () => {
  const model = { LLM_PROVIDER: "openai", OPENAI_API_KEY: "sk-test" };

  it("rejects a model timeout longer than the request timeout, naming both settings", () => {
    const error = loadError({
      cwd: emptyDirectory(),
      env: { ...model, LLM_TIMEOUT_MS: "90000" },
    });
    expect(error.message).toMatch(/environment variable LLM_TIMEOUT_MS/);
    expect(error.message).toMatch(/90000 ms/);
    expect(error.message).toMatch(/LECTERN_REQUEST_TIMEOUT_MS/);
    expect(error.message).toMatch(/60000 ms/);
    expect(error.details).toMatchObject({ key: "llm.totalTimeoutMs" });

    const shorterRequest = loadError({
      cwd: directoryWithFile({ requestTimeoutMs: 30_000 }),
      env: model,
    });
    expect(shorterRequest.message).toMatch(/lectern\.config\.json: "requestTimeoutMs"/);
  });

  it("accepts a model timeout within the request timeout, and any timeout without a model", () => {
    const config = loadConfig({
      cwd: emptyDirectory(),
      env: { ...model, LLM_TIMEOUT_MS: "60000", LLM_IDLE_TIMEOUT_MS: "5000" },
    });
    expect(config.llm.totalTimeoutMs).toBe(60_000);
    expect(config.llm.idleTimeoutMs).toBe(5_000);
    expect(
      loadConfig({ cwd: emptyDirectory(), env: { LLM_TIMEOUT_MS: "90000" } }).llm.totalTimeoutMs,
    ).toBe(90_000);
  });
});

describe("loadConfig for the server", () => {
  it("reads who may frame the pages, and refuses a value that would extend the policy", () => {
    const config = loadConfig({
      env: { LECTERN_FRAME_ANCESTORS: "'self', https://docs.example.com" },
    });
    expect(config.frameAncestors).toEqual(["'self'", "https://docs.example.com"]);
    const error = loadError({
      env: { LECTERN_FRAME_ANCESTORS: "https://a.example; script-src *" },
    });
    expect(error.message).toMatch(/LECTERN_FRAME_ANCESTORS/);
  });

  it("reads booleans and comma-separated lists from the environment", () => {
    const config = loadConfig({
      env: {
        RATE_LIMIT_ENABLED: "off",
        CORS_ORIGINS: "https://a.example, https://b.example",
        HISTORY: "memory",
      },
      cwd: emptyDirectory(),
    });
    expect(config.rateLimit.enabled).toBe(false);
    expect(config.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(config.history.mode).toBe("memory");
  });

  it("rejects a boolean variable that is not a boolean, naming it", () => {
    expect(loadError({ env: { TRUST_PROXY: "maybe" }, cwd: emptyDirectory() }).message).toContain(
      "TRUST_PROXY",
    );
  });

  it("rejects an unknown history mode, naming the variable", () => {
    expect(loadError({ env: { HISTORY: "redis" }, cwd: emptyDirectory() }).message).toContain(
      "HISTORY",
    );
  });
});

describe("loadConfig for the reranker", () => {
  it("leaves reranking off unless a model directory is given", () => {
    const config = loadConfig({ env: {}, cwd: emptyDirectory() });
    expect(config.rerank.modelDir).toBeUndefined();
    expect(config.rerank.candidates).toBe(20);
  });

  it("reads the model directory and candidate count from the environment", () => {
    const config = loadConfig({
      env: { LECTERN_RERANK_MODEL_DIR: "./models/reranker", LECTERN_RERANK_CANDIDATES: "30" },
      cwd: emptyDirectory(),
    });
    expect(config.rerank).toEqual({ modelDir: "./models/reranker", candidates: 30 });
  });

  it("reads the rerank keys from lectern.config.json, the environment winning", () => {
    const directory = directoryWithFile({ rerank: { modelDir: "./from-file", candidates: 10 } });
    const config = loadConfig({ env: { LECTERN_RERANK_CANDIDATES: "15" }, cwd: directory });
    expect(config.rerank).toEqual({ modelDir: "./from-file", candidates: 15 });
  });

  it.each(["0", "101"])("rejects LECTERN_RERANK_CANDIDATES=%s, naming the variable", (value) => {
    const error = loadError({ env: { LECTERN_RERANK_CANDIDATES: value }, cwd: emptyDirectory() });
    expect(error.message).toContain("environment variable LECTERN_RERANK_CANDIDATES");
    expect(error.details).toEqual({ key: "rerank.candidates" });
  });

  it.each(["-0.1", "1.5"])("rejects INSIGHTS_TOPIC_SIMILARITY=%s, naming the variable", (value) => {
    const error = loadError({ env: { INSIGHTS_TOPIC_SIMILARITY: value }, cwd: emptyDirectory() });
    expect(error.message).toContain("environment variable INSIGHTS_TOPIC_SIMILARITY");
    expect(error.details).toEqual({ key: "insights.topicSimilarity" });
  });

  it("rejects an unknown rerank key in the file, naming its path", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile({ rerank: { model: "x" } }) });
    expect(error.message).toContain('"rerank.model"');
  });
});

describe("the vector backend", () => {
  it("maps VECTOR_BACKEND and the QDRANT_ variables to their keys", () => {
    const config = loadConfig({
      env: {
        VECTOR_BACKEND: "qdrant",
        QDRANT_URL: "http://qdrant:6333",
        QDRANT_API_KEY: "a-qdrant-key",
        QDRANT_COLLECTION: "robotics.primer_v2",
        QDRANT_TIMEOUT_MS: "5000",
      },
      cwd: emptyDirectory(),
    });
    expect(config.vectors).toEqual({
      backend: "qdrant",
      lexical: "memory",
      qdrant: {
        url: "http://qdrant:6333",
        apiKey: "a-qdrant-key",
        collection: "robotics.primer_v2",
        timeoutMs: 5000,
      },
    });
  });

  it("keeps BM25 in process unless LEXICAL_BACKEND=qdrant, which needs the qdrant vector backend", () => {
    expect(loadConfig({ env: {}, cwd: emptyDirectory() }).vectors.lexical).toBe("memory");
    const config = loadConfig({
      env: {
        VECTOR_BACKEND: "qdrant",
        QDRANT_URL: "http://qdrant:6333",
        LEXICAL_BACKEND: "qdrant",
      },
      cwd: emptyDirectory(),
    });
    expect(config.vectors.lexical).toBe("qdrant");
    const error = loadError({ env: { LEXICAL_BACKEND: "qdrant" }, cwd: emptyDirectory() });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("environment variable LEXICAL_BACKEND");
    expect(error.message).toContain("VECTOR_BACKEND=qdrant");
    expect(error.details).toEqual({ key: "vectors.lexical", variable: "LEXICAL_BACKEND" });
    expect(
      loadError({ env: { LEXICAL_BACKEND: "elastic" }, cwd: emptyDirectory() }).message,
    ).toContain("environment variable LEXICAL_BACKEND");
  });

  it("refuses qdrant without QDRANT_URL, naming the variable", () => {
    const error = loadError({ env: { VECTOR_BACKEND: "qdrant" }, cwd: emptyDirectory() });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("environment variable VECTOR_BACKEND");
    expect(error.message).toContain("QDRANT_URL");
    expect(error.details).toEqual({ key: "vectors.qdrant.url", variable: "QDRANT_URL" });
  });

  it("refuses an unknown backend, a URL that is not one and a collection name with a slash", () => {
    expect(
      loadError({ env: { VECTOR_BACKEND: "milvus" }, cwd: emptyDirectory() }).message,
    ).toContain("environment variable VECTOR_BACKEND");
    expect(
      loadError({
        env: { VECTOR_BACKEND: "qdrant", QDRANT_URL: "qdrant:6333 " },
        cwd: emptyDirectory(),
      }).message,
    ).toContain("environment variable QDRANT_URL");
    expect(
      loadError({
        env: { VECTOR_BACKEND: "qdrant", QDRANT_URL: "http://q:6333", QDRANT_COLLECTION: "a/b" },
        cwd: emptyDirectory(),
      }).message,
    ).toContain("environment variable QDRANT_COLLECTION");
  });

  it("reads the backend from the config file, where a missing URL names the file", () => {
    const error = loadError({
      env: {},
      cwd: directoryWithFile({ vectors: { backend: "qdrant" } }),
    });
    expect(error.message).toContain('lectern.config.json: "vectors"');
    const config = loadConfig({
      env: {},
      cwd: directoryWithFile({
        vectors: { backend: "qdrant", qdrant: { url: "https://q.example" } },
      }),
    });
    expect(config.vectors.qdrant.url).toBe("https://q.example");
  });
});

describe("loadConfig defaults", () => {
  it("returns the documented defaults when there is no file and no environment", () => {
    const config = loadConfig({ env: {}, cwd: emptyDirectory() });
    expect(config).toEqual(DEFAULTS);
    expect(config.docsDir).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
  });

  it("ignores environment variables that are set to the empty string", () => {
    const config = loadConfig({
      env: { PORT: "", LECTERN_TOP_K: "", LECTERN_DATA_DIR: "" },
      cwd: emptyDirectory(),
    });
    expect(config).toEqual(DEFAULTS);
  });

  it("ignores unrelated environment variables", () => {
    const config = loadConfig({
      env: { PATH: "/usr/bin", HOME: "/home/someone", NODE_ENV: "test" },
      cwd: emptyDirectory(),
    });
    expect(config).toEqual(DEFAULTS);
  });
});

describe("loadConfig from the environment", () => {
  it("maps every documented variable to its key", () => {
    const config = loadConfig({
      env: {
        LECTERN_DATA_DIR: "/var/lib/lectern",
        LECTERN_DOCS_DIR: "./website/docs",
        LECTERN_COLLECTION: "robot-docs_2",
        LECTERN_BASE_URL: "https://docs.example.com",
        LECTERN_ROUTE_BASE_PATH: "/",
        DATABASE_URL: "postgres://localhost/lectern",
        LECTERN_PGLITE_COMPILER: "baseline",
        LECTERN_PGLITE_THREAD: "worker",
        PORT: "8080",
        HOST: "0.0.0.0",
        LOG_LEVEL: "debug",
        LECTERN_CHUNK_TARGET_TOKENS: "200",
        LECTERN_CHUNK_MAX_TOKENS: "400",
        LECTERN_CHUNK_OVERLAP: "0.25",
        LECTERN_MAX_PAGE_BYTES: "100000",
        LECTERN_FOLLOW_LINKS_OUTSIDE_DOCS: "true",
        LECTERN_TOP_K: "8",
        LECTERN_MAX_CHUNKS_PER_PAGE: "3",
        HISTORY: "off",
        HISTORY_RETENTION_DAYS: "1.5",
        HISTORY_WINDOW: "3",
        HISTORY_MAX_CONTEXT_MESSAGES: "20",
        HISTORY_INACTIVE_MINUTES: "45",
        INSIGHTS: "off",
        INSIGHTS_RETENTION_DAYS: "14",
        INSIGHTS_KEEP_SELECTED_TEXT: "true",
        INSIGHTS_FLUSH_MS: "250",
        INSIGHTS_TOPIC_SIMILARITY: "0.8",
        LECTERN_MAX_QUERY_CHARS: "1000",
        LECTERN_MAX_SELECTION_CHARS: "5000",
        LECTERN_MAX_BODY_BYTES: "65536",
        LECTERN_HISTORY_MAX_LIMIT: "20",
        LECTERN_MAX_CONCURRENT_CHATS: "8",
        RATE_LIMIT_ENABLED: "false",
        RATE_LIMIT_PER_IP_PER_MINUTE: "120",
        RATE_LIMIT_PER_IP_BURST: "40",
        RATE_LIMIT_PER_SESSION_PER_MINUTE: "10",
        RATE_LIMIT_PER_SESSION_BURST: "5",
        RATE_LIMIT_SHARES_PER_MINUTE: "4",
        RATE_LIMIT_ADMIN_FAILURES_BURST: "3",
        RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: "0.5",
        TRUST_PROXY: "true",
        CORS_ORIGINS: "https://docs.example.com",
        LECTERN_FRAME_ANCESTORS: "'self'",
        LECTERN_SHUTDOWN_TIMEOUT_MS: "2000",
        LECTERN_REQUEST_TIMEOUT_MS: "5000",
        SHARE_ENABLED: "true",
        REDIS_URL: "redis://cache:6379",
        REDIS_KEY_PREFIX: "book2:",
        REDIS_COMMAND_TIMEOUT_MS: "250",
        ANSWER_CACHE: "redis",
        ANSWER_CACHE_TTL_S: "900",
        LECTERN_INDEX_REFRESH_MS: "1000",
        LECTERN_HEADERS_TIMEOUT_MS: "2000",
        LECTERN_BODY_TIMEOUT_MS: "4000",
      },
      cwd: emptyDirectory(),
    });
    expect(config).toEqual({
      dataDir: "/var/lib/lectern",
      docsDir: "./website/docs",
      collection: "robot-docs_2",
      baseUrl: "https://docs.example.com",
      routeBasePath: "/",
      databaseUrl: "postgres://localhost/lectern",
      pgliteCompiler: "baseline",
      pgliteThread: "worker",
      port: 8080,
      host: "0.0.0.0",
      logLevel: "debug",
      chunking: { targetTokens: 200, maxTokens: 400, overlapRatio: 0.25 },
      ingest: { maxPageBytes: 100_000, followLinksOutsideDocs: true },
      search: { topK: 8, maxChunksPerPage: 3 },
      history: {
        mode: "off",
        retentionDays: 1.5,
        window: 3,
        maxContextMessages: 20,
        inactiveAfterMinutes: 45,
      },
      insights: {
        mode: "off",
        retentionDays: 14,
        keepSelectedText: true,
        flushMs: 250,
        topicSimilarity: 0.8,
      },
      synonyms: {},
      limits: {
        maxQueryChars: 1000,
        maxSelectionChars: 5000,
        maxBodyBytes: 65536,
        historyMaxLimit: 20,
        maxConcurrentChats: 8,
      },
      rateLimit: {
        enabled: false,
        perIpPerMinute: 120,
        perIpBurst: 40,
        perSessionPerMinute: 10,
        perSessionBurst: 5,
        trustProxy: true,
        sharesPerMinute: 4,
        adminFailuresBurst: 3,
        adminFailuresPerMinute: 0.5,
      },
      llm: DEFAULTS.llm,
      embeddings: DEFAULTS.embeddings,
      rerank: DEFAULTS.rerank,
      vectors: DEFAULTS.vectors,
      corsOrigins: ["https://docs.example.com"],
      shareEnabled: true,
      redisUrl: "redis://cache:6379",
      redisKeyPrefix: "book2:",
      redisCommandTimeoutMs: 250,
      answerCache: { backend: "redis", ttlSeconds: 900 },
      frameAncestors: ["'self'"],
      shutdownTimeoutMs: 2000,
      requestTimeoutMs: 5000,
      indexRefreshMs: 1000,
      headersTimeoutMs: 2000,
      bodyTimeoutMs: 4000,
    });
  });

  it("keeps the defaults of sibling keys when one nested key is set", () => {
    const config = loadConfig({ env: { LECTERN_TOP_K: "10" }, cwd: emptyDirectory() });
    expect(config.search).toEqual({ topK: 10, maxChunksPerPage: 1 });
    expect(config.chunking).toEqual(DEFAULTS.chunking);
  });

  it("accepts surrounding whitespace in numeric variables", () => {
    const config = loadConfig({ env: { PORT: " 8080 " }, cwd: emptyDirectory() });
    expect(config.port).toBe(8080);
  });

  it("accepts LECTERN_CONFIG, which names the file rather than a key", () => {
    const directory = directoryWithFile({ port: 4100 }, "custom.json");
    const config = loadConfig({ env: { LECTERN_CONFIG: "custom.json" }, cwd: directory });
    expect(config.port).toBe(4100);
  });
});

describe("loadConfig from lectern.config.json", () => {
  it("reads lectern.config.json from the working directory", () => {
    const directory = directoryWithFile({
      docsDir: "./docs",
      port: 4000,
      search: { topK: 7 },
      chunking: { targetTokens: 200 },
    });
    const config = loadConfig({ env: {}, cwd: directory });
    expect(config.docsDir).toBe("./docs");
    expect(config.port).toBe(4000);
    expect(config.search).toEqual({ topK: 7, maxChunksPerPage: 1 });
    expect(config.chunking).toEqual({ targetTokens: 200, maxTokens: 600, overlapRatio: 0.15 });
  });

  it("lets the environment win over the file, key by key", () => {
    const directory = directoryWithFile({
      port: 4000,
      host: "localhost",
      search: { topK: 7, maxChunksPerPage: 4 },
    });
    const config = loadConfig({ env: { PORT: "5000", LECTERN_TOP_K: "9" }, cwd: directory });
    expect(config.port).toBe(5000);
    expect(config.host).toBe("localhost");
    expect(config.search).toEqual({ topK: 9, maxChunksPerPage: 4 });
  });

  it("lets explicit overrides win over both the file and the environment", () => {
    const directory = directoryWithFile({ port: 4000 });
    const config = loadConfig({ env: { PORT: "5000" }, cwd: directory, overrides: { port: 6000 } });
    expect(config.port).toBe(6000);
  });

  it("reads an explicit config file relative to the working directory", () => {
    const directory = directoryWithFile({ collection: "from-explicit" }, "settings/lectern.json");
    const config = loadConfig({ env: {}, cwd: directory, configFile: "settings/lectern.json" });
    expect(config.collection).toBe("from-explicit");
  });

  it("prefers the explicit configFile option over LECTERN_CONFIG and the default file", () => {
    const directory = directoryWithFile({ collection: "default-file" });
    writeFileSync(path.join(directory, "a.json"), JSON.stringify({ collection: "from-option" }));
    writeFileSync(path.join(directory, "b.json"), JSON.stringify({ collection: "from-env" }));
    const config = loadConfig({
      env: { LECTERN_CONFIG: "b.json" },
      cwd: directory,
      configFile: "a.json",
    });
    expect(config.collection).toBe("from-option");
  });

  it("rejects an unknown top-level key, naming it", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile({ prot: 4000 }) });
    expect(error.message).toContain('"prot"');
    expect(error.message).toContain("lectern.config.json");
  });

  it("rejects an unknown nested key, naming its full path", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile({ search: { topk: 4 } }) });
    expect(error.message).toContain('"search.topk"');
  });

  it("names the explicit file in errors about its keys", () => {
    const directory = directoryWithFile({ colour: "blue" }, "custom.json");
    const error = loadError({ env: { LECTERN_CONFIG: "custom.json" }, cwd: directory });
    expect(error.message).toContain("custom.json");
    expect(error.message).toContain('"colour"');
  });

  it("rejects a file value of the wrong type, naming the key", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile({ port: "abc" }) });
    expect(error.message).toContain('"port"');
    expect(error.details).toEqual({ key: "port" });
  });

  it("rejects an out-of-range nested file value, naming the key path", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile({ search: { topK: 50 } }) });
    expect(error.message).toContain("search.topK");
    expect(error.details).toEqual({ key: "search.topK" });
  });

  it("rejects invalid JSON, naming the file", () => {
    const directory = directoryWithFile("{ port: 1,");
    const error = loadError({ env: {}, cwd: directory });
    expect(error.message).toContain("not valid JSON");
    expect(error.message).toContain(path.join(directory, "lectern.config.json"));
  });

  it("rejects a file that holds JSON but not an object", () => {
    const error = loadError({ env: {}, cwd: directoryWithFile([1, 2]) });
    expect(error.message).toContain("must contain a JSON object");
  });

  it("rejects an explicit config file that does not exist", () => {
    const error = loadError({ env: {}, cwd: emptyDirectory(), configFile: "missing.json" });
    expect(error.message).toContain("missing.json");
    expect(error.details).toEqual({ file: "missing.json" });
  });

  it("rejects a LECTERN_CONFIG file that does not exist", () => {
    const error = loadError({ env: { LECTERN_CONFIG: "nowhere.json" }, cwd: emptyDirectory() });
    expect(error.message).toContain("nowhere.json");
  });
});

describe("loadConfig validation of environment variables", () => {
  it("rejects an unknown LECTERN_* variable, naming it", () => {
    const error = loadError({ env: { LECTERN_TOPK: "3" }, cwd: emptyDirectory() });
    expect(error.message).toContain("LECTERN_TOPK");
    expect(error.details?.variable).toBe("LECTERN_TOPK");
    expect(error.details?.known).toEqual(Object.keys(ENV_BINDINGS));
  });

  it("rejects an unknown LECTERN_* variable even when its value is empty", () => {
    const error = loadError({ env: { LECTERN_TYPO: "" }, cwd: emptyDirectory() });
    expect(error.message).toContain("LECTERN_TYPO");
  });

  it.each([
    { variable: "PORT", value: "80.5" },
    { variable: "PORT", value: "abc" },
    { variable: "PORT", value: "   " },
    { variable: "LECTERN_TOP_K", value: "five" },
    { variable: "LECTERN_TOP_K", value: "2.5" },
    { variable: "LECTERN_CHUNK_MAX_TOKENS", value: "600tokens" },
  ])("rejects the non-integer $variable=$value, naming the variable", ({ variable, value }) => {
    const error = loadError({ env: { [variable]: value }, cwd: emptyDirectory() });
    expect(error.message).toContain(variable);
    expect(error.message).toContain("must be an integer");
    expect(error.details).toEqual({ variable });
  });

  it("rejects a non-numeric ratio, naming the variable", () => {
    const error = loadError({ env: { LECTERN_CHUNK_OVERLAP: "lots" }, cwd: emptyDirectory() });
    expect(error.message).toContain("LECTERN_CHUNK_OVERLAP");
    expect(error.message).toContain("must be a number");
  });

  it.each([
    { variable: "LECTERN_TOP_K", value: "50", key: "search.topK" },
    { variable: "LECTERN_TOP_K", value: "0", key: "search.topK" },
    { variable: "PORT", value: "70000", key: "port" },
    { variable: "LECTERN_CHUNK_OVERLAP", value: "0.9", key: "chunking.overlapRatio" },
    { variable: "LECTERN_CHUNK_TARGET_TOKENS", value: "10", key: "chunking.targetTokens" },
    { variable: "LECTERN_MAX_CHUNKS_PER_PAGE", value: "21", key: "search.maxChunksPerPage" },
  ])(
    "rejects the out-of-range $variable=$value, naming the variable",
    ({ variable, value, key }) => {
      const error = loadError({ env: { [variable]: value }, cwd: emptyDirectory() });
      expect(error.message).toContain(`environment variable ${variable}`);
      expect(error.details).toEqual({ key });
    },
  );

  it("rejects a log level outside the allowed set, naming the variable", () => {
    const error = loadError({ env: { LOG_LEVEL: "loud" }, cwd: emptyDirectory() });
    expect(error.message).toContain("LOG_LEVEL");
  });

  it("rejects a collection name with capitals or spaces, naming the variable", () => {
    const error = loadError({ env: { LECTERN_COLLECTION: "Robot Docs" }, cwd: emptyDirectory() });
    expect(error.message).toContain("LECTERN_COLLECTION");
    expect(error.message).toContain("lowercase");
  });

  it("rejects a maximum chunk size below the target size", () => {
    const error = loadError({
      env: { LECTERN_CHUNK_TARGET_TOKENS: "300", LECTERN_CHUNK_MAX_TOKENS: "200" },
      cwd: emptyDirectory(),
    });
    expect(error.message).toContain("maxTokens must be at least targetTokens");
    expect(error.message).toContain("LECTERN_CHUNK_MAX_TOKENS");
  });

  it("checks the maximum against a target that comes from the file", () => {
    const directory = directoryWithFile({ chunking: { targetTokens: 500 } });
    const error = loadError({ env: { LECTERN_CHUNK_MAX_TOKENS: "400" }, cwd: directory });
    expect(error.details).toEqual({ key: "chunking.maxTokens" });
  });
});

describe("loadConfig result", () => {
  it("is deeply frozen", () => {
    const config = loadConfig({ env: {}, cwd: emptyDirectory() });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.chunking)).toBe(true);
    expect(Object.isFrozen(config.search)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.search as { topK: number }).topK = 1;
    }).toThrow(TypeError);
    expect(config.search.topK).toBe(5);
  });

  it("is a fresh object on every call, unaffected by a previous environment", () => {
    const directory = emptyDirectory();
    const first = loadConfig({ env: { LECTERN_TOP_K: "12" }, cwd: directory });
    const second = loadConfig({ env: {}, cwd: directory });
    expect(first.search.topK).toBe(12);
    expect(second.search.topK).toBe(5);
  });
});

describe("synonyms", () => {
  it("reads lectern.synonyms.yml beside the config, the config's own entries winning", () => {
    const directory = directoryWithFile(
      "# reader's word: the book's words\nbanner: announcement bar\nwalkie talkie: [service, action]\n",
      "lectern.synonyms.yml",
    );
    writeFileSync(
      path.join(directory, "lectern.config.json"),
      JSON.stringify({ synonyms: { banner: "notice" } }),
    );
    const config = loadConfig({ env: {}, cwd: directory });
    expect(config.synonyms).toEqual({ banner: "notice", "walkie talkie": ["service", "action"] });
  });

  it("finds the file in the docs folder, or where LECTERN_SYNONYMS_FILE says", () => {
    const directory = directoryWithFile("droid: humanoid\n", "docs/lectern.synonyms.yml");
    expect(
      loadConfig({ env: {}, cwd: directory, overrides: { docsDir: "docs" } }).synonyms,
    ).toEqual({ droid: "humanoid" });
    writeFileSync(path.join(directory, "words.yml"), "mailbox: topic\n");
    const named = loadConfig({ env: { LECTERN_SYNONYMS_FILE: "words.yml" }, cwd: directory });
    expect(named.synonyms).toEqual({ mailbox: "topic" });
  });

  it("rejects a missing named file and a file that is not a mapping of phrases", () => {
    const directory = emptyDirectory();
    expect(loadError({ env: { LECTERN_SYNONYMS_FILE: "none.yml" }, cwd: directory }).message).toBe(
      "Synonyms file not found: none.yml",
    );
    const nested = directoryWithFile("banner:\n  bar: 1\n", "lectern.synonyms.yml");
    expect(loadError({ env: {}, cwd: nested }).message).toMatch(
      /lectern\.synonyms\.yml \(entry "banner"\): write one "reader phrase: book phrase"/,
    );
    const broken = directoryWithFile("banner: [unclosed\n", "lectern.synonyms.yml");
    expect(loadError({ env: {}, cwd: broken }).message).toMatch(/is not valid YAML/);
  });
});
