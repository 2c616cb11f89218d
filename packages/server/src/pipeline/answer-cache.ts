import { createHash } from "node:crypto";
import type { ChatInput, ChatOutcome } from "@lectern/engine/pipeline/types";
import type { Config } from "../config/config.ts";

/**
 * Answers kept for a while, so the same first question asked again (by anyone, on any instance
 * sharing the store) is answered without retrieval or a model call.
 *
 * What may be cached: only a question asked without earlier turns (a follow-up's answer depends
 * on the conversation, and a cached one would answer another conversation's follow-up), and only
 * a complete answer (never a failure, never a degraded one that quoted the book because the model
 * failed, so a hit never serves an outage after it has passed).
 *
 * The key: the normalised question, the selection, the filters, the requested top-k, the page the
 * reader is on, and the scope, which names the index version and what shapes an answer (model,
 * search settings, Lectern's version). A new index version changes every key, so a re-ingest
 * never serves an answer from the previous book; old entries expire with their TTL.
 */

/** Where cached answers live: text values with an expiry. */
export interface AnswerCacheStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

export type AnswerCacheResult = "hit" | "miss" | "stored" | "error";

export interface AnswerCache {
  /** The cached outcome for this turn, or undefined (also when the turn may not be cached). */
  lookup(input: ChatInput): Promise<ChatOutcome | undefined>;
  /** Keeps the outcome when both the turn and the outcome may be cached. */
  store(input: ChatInput, outcome: ChatOutcome): Promise<void>;
}

export interface AnswerCacheOptions {
  store: AnswerCacheStore;
  ttlSeconds: number;
  /** The index version and answer settings, read on every turn (an ingest changes it). */
  scope: () => string;
  /** Each lookup's and store's result, for the metrics. */
  onResult?: (result: AnswerCacheResult) => void;
  /** A store that fails is a miss; the error goes here (for one log line). */
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** A question as the cache compares it: case, spacing and closing punctuation do not matter. */
export function normalizeQuestion(query: string): string {
  return query
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s?!.。？！]+$/u, "");
}

/** A turn may be cached when no earlier exchange of its session reaches the answer. */
export function isCacheableTurn(input: ChatInput): boolean {
  return (input.history ?? []).length === 0;
}

/** An outcome may be cached when it is complete: not degraded (the model failed). */
export function isCacheableOutcome(outcome: ChatOutcome): boolean {
  return !outcome.degraded && outcome.states.at(-1) === "COMPLETED";
}

export function answerCacheKey(input: ChatInput, scope: string): string {
  const identity = JSON.stringify([
    scope,
    normalizeQuestion(input.query),
    input.selectedText,
    input.filters ?? null,
    input.topK ?? null,
    input.sourceUrl,
  ]);
  return createHash("sha256").update(identity).digest("base64url");
}

/** The outcome without what belongs to one run (its timings and states). */
type CachedOutcome = Omit<ChatOutcome, "timings" | "states">;

export function createAnswerCache(options: AnswerCacheOptions): AnswerCache {
  const now = options.now ?? (() => performance.now());
  const report = (result: AnswerCacheResult) => options.onResult?.(result);
  const failed = (error: unknown) => {
    report("error");
    options.onError?.(error);
  };
  return {
    async lookup(input) {
      if (!isCacheableTurn(input)) return undefined;
      const started = now();
      let text: string | undefined;
      try {
        text = await options.store.get(answerCacheKey(input, options.scope()));
      } catch (error) {
        failed(error);
        return undefined;
      }
      if (text === undefined) {
        report("miss");
        return undefined;
      }
      let cached: CachedOutcome;
      try {
        cached = JSON.parse(text) as CachedOutcome;
      } catch (error) {
        failed(error);
        return undefined;
      }
      report("hit");
      const elapsed = Math.round((now() - started) * 100) / 100;
      return {
        ...cached,
        timings: { cache: elapsed, total: elapsed },
        states: ["RECEIVED", "COMPLETED"],
      };
    },

    async store(input, outcome) {
      if (!isCacheableTurn(input) || !isCacheableOutcome(outcome)) return;
      const { timings: _timings, states: _states, ...kept } = outcome;
      try {
        await options.store.set(
          answerCacheKey(input, options.scope()),
          JSON.stringify(kept),
          options.ttlSeconds,
        );
        report("stored");
      } catch (error) {
        failed(error);
      }
    },
  };
}

/**
 * What shapes an answer besides the question and the index: Lectern's version, the book, the
 * search and model settings (never a key or a secret). Changing any of them starts a new cache.
 */
export function answerSettingsIdentity(config: Config, version: string): string {
  const { llm, embeddings, rerank } = config;
  const settings = JSON.stringify({
    version,
    collection: config.collection,
    search: config.search,
    // Author-approved synonyms change what a question retrieves.
    synonyms: config.synonyms,
    vectors: config.vectors.backend,
    llm: {
      provider: llm.provider,
      model: llm.model ?? null,
      baseUrl: llm.baseUrl ?? null,
      temperature: llm.temperature,
      maxOutputTokens: llm.maxOutputTokens,
      contextTokens: llm.contextTokens,
    },
    embeddings: {
      provider: embeddings.provider,
      model: embeddings.model ?? null,
      dimensions: embeddings.dimensions ?? null,
      minDenseSimilarity: embeddings.minDenseSimilarity,
    },
    rerank: { modelDir: rerank.modelDir ?? null, candidates: rerank.candidates },
  });
  return createHash("sha256").update(settings).digest("base64url").slice(0, 16);
}
