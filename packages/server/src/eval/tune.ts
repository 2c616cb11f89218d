import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import {
  type DecisionThresholds,
  decide,
  firstSourceSupport,
  NEVER_REJECT,
  type RetrievalSignals,
  type Retriever,
} from "@lectern/engine/search/retriever";
import { type EvalQuestionResult, evaluate } from "./evaluate.ts";
import type { EvalQuestion } from "./questions.ts";

/**
 * Chooses the no-results and low-confidence thresholds from labelled questions (`lectern eval
 * --tune`: the tune half of a questions file, the other half only checks the result; `npm run
 * eval:dev -- --tune`: pooled sets, checked on a set that never takes part).
 *
 * - no_results: among grid points (unknownWeight, minSupport, minScoreRatio, and whether an
 *   acronym the book never uses refuses) that refuse at most MAX_FALSE_REJECTION of the answerable
 *   questions of every set (a set is one book's questions: `EvalQuestionResult.set`), the one
 *   whose worst set refuses the most off-topic ones, then the most on average over the sets;
 *   among equally good points the middle one, so the boundary sits away from the examples, and
 *   the acronym rule only when it does better than without it.
 * - low_confidence: with those, the lowConfidenceSupport (on the first source's support, see
 *   `firstSourceSupport`) whose flag best predicts a wrong answer (F1), wrong meaning an off-topic
 *   question answered or a first source from a page that does not answer the question; ties again
 *   take the middle.
 */

interface Observation {
  set: string;
  offTopic: boolean;
  signals: RetrievalSignals;
  resultCount: number;
  topPageCorrect: boolean;
  /** The first source's similarity score. */
  bestSimilarity: number;
}

/**
 * Refusing a question the book answers costs a reader more than answering an off-topic one (which
 * still shows its sources and the low-confidence flag): tuning only considers thresholds that
 * refuse at most this share of each set's answerable questions, and among those rejects the most
 * off-topic ones. Per set, because one book's readers must not pay for another's easy questions.
 */
export const MAX_FALSE_REJECTION = 0.03;

export interface TuneResult {
  thresholds: DecisionThresholds;
  /** The share of off-topic questions refused, in the set where it is lowest. */
  decisionScore: number;
  lowConfidenceF1: number;
}

const grid = (from: number, to: number, step: number) =>
  Array.from(
    { length: Math.round((to - from) / step) + 1 },
    (_, index) => Math.round((from + index * step) * 100) / 100,
  );

/**
 * Asks the questions through the chat pipeline with rejection turned off (so every question shows
 * what it would have cited), then chooses thresholds from the signals. `pipelineFor` builds the
 * pipeline `/chat` runs, over the given retriever.
 */
export async function tuneThresholds(
  retriever: Retriever,
  pipelineFor: (retriever: Retriever) => ChatPipeline,
  questions: EvalQuestion[],
  k = 5,
): Promise<TuneResult> {
  const permissive = retriever.withThresholds({ ...retriever.thresholds, ...NEVER_REJECT });
  const metrics = await evaluate(pipelineFor(permissive), questions, k);
  return chooseThresholds(metrics.results);
}

export function chooseThresholds(results: EvalQuestionResult[]): TuneResult {
  const observations: Observation[] = results.flatMap((result) =>
    result.signals && result.route === "question"
      ? [
          {
            set: result.set ?? "",
            offTopic: result.expectedPages.length === 0,
            signals: result.signals,
            resultCount: result.resultCount,
            topPageCorrect: result.firstHit === 1,
            bestSimilarity: result.bestSimilarity,
          },
        ]
      : [],
  );
  const sets = [...new Set(observations.map((observation) => observation.set))].map((set) => ({
    offTopic: observations.filter((o) => o.set === set && o.offTopic),
    answerable: observations.filter((o) => o.set === set && !o.offTopic),
  }));
  const scored = sets.filter((set) => set.offTopic.length > 0);

  let best = [Number.NEGATIVE_INFINITY];
  let optimal: {
    unknownWeight: number;
    minSupport: number;
    minScoreRatio: number;
    refuseUnknownAcronyms: boolean;
  }[] = [];
  for (const refuseUnknownAcronyms of [false, true])
    for (const unknownWeight of grid(0, 2, 0.25))
      for (const minSupport of grid(-0.5, 0.8, 0.02))
        for (const minScoreRatio of grid(0, 5, 0.25)) {
          const thresholds = {
            unknownWeight,
            minSupport,
            minScoreRatio,
            refuseUnknownAcronyms,
            lowConfidenceSupport: 0,
          };
          const rejected = (observation: Observation) =>
            decide(observation.signals, observation.resultCount, thresholds) === "no_results";
          // Refuse only what the book does not cover: wrong refusals stay within the budget.
          if (sets.some((set) => share(set.answerable, rejected) > MAX_FALSE_REJECTION)) continue;
          const shares = scored.map((set) => share(set.offTopic, rejected));
          const wrongly = sets.map((set) => share(set.answerable, rejected));
          const score = [Math.min(1, ...shares), mean(shares), -mean(wrongly)];
          const order = compareScores(score, best);
          if (order > 0) {
            best = score;
            optimal = [];
          }
          if (order >= 0)
            optimal.push({ unknownWeight, minSupport, minScoreRatio, refuseUnknownAcronyms });
        }
  // The acronym rule is kept only when it refuses more than the best points without it.
  if (optimal.some((point) => !point.refuseUnknownAcronyms))
    optimal = optimal.filter((point) => !point.refuseUnknownAcronyms);
  const refuseUnknownAcronyms = optimal[0]?.refuseUnknownAcronyms ?? false;
  // Ties resolve one dimension at a time, each pair of the first two counted once, so a floor
  // that changes nothing on these questions leaves the other two where they would be without it.
  const pairs = [
    ...new Map(
      optimal.map((point) => [`${point.unknownWeight}/${point.minSupport}`, point]),
    ).values(),
  ];
  const unknownWeight = median(pairs.map((point) => point.unknownWeight));
  const minSupport = median(
    pairs.filter((point) => point.unknownWeight === unknownWeight).map((point) => point.minSupport),
  );
  const minScoreRatio = median(
    optimal
      .filter((point) => point.unknownWeight === unknownWeight && point.minSupport === minSupport)
      .map((point) => point.minScoreRatio),
  );

  const decisionOnly = {
    unknownWeight,
    minSupport,
    minScoreRatio,
    refuseUnknownAcronyms,
    lowConfidenceSupport: 0,
  };
  const accepted = observations.filter(
    (observation) =>
      decide(observation.signals, observation.resultCount, decisionOnly) === "answer",
  );
  const wrong = (observation: Observation) => observation.offTopic || !observation.topPageCorrect;
  let bestF1 = -1;
  let optimalLow: number[] = [];
  for (const lowConfidenceSupport of grid(minSupport, 1, 0.02)) {
    const flagged = (observation: Observation) =>
      firstSourceSupport(observation.bestSimilarity, observation.signals, { unknownWeight }) <
      lowConfidenceSupport;
    const truePositives = accepted.filter(
      (observation) => flagged(observation) && wrong(observation),
    ).length;
    const flaggedCount = accepted.filter(flagged).length;
    const wrongCount = accepted.filter(wrong).length;
    const precision = flaggedCount ? truePositives / flaggedCount : 0;
    const recall = wrongCount ? truePositives / wrongCount : 0;
    const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
    if (f1 > bestF1 + 1e-9) {
      bestF1 = f1;
      optimalLow = [];
    }
    if (Math.abs(f1 - bestF1) <= 1e-9) optimalLow.push(lowConfidenceSupport);
  }
  return {
    thresholds: {
      unknownWeight,
      minSupport,
      minScoreRatio,
      refuseUnknownAcronyms,
      lowConfidenceSupport: median(optimalLow),
    },
    decisionScore: best[0] ?? 0,
    lowConfidenceF1: bestF1,
  };
}

/**
 * Positive when `left` is better: the off-topic share of the worst set first, then the mean
 * share, then the fewest answerable questions refused; equal within 1e-9.
 */
function compareScores(left: number[], right: number[]): number {
  for (const [index, value] of left.entries()) {
    const other = right[index] ?? Number.NEGATIVE_INFINITY;
    if (Math.abs(value - other) > 1e-9) return value - other;
  }
  return 0;
}

function mean(values: number[]): number {
  return values.length === 0
    ? 0
    : values.reduce((total, value) => total + value, 0) / values.length;
}

function share<T>(items: T[], predicate: (item: T) => boolean): number {
  return items.length === 0 ? 0 : items.filter(predicate).length / items.length;
}

/** The middle value (the lower one of the two middles), so ties resolve the same way every run. */
function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
