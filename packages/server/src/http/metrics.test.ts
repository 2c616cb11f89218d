import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModelServer,
  startFakeModelServer,
} from "../../test/doubles/fake-model-server.ts";
import {
  createTestApp,
  expectError,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
} from "../../test/http-fixture.ts";
import { loadConfig } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";

const book = sampleBookForSuite();

/** The value of one sample line (`name{labels} value`), or 0 when the line is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split("\n")
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return Number(line?.split(" ").at(-1) ?? 0);
}

async function scrape(
  app: ReturnType<typeof memoryHistoryApp>,
  headers: Record<string, string> = {},
) {
  const response = await app.request("/metrics", { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  const text = await response.text();
  // The parser checks the whole text is valid exposition format (it throws on a bad line); it
  // folds labelled histograms together, so their counts are read from the `_count` lines.
  const families = parsePrometheusTextFormat(text);
  return Object.assign(new Map(families.map((family) => [family.name, family])), { text });
}

describe("a reader who goes away mid-answer", () => {
  it.each([
    {
      name: "the socket reset (ECONNRESET)",
      failure: () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    },
    {
      name: "a broken pipe (EPIPE)",
      failure: () => Object.assign(new Error("write EPIPE"), { code: "EPIPE" }),
    },
    {
      name: "the answer cancelled (AbortError)",
      failure: () => new DOMException("This operation was aborted", "AbortError"),
    },
  ])(
    "after $name is a client disconnect: 499, no error logged, no 5xx counted",
    async ({ failure }) => {
      const lines: string[] = [];
      const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(line) });
      const reader = new AbortController();
      const synthesizer: AnswerSynthesizer = {
        kind: "extractive",
        async synthesize() {
          // What a closed tab looks like from inside: the request aborted, then the work fails.
          reader.abort("Client connection prematurely closed.");
          throw failure();
        },
      };
      const { app } = createTestApp(book.lectern, {
        history: new MemoryHistoryStore(),
        synthesizer,
        logger,
      });
      const response = await app.request("/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "How do I publish on a topic?" }),
        signal: reader.signal,
      });
      await expectError(response, 499, "CLIENT_CLOSED_REQUEST");
      const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(logged.filter((line) => line.level >= 40)).toEqual([]);
      expect(logged.map((line) => line.msg)).toContain("client disconnected");
      expect(lines.join("")).not.toMatch(/database|DATABASE_UNAVAILABLE/i);
      const metrics = (await scrape(app)).text;
      const requests = "lectern_http_request_duration_seconds_count";
      expect(sample(metrics, requests, { route: "/chat", status: "499" })).toBe(1);
      for (const status of ["500", "503", "504"])
        expect(sample(metrics, requests, { route: "/chat", status })).toBe(0);
    },
  );
});

describe("GET /metrics", () => {
  it("reports requests by route and status, answers by mode, stage latency and the index", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "2",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    const before = await scrape(app);
    expect(before.get("lectern_answers_total")?.metrics ?? []).toEqual([]);
    expect(Number(before.get("lectern_index_chunks")?.metrics[0]?.value)).toBeGreaterThan(100);

    await postJson(app, "/chat", { query: "How do I publish on a topic?" });
    await postJson(app, "/chat", { query: "What is the capital of Australia?" });
    await expectError(
      await postJson(app, "/chat", { query: "What is a node?" }),
      429,
      "RATE_LIMITED",
    );
    await app.request("/nope");

    const after = await scrape(app);
    const answers = after.get("lectern_answers_total")?.metrics ?? [];
    const byMode = (mode: string) =>
      answers
        .filter((sample) => sample.labels?.mode === mode)
        .reduce((n, s) => n + Number(s.value), 0);
    expect(byMode("retrieval_only")).toBe(1);
    expect(byMode("no_results")).toBe(1);

    expect(after.get("lectern_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    const count = (route: string, status: string) => {
      const line = after.text
        .split("\n")
        .find(
          (candidate) =>
            candidate.startsWith("lectern_http_request_duration_seconds_count{") &&
            candidate.includes(`route="${route}"`) &&
            candidate.includes(`status="${status}"`),
        );
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    expect(count("/chat", "200")).toBe(2);
    expect(count("/chat", "429")).toBe(1);
    expect(count("unmatched", "404")).toBe(1);
    const limited = after.get("lectern_rate_limited_total")?.metrics ?? [];
    expect(limited.find((sample) => sample.labels?.scope === "/chat")?.value).toBe("1");
    expect(after.text).toMatch(/^lectern_stage_duration_seconds_count\{stage="retrieve"\} 2$/m);
    expect(after.text).toMatch(/^lectern_stage_duration_seconds_count\{stage="total"\} 2$/m);
    // Both answered exchanges were written to the history, and timed.
    expect(after.get("lectern_history_write_seconds")?.type).toBe("HISTOGRAM");
    expect(sample(before.text, "lectern_history_write_seconds_count", { outcome: "ok" })).toBe(0);
    expect(sample(after.text, "lectern_history_write_seconds_count", { outcome: "ok" })).toBe(2);
    expect(after.get("lectern_index_version")?.type).toBe("GAUGE");
    expect(sample(after.text, "lectern_index_version")).toBeGreaterThan(0);
    // No model is configured: no circuit to report.
    expect(after.has("lectern_model_circuit_state")).toBe(false);
    expect(after.has("lectern_model_first_token_seconds")).toBe(true);
  });

  it("asks for the bearer token when one is configured", async () => {
    const token = "metrics-token-0123456789";
    const app = memoryHistoryApp(book.lectern, { LECTERN_METRICS_TOKEN: token });
    await expectError(await app.request("/metrics"), 401, "UNAUTHORIZED");
    await expectError(
      await app.request("/metrics", {
        headers: { authorization: "Bearer wrong-token-0123456789" },
      }),
      401,
      "UNAUTHORIZED",
    );
    // Only the Bearer form carries the token.
    await expectError(
      await app.request("/metrics", { headers: { authorization: token } }),
      401,
      "UNAUTHORIZED",
    );
    const families = await scrape(app, { authorization: `Bearer ${token}` });
    expect(families.has("lectern_http_request_duration_seconds")).toBe(true);
  });

  it("answers 429 to a client after 10 wrong tokens, and counts them with the admin token's", async () => {
    const token = "metrics-token-0123456789";
    const app = memoryHistoryApp(book.lectern, {
      LECTERN_METRICS_TOKEN: token,
      LECTERN_ADMIN_TOKEN: "a-long-enough-admin-token",
      RATE_LIMIT_ENABLED: "true",
    });
    const scrapeWith = (authorization: string) =>
      app.request("/metrics", { headers: { authorization } });
    // A scraper with the right token is never limited.
    for (let request = 0; request < 12; request++) {
      expect((await scrapeWith(`Bearer ${token}`)).status).toBe(200);
    }
    const guesses = await Promise.all(
      Array.from({ length: 11 }, (_, guess) => scrapeWith(`Bearer wrong-guess-number-${guess}`)),
    );
    expect(guesses.map((response) => response.status).sort()).toEqual([
      ...Array(10).fill(401),
      429,
    ]);
    const limited = await scrapeWith(`Bearer ${token}`);
    await expectError(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    await expectError(
      await app.request("/admin", {
        headers: { authorization: "Bearer a-long-enough-admin-token" },
      }),
      429,
      "RATE_LIMITED",
    );
  });
});

describe("GET /metrics with a language model", () => {
  let fake: FakeModelServer;
  let workDir: string;
  let lectern: Lectern;
  beforeAll(async () => {
    fake = await startFakeModelServer();
    workDir = await mkdtemp(path.join(tmpdir(), "lectern-metrics-"));
    await mkdir(path.join(workDir, "docs"));
    await writeFile(
      path.join(workDir, "docs", "gears.md"),
      "# Gears\n\nA gear ratio trades speed for torque. Meshing gears turn in opposite directions.\n",
    );
    lectern = await openLectern(
      loadConfig({ env: modelEnv(), overrides: { dataDir: path.join(workDir, "data") } }),
    );
    await lectern.ingest(path.join(workDir, "docs"));
  });
  /** The book's own model settings: the app answers with the model the book was opened with. */
  function modelEnv(): Record<string, string> {
    return {
      LLM_PROVIDER: "openai-compatible",
      LLM_BASE_URL: fake.baseUrl,
      LLM_MODEL: "local-model",
      LLM_MAX_RETRIES: "0",
      LLM_BREAKER_FAILURES: "1",
      LLM_BREAKER_COOLDOWN_MS: "60000",
      RATE_LIMIT_ENABLED: "false",
    };
  }
  afterAll(async () => {
    await fake.close();
    await lectern.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it("reports time to first token, tokens, the circuit's state and the index version", async () => {
    const { app } = createTestApp(lectern, {
      history: new MemoryHistoryStore(),
      env: modelEnv(),
    });
    const before = await scrape(app);
    expect(sample(before.text, "lectern_model_circuit_state", { state: "closed" })).toBe(1);
    expect(sample(before.text, "lectern_model_first_token_seconds_count")).toBe(0);
    const version = sample(before.text, "lectern_index_version");
    expect(version).toBeGreaterThan(0);

    fake.enqueue({ text: "A gear ratio trades speed for torque [1].", chunkSize: 5 });
    const answered = await postJson(app, "/chat/stream", {
      query: "What does a gear ratio trade?",
    });
    expect(await answered.text()).toContain("event: done");
    const afterAnswer = await scrape(app);
    expect(afterAnswer.get("lectern_model_first_token_seconds")?.type).toBe("HISTOGRAM");
    expect(sample(afterAnswer.text, "lectern_model_first_token_seconds_count")).toBe(1);
    // The fake model reports 10 prompt tokens and one completion token per streamed chunk.
    expect(sample(afterAnswer.text, "lectern_model_tokens_total", { direction: "input" })).toBe(10);
    expect(
      sample(afterAnswer.text, "lectern_model_tokens_total", { direction: "output" }),
    ).toBeGreaterThan(0);

    // A failing model opens the circuit (one failure with LLM_BREAKER_FAILURES=1).
    fake.enqueue({ status: 500 });
    expect(
      (await postJson(app, "/chat", { query: "Which way do meshing gears turn?" })).status,
    ).toBe(200);
    const afterFailure = await scrape(app);
    expect(sample(afterFailure.text, "lectern_model_circuit_state", { state: "open" })).toBe(1);
    expect(sample(afterFailure.text, "lectern_model_circuit_state", { state: "closed" })).toBe(0);
    expect(sample(afterFailure.text, "lectern_model_first_token_seconds_count")).toBe(1);

    // An ingest raises the index version the app reports.
    await writeFile(
      path.join(workDir, "docs", "flywheel.md"),
      "# Flywheels\n\nA flywheel stores rotational energy.\n",
    );
    await lectern.ingest(path.join(workDir, "docs"));
    expect(sample((await scrape(app)).text, "lectern_index_version")).toBe(version + 1);
  });
});
