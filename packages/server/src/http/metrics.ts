import type { ChatOutcome } from "@lectern/engine/pipeline/types";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AnswerCacheResult } from "../pipeline/answer-cache.ts";
import type { ModelCallReport } from "../pipeline/llm-synthesizer.ts";

/**
 * What `GET /metrics` reports, in the Prometheus text format: HTTP requests by route and status,
 * answers by mode, the pipeline's stage latencies, rate-limited requests, the model's circuit and
 * the index. One registry per app, so tests (and two apps in one process) never share counts.
 */
export interface Metrics {
  registry: Registry;
  /** One finished HTTP request; `route` is the route table's path, never the raw URL. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** One answered chat turn. */
  observeAnswer(outcome: ChatOutcome): void;
  /** A request refused by a rate limit or the in-flight cap. */
  observeRateLimited(scope: string): void;
  /** One answer-cache lookup or store: hit, miss, stored or error. */
  observeAnswerCache(result: AnswerCacheResult): void;
  /** One completed model answer: time to first token, tokens in and out. */
  observeModelCall(call: ModelCallReport): void;
  /** One exchange written to the history store (or a write that failed). */
  observeHistoryWrite(seconds: number, ok: boolean): void;
}

const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

const CIRCUIT_STATES = ["closed", "open", "half-open"] as const;

export function createMetrics(sources: {
  indexedChunks: () => number;
  /** The index version the in-memory index holds (raised by every ingest). */
  indexVersion?: () => number;
  /** The model's circuit; omitted when no model is configured. */
  model?: () => { state: "closed" | "open" | "half-open" };
}): Metrics {
  const registry = new Registry();
  const requests = new Histogram({
    name: "lectern_http_request_duration_seconds",
    help: "HTTP request duration by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const answers = new Counter({
    name: "lectern_answers_total",
    help: "Answered chat turns by mode, route, low confidence and degraded (model failed, book quoted)",
    labelNames: ["mode", "route", "low_confidence", "degraded"] as const,
    registers: [registry],
  });
  const stages = new Histogram({
    name: "lectern_stage_duration_seconds",
    help: "Chat pipeline stage duration (route, retrieve, unknown_words, generate, total)",
    labelNames: ["stage"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: "lectern_rate_limited_total",
    help: "Requests refused by a rate limit or the in-flight cap, by scope",
    labelNames: ["scope"] as const,
    registers: [registry],
  });
  const answerCache = new Counter({
    name: "lectern_answer_cache_total",
    help: "Answer cache lookups and stores by result (hit, miss, stored, error)",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "lectern_index_chunks",
    help: "Chunks in the search index",
    registers: [registry],
    collect() {
      this.set(sources.indexedChunks());
    },
  });
  const indexVersion = sources.indexVersion;
  if (indexVersion) {
    new Gauge({
      name: "lectern_index_version",
      help: "Index version being served (the store's counter, raised by every ingest)",
      registers: [registry],
      collect() {
        this.set(indexVersion());
      },
    });
  }
  const firstToken = new Histogram({
    name: "lectern_model_first_token_seconds",
    help: "Time from the model call to the answer's first token",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "lectern_model_tokens_total",
    help: "Tokens the model read (input) and wrote (output) for answers, as the provider reports them",
    labelNames: ["direction"] as const,
    registers: [registry],
  });
  const historyWrites = new Histogram({
    name: "lectern_history_write_seconds",
    help: "Time to store one exchange in the history (until its commit), by outcome",
    labelNames: ["outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const model = sources.model;
  if (model) {
    new Gauge({
      name: "lectern_model_circuit_state",
      help: "The language model's circuit breaker: 1 for its current state, 0 for the others",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const current = model().state;
        for (const state of CIRCUIT_STATES) this.set({ state }, state === current ? 1 : 0);
      },
    });
    new Gauge({
      name: "lectern_model_circuit_open",
      help: "1 while the language model's circuit breaker is open or probing, 0 when closed",
      registers: [registry],
      collect() {
        this.set(model().state === "closed" ? 0 : 1);
      },
    });
  }
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      requests.observe({ method, route, status: String(status) }, seconds);
    },
    observeAnswer(outcome) {
      answers.inc({
        mode: outcome.mode,
        route: outcome.route,
        low_confidence: String(outcome.lowConfidence),
        degraded: String(outcome.degraded),
      });
      for (const [stage, ms] of Object.entries(outcome.timings)) {
        stages.observe({ stage }, ms / 1000);
      }
    },
    observeRateLimited(scope) {
      rateLimited.inc({ scope });
    },
    observeAnswerCache(result) {
      answerCache.inc({ result });
    },
    observeModelCall(call) {
      if (call.firstTokenSeconds !== undefined) firstToken.observe(call.firstTokenSeconds);
      if (call.inputTokens !== undefined) tokens.inc({ direction: "input" }, call.inputTokens);
      if (call.outputTokens !== undefined) tokens.inc({ direction: "output" }, call.outputTokens);
    },
    observeHistoryWrite(seconds, ok) {
      historyWrites.observe({ outcome: ok ? "ok" : "error" }, seconds);
    },
  };
}
