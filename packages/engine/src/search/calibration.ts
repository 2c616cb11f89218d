import { round } from "../util/numbers.ts";
import type { DecisionThresholds, RetrievalSignals, RetrievedChunk } from "./types.ts";

/**
 * Calibration. BM25 scores are unbounded and not comparable across queries, so the score shown to
 * readers is built from how much of the question a passage covers. With w ranging over the words
 * of the question (after stopwords; whole identifiers aside) and idf the BM25 idf:
 *   coverage(c)   = Σ idf(w) over words found in chunk c  /  Σ idf(w) over all words
 *   similarity(c) = coverage(c) × sqrt(bm25(c) / bm25(best))            (0..1)
 * Deciding `no_results` uses two signals, because a fixed BM25 cut-off cannot separate
 * off-topic questions from answerable ones (off-topic questions usually share common words with
 * the book):
 *   bestCoverage = the highest coverage among the results
 *   unknownShare = Σ idf(w) over words no chunk of the book contains / Σ idf(w)
 *   support      = bestCoverage − unknownWeight × unknownShare
 * A question about things the book never names has a high unknownShare; one made of words the
 * book uses but never together has a low bestCoverage. Either way support is low: below
 * minSupport the answer is `no_results`. The same measure on the first source (its similarity
 * score in place of bestCoverage) below lowConfidenceSupport makes the answer `low_confidence`:
 * the answer stands on that passage, and a better one further down does not vouch for it.
 * One more signal refuses a question with a word the book never uses whose other words match
 * nothing strongly:
 *   scoreRatio   = bm25(best) / Σ idf(w)
 * below minScoreRatio, with unknownShare > 0, the answer is `no_results` ("Should I choose a
 * fixed or a variable rate mortgage?": the book never says "mortgage", and "fixed", "variable"
 * and "rate" are scattered words of it). Answerable questions with an unknown word (a reader's
 * "scanner" for the book's "lidar") still match their passage strongly on the rest.
 * Last, an acronym is the name of one thing: a question naming one the book never writes
 * ("How does SLAM build a map…", "…with PX4 and GPS?") asks about something the book does not
 * cover, however well its other words match (`refuseUnknownAcronyms`). Readers' acronyms for
 * what a book does cover are the book's own ("URDF", "DDS", "IMU").
 */

/**
 * Chosen by `npm run eval:dev -- --tune` on four books' questions of different styles (Redux's
 * paraphrased questions, raw thread titles, off-topic controls and follow-up conversations; the
 * Jest, pnpm and Redux answer sets with their off-topic controls; the sample book's
 * questions.jsonl): the thresholds that refuse at most 3 % of each book's answerable questions
 * and the most off-topic ones in the book where that share is lowest. Checked on
 * questions-fresh.jsonl, which never takes part; see docs/retrieval.md.
 */
export const DEFAULT_THRESHOLDS: DecisionThresholds = {
  unknownWeight: 1.75,
  minSupport: -0.44,
  minScoreRatio: 1.25,
  refuseUnknownAcronyms: true,
  lowConfidenceSupport: 0.64,
};

/** Thresholds under which nothing is refused (tuning looks at every question's results). */
export const NEVER_REJECT = { minSupport: Number.NEGATIVE_INFINITY } as const;

/** The share of the question's word weight found among `present` (0..1, unrounded). */
export function coverageOf(
  weights: Map<string, number>,
  totalWeight: number,
  present: Set<string>,
): number {
  let covered = 0;
  for (const [word, weight] of weights) if (present.has(word)) covered += weight;
  return totalWeight > 0 ? Math.min(1, covered / totalWeight) : 0;
}

/** The signals that depend on the question and the best BM25 score only. */
function questionSignals(
  question: { totalWeight: number; unknownWeight: number; unknownAcronyms: string[] },
  bestBm25: number,
): Pick<RetrievalSignals, "unknownShare" | "scoreRatio" | "unknownAcronyms"> {
  const { totalWeight, unknownWeight } = question;
  return {
    unknownShare: totalWeight > 0 ? round(unknownWeight / totalWeight, 3) : 1,
    scoreRatio: totalWeight > 0 ? round(bestBm25 / totalWeight, 3) : 0,
    unknownAcronyms: question.unknownAcronyms.length,
  };
}

/**
 * The signals and the decision the words alone give: the best coverage among the results, the
 * question's unknown share and the best BM25 score's ratio, and support against the thresholds.
 */
export function lexicalVerdict(
  results: RetrievedChunk[],
  question: { totalWeight: number; unknownWeight: number; unknownAcronyms: string[] },
  bestBm25: number,
  thresholds: DecisionThresholds,
): { signals: RetrievalSignals; decision: "answer" | "no_results" } {
  const signals: RetrievalSignals = {
    bestCoverage: bestOf(results, (result) => result.coverage),
    ...questionSignals(question, bestBm25),
    support: 0,
  };
  signals.support = supportOf(signals, thresholds);
  return { signals, decision: decide(signals, results.length, thresholds) };
}

export function supportOf(
  signals: Pick<RetrievalSignals, "bestCoverage" | "unknownShare">,
  thresholds: Pick<DecisionThresholds, "unknownWeight">,
): number {
  return round(signals.bestCoverage - thresholds.unknownWeight * signals.unknownShare, 3);
}

/**
 * The support of the first source, which the answer stands on: its similarity score less the
 * share of the question the book never mentions, weighed as in `supportOf`.
 */
export function firstSourceSupport(
  bestSimilarity: number,
  signals: Pick<RetrievalSignals, "unknownShare">,
  thresholds: Pick<DecisionThresholds, "unknownWeight">,
): number {
  return supportOf(
    { bestCoverage: bestSimilarity, unknownShare: signals.unknownShare },
    thresholds,
  );
}

export function decide(
  signals: RetrievalSignals,
  resultCount: number,
  thresholds: DecisionThresholds,
): "answer" | "no_results" {
  if (resultCount === 0) return "no_results";
  if (supportOf(signals, thresholds) < thresholds.minSupport) return "no_results";
  if (thresholds.refuseUnknownAcronyms && (signals.unknownAcronyms ?? 0) > 0) return "no_results";
  return signals.unknownShare > 0 && signals.scoreRatio < thresholds.minScoreRatio
    ? "no_results"
    : "answer";
}

/** The largest value of `pick` among the results (0 when there are none). */
export function bestOf(
  results: RetrievedChunk[],
  pick: (result: RetrievedChunk) => number,
): number {
  return results.reduce((max, result) => Math.max(max, pick(result)), 0);
}

/** Sources are shown best first: by similarity score, then by rank. */
export function bySimilarity(results: RetrievedChunk[]): RetrievedChunk[] {
  return results
    .map((result, rank) => ({ result, rank }))
    .sort(
      (left, right) =>
        right.result.similarityScore - left.result.similarityScore || left.rank - right.rank,
    )
    .map((entry) => entry.result);
}
