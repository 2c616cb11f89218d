import { analyze } from "../search/analyzer.ts";
import { routeQuery } from "./query-router.ts";
import type { Exchange } from "./types.ts";

/**
 * Turns a follow-up ("what are its main components?") into a standalone search query using the
 * conversation so far: by the model when one is configured (the server's model-rewriter.ts),
 * otherwise by the heuristic below.
 */
export interface QueryRewriter {
  /** "model" rewrites follow-ups into standalone questions; "heuristic" adds the earlier turn's words. */
  readonly kind: "heuristic" | "model";
  rewrite(query: string, history: Exchange[], signal?: AbortSignal): Promise<string>;
}

const REFERRING_WORDS =
  /\b(it|its|it's|this|that|these|those|they|them|their|theirs|he|she|him|her|there|then|above|former|latter|same|one|ones|also|else|more|again)\b/i;

/**
 * Heuristic: a question that refers back ("it", "that", "those", …) or is very short (at most two
 * topic words) gets the topic words of the previous question appended, so retrieval sees the
 * subject being discussed. A question that stands alone is searched as it is.
 */
export class HeuristicRewriter implements QueryRewriter {
  readonly kind = "heuristic";
  async rewrite(query: string, history: Exchange[]): Promise<string> {
    return rewriteByHeuristic(query, history);
  }
}

export function rewriteByHeuristic(query: string, history: Exchange[]): string {
  const previous = history.at(-1);
  if (!previous) return query;
  const topicWords = new Set(analyze(query));
  if (!REFERRING_WORDS.test(query) && topicWords.size > 2) return query;
  const previousTopic = previous.query.replace(/[?!.]+$/, "").trim();
  return `${query.replace(/[?!.]+$/, "").trim()} (${previousTopic})`;
}

/**
 * The earlier turn a follow-up may lean on, for searching without a model: its question is added
 * to the search at a lower weight. `dependent` when the new question refers back ("it", "that",
 * "then", …); otherwise the caller adds the context only if the question alone finds little.
 */
export function followUpContext(
  query: string,
  history: Exchange[],
): { text: string; dependent: boolean } | undefined {
  const previous = history.at(-1);
  // Small talk and questions about the whole book say nothing about the next question's topic.
  if (!previous || routeQuery(previous.query).route !== "question") return undefined;
  // A short question without a pronoun ("What is a URDF?") may well stand alone: it gets the
  // earlier words only if alone it finds little.
  return { text: previous.query, dependent: REFERRING_WORDS.test(query) || ELLIPSIS.test(query) };
}

/**
 * A question asking the earlier one again about something else: "what about a camera?", "how
 * about wheel encoders?", "and for a service?".
 */
const ELLIPSIS =
  /^\s*(?:and\s+|so\s+)?(?:what|how)\s+about\s|^\s*and\s+(?:for|with|in|on|if|when)\b/i;
