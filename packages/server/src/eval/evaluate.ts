import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { RetrievalSignals } from "@lectern/engine/search/retriever";
import type { Exchange } from "../llm/prompts.ts";
import type { EvalQuestion } from "./questions.ts";

export interface EvalQuestionResult {
  id: string;
  /** The set the question belongs to when several are pooled (tuning keeps each set's budget). */
  set?: string;
  question: string;
  expectedPages: string[];
  rankedPages: string[];
  /** The URLs of the sections the answer cites, in citation order. */
  citedUrls: string[];
  /** 1-based rank of the first expected page, or undefined. */
  firstHit: number | undefined;
  predictedNoResults: boolean;
  lowConfidence: boolean;
  bestSimilarity: number;
  bestCoverage: number;
  unknownShare: number;
  support: number;
  signals: RetrievalSignals | undefined;
  resultCount: number;
  /** How the pipeline routed the question (question, overview, greeting, thanks). */
  route: string;
  answer: string | null;
  /** Whether the answer contains one of the row's `must_contain_any` phrases (undefined: none given). */
  containsPhrase: boolean | undefined;
  /**
   * Whether the answer's first LEAD_WORDS words (what a reader sees first) contain one of the
   * phrases (undefined: none given).
   */
  leadHasPhrase: boolean | undefined;
  /**
   * Whether the full text of the first k sources holds one of the phrases: the most an answer
   * written from them can contain (undefined: no phrases, or no source texts given).
   */
  contextHasPhrase: boolean | undefined;
  /** Milliseconds in the retrieve stage. */
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
  /** Rows with `must_contain_any`, and the share of their answers containing one of the phrases. */
  phraseRows: number;
  phraseShare: number;
  /** Of the phrase rows, the share whose first k sources hold a phrase (context recall@k). */
  contextRecall: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  results: EvalQuestionResult[];
}

/**
 * Asks every question through the chat pipeline (the path `/chat` serves) and scores the pages
 * it cites: hit@1, hit@k and MRR over pages, refusals, phrases the answer must contain and the
 * time spent retrieving. A conversation's earlier turns are asked first, in order, with the
 * answers fed back as history.
 */
export async function evaluate(
  pipeline: ChatPipeline,
  questions: EvalQuestion[],
  k = 5,
  /** The full text of a cited chunk, for context recall; without it that figure is not taken. */
  sourceText?: (filePath: string, chunkPosition: number) => string | undefined,
): Promise<EvalMetrics> {
  const results: EvalQuestionResult[] = [];
  for (const question of questions) {
    const history: Exchange[] = [];
    for (const turn of question.previousTurns) {
      const earlier = await pipeline.run(chatInput(question.id, turn, history, k));
      history.push({ query: turn, answer: earlier.answer ?? earlier.fallbackMessage ?? "" });
    }
    const outcome = await pipeline.run(chatInput(question.id, question.question, history, k));
    const rankedPages = [
      ...new Set(
        outcome.sources.flatMap((source) => ("file_path" in source ? [source.file_path] : [])),
      ),
    ];
    const hitIndex = rankedPages.findIndex((page) => question.expected_pages.includes(page));
    const answer = outcome.answer;
    const phrases = question.must_contain_any;
    const scores = outcome.sources.map((source) =>
      "similarity_score" in source ? source.similarity_score : 0,
    );
    results.push({
      id: question.id,
      question: question.question,
      expectedPages: question.expected_pages,
      rankedPages,
      citedUrls: outcome.sources.flatMap((source) =>
        "file_path" in source ? [source.source_url] : [],
      ),
      firstHit: hitIndex >= 0 ? hitIndex + 1 : undefined,
      predictedNoResults: outcome.mode === "no_results",
      lowConfidence: outcome.lowConfidence,
      bestSimilarity: Math.max(0, ...scores),
      bestCoverage: outcome.signals?.bestCoverage ?? 0,
      unknownShare: outcome.signals?.unknownShare ?? 0,
      support: outcome.support ?? 0,
      signals: outcome.signals,
      resultCount: outcome.retrievalCount,
      route: outcome.route,
      answer,
      containsPhrase: phrases ? containsAny(answer ?? "", phrases) : undefined,
      leadHasPhrase: phrases ? containsAny(leadOf(answer ?? ""), phrases) : undefined,
      contextHasPhrase:
        phrases && sourceText
          ? containsAny(
              outcome.sources
                .slice(0, k)
                .map((source) =>
                  "file_path" in source
                    ? (sourceText(source.file_path, source.chunk_position) ?? "")
                    : "",
                )
                .join("\n"),
              phrases,
            )
          : undefined,
      latencyMs: outcome.timings.retrieve ?? 0,
    });
  }
  return summarize(results, k);
}

/**
 * Text as a phrase is looked for in it: `[n]` markers and Markdown emphasis, link and heading
 * marks dropped, backticks removed, lower-cased, whitespace collapsed (the dev sets' rule).
 */
export function matchableText(text: string): string {
  return text
    .replace(/\s*\[\d+\]/g, "")
    .replace(/<\/?mark>/g, "")
    .replace(/\*\*|__|`/g, "")
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/\s+/g, " ");
}

/** How many words of an answer count as its lead: about what a phone shows above the fold. */
export const LEAD_WORDS = 60;

/** The answer's first LEAD_WORDS words, with the line breaks between them. */
export function leadOf(answer: string): string {
  const words = answer.split(/(\s+)/);
  return words.slice(0, LEAD_WORDS * 2).join("");
}

/** Whether the text holds one of the phrases, both made matchable. */
export function containsAny(text: string, phrases: string[]): boolean {
  const haystack = matchableText(text);
  return phrases.some((phrase) => haystack.includes(matchableText(phrase).trim()));
}

function chatInput(id: string, query: string, history: Exchange[], k: number) {
  return {
    requestId: id,
    sessionId: id,
    query,
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: k,
    history: [...history],
  };
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
    phraseRows: results.filter((result) => result.containsPhrase !== undefined).length,
    phraseShare: share(
      results.filter((result) => result.containsPhrase === true).length,
      results.filter((result) => result.containsPhrase !== undefined).length,
    ),
    contextRecall: share(
      results.filter((result) => result.contextHasPhrase === true).length,
      results.filter((result) => result.contextHasPhrase !== undefined).length,
    ),
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
