import type { Retriever } from "../search/retriever.ts";
import type { EvalQuestion } from "./questions.ts";

export interface EvalQuestionResult {
  id: string;
  question: string;
  expectedPages: string[];
  rankedPages: string[];
  /** 1-based rank of the first expected page, or undefined. */
  firstHit: number | undefined;
  predictedNoResults: boolean;
  lowConfidence: boolean;
  bestSimilarity: number;
  bestCoverage: number;
  unknownShare: number;
  support: number;
  latencyMs: number;
}

export interface EvalMetrics {
  questions: number;
  answerable: number;
  offTopic: number;
  k: number;
  hitAt1: number;
  /** Expected page within the first k pages of the ranking (whatever the no-results decision). */
  hitAtK: number;
  /** Like hitAtK, but an answerable question wrongly rejected as no_results counts as a miss. */
  answeredHitAtK: number;
  mrr: number;
  /** Of the questions Lectern said the book does not cover, the share that truly are off-topic. */
  noAnswerPrecision: number;
  /** Of the off-topic questions, the share Lectern rejected. */
  noAnswerRecall: number;
  /** Answerable questions wrongly rejected as not covered. */
  falseRejections: number;
  /** Answers flagged low_confidence, and how many of those were wrong (top page wrong or off-topic). */
  lowConfidenceFlagged: number;
  lowConfidenceWrong: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  results: EvalQuestionResult[];
}

/** Hit@1, hit@k and MRR over pages, no-answer precision/recall and retrieval latency. */
export function evaluate(retriever: Retriever, questions: EvalQuestion[], k = 5): EvalMetrics {
  const results: EvalQuestionResult[] = [];
  for (const question of questions) {
    const started = performance.now();
    const retrieval = retriever.retrieve(question.question, { topK: k });
    const latencyMs = performance.now() - started;
    const rankedPages = [...new Set(retrieval.results.map((result) => result.chunk.filePath))];
    const hitIndex = rankedPages.findIndex((page) => question.expected_pages.includes(page));
    results.push({
      id: question.id,
      question: question.question,
      expectedPages: question.expected_pages,
      rankedPages,
      firstHit: hitIndex >= 0 ? hitIndex + 1 : undefined,
      predictedNoResults: retrieval.decision === "no_results",
      lowConfidence: retrieval.lowConfidence,
      bestSimilarity: retrieval.bestSimilarity,
      bestCoverage: retrieval.signals.bestCoverage,
      unknownShare: retrieval.signals.unknownShare,
      support: retrieval.signals.support,
      latencyMs,
    });
  }
  return summarize(results, k);
}

export function summarize(results: EvalQuestionResult[], k: number): EvalMetrics {
  const answerable = results.filter((result) => result.expectedPages.length > 0);
  const offTopic = results.filter((result) => result.expectedPages.length === 0);
  const rejected = results.filter((result) => result.predictedNoResults);
  const share = (count: number, total: number) => (total === 0 ? 0 : count / total);
  const latencies = results.map((result) => result.latencyMs).sort((a, b) => a - b);
  return {
    questions: results.length,
    answerable: answerable.length,
    offTopic: offTopic.length,
    k,
    hitAt1: share(answerable.filter((result) => result.firstHit === 1).length, answerable.length),
    hitAtK: share(
      answerable.filter((result) => result.firstHit !== undefined && result.firstHit <= k).length,
      answerable.length,
    ),
    answeredHitAtK: share(
      answerable.filter(
        (result) =>
          !result.predictedNoResults && result.firstHit !== undefined && result.firstHit <= k,
      ).length,
      answerable.length,
    ),
    mrr: share(
      answerable.reduce((sum, result) => sum + (result.firstHit ? 1 / result.firstHit : 0), 0),
      answerable.length,
    ),
    noAnswerPrecision: share(
      rejected.filter((result) => result.expectedPages.length === 0).length,
      rejected.length,
    ),
    noAnswerRecall: share(
      offTopic.filter((result) => result.predictedNoResults).length,
      offTopic.length,
    ),
    falseRejections: answerable.filter((result) => result.predictedNoResults).length,
    lowConfidenceFlagged: results.filter((result) => result.lowConfidence).length,
    lowConfidenceWrong: results.filter(
      (result) =>
        result.lowConfidence && (result.expectedPages.length === 0 || result.firstHit !== 1),
    ).length,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP95Ms: percentile(latencies, 0.95),
    results,
  };
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? 0;
}
