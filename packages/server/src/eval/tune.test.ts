import { DEFAULT_THRESHOLDS, decide, firstSourceSupport } from "@lectern/engine/search/retriever";
import type { RetrievalSignals } from "@lectern/engine/search/types";
import { describe, expect, it } from "vitest";
import type { EvalQuestionResult } from "./evaluate.ts";
import { chooseThresholds } from "./tune.ts";

let counter = 0;
function observed(
  offTopic: boolean,
  signals: Omit<RetrievalSignals, "support">,
  topPageCorrect = !offTopic,
): EvalQuestionResult {
  counter++;
  const support = signals.bestCoverage - signals.unknownShare;
  return {
    id: `q${counter}`,
    question: `question ${counter}`,
    expectedPages: offTopic ? [] : ["page.md"],
    rankedPages: ["page.md"],
    citedUrls: ["/docs/page"],
    firstHit: topPageCorrect ? 1 : undefined,
    predictedNoResults: false,
    lowConfidence: false,
    bestSimilarity: signals.bestCoverage,
    bestCoverage: signals.bestCoverage,
    unknownShare: signals.unknownShare,
    support,
    signals: { ...signals, support },
    resultCount: 5,
    route: "question",
    answer: "…",
    containsPhrase: undefined,
    leadHasPhrase: undefined,
    contextHasPhrase: undefined,
    latencyMs: 1,
  };
}

describe("the decision", () => {
  const signals = { bestCoverage: 0.7, unknownShare: 0.2, scoreRatio: 1.5, support: 0.35 };

  it("refuses a weak best match when the question has a word the book never uses", () => {
    expect(decide(signals, 5, { ...DEFAULT_THRESHOLDS, minScoreRatio: 2 })).toBe("no_results");
    expect(decide(signals, 5, { ...DEFAULT_THRESHOLDS, minScoreRatio: 1 })).toBe("answer");
  });

  it("never refuses a weak match of words the book all uses", () => {
    const known = { ...signals, unknownShare: 0 };
    expect(decide(known, 5, { ...DEFAULT_THRESHOLDS, minScoreRatio: 2 })).toBe("answer");
  });
});

describe("tuning", () => {
  // Answerable questions match strongly; two of them have a word the book never uses.
  const answerable = [
    ...Array.from({ length: 40 }, (_, index) =>
      observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 4 + (index % 5) }),
    ),
    observed(false, { bestCoverage: 0.8, unknownShare: 0.15, scoreRatio: 3.5 }),
    observed(false, { bestCoverage: 0.75, unknownShare: 0.2, scoreRatio: 4 }),
  ];
  // Off-topic ones: one the unknown words already refuse, one only a weak match gives away (its
  // support is above an answerable question's, whatever the unknown words weigh).
  const offTopic = [
    observed(true, { bestCoverage: 0.3, unknownShare: 0.6, scoreRatio: 1 }),
    observed(true, { bestCoverage: 0.85, unknownShare: 0.1, scoreRatio: 1.5 }),
  ];

  it("sets the weak-match floor between the off-topic question it refuses and the answerable ones", () => {
    const { thresholds } = chooseThresholds([...answerable, ...offTopic]);
    expect(thresholds.minScoreRatio).toBeGreaterThan(1.5);
    expect(thresholds.minScoreRatio).toBeLessThanOrEqual(3.5);
    for (const result of [...answerable, ...offTopic]) {
      const signals = result.signals as RetrievalSignals;
      expect(decide(signals, 5, thresholds)).toBe(
        result.expectedPages.length ? "answer" : "no_results",
      );
    }
  });

  it("never lets the floor refuse an answerable question when no off-topic one needs it", () => {
    const { thresholds } = chooseThresholds([
      ...answerable,
      observed(true, { bestCoverage: 0.3, unknownShare: 0.6, scoreRatio: 1 }),
    ]);
    for (const result of answerable) {
      expect(decide(result.signals as RetrievalSignals, 5, thresholds)).toBe("answer");
    }
  });
});

describe("the refusal budget", () => {
  it("holds for each set, so a large set of easy questions cannot spend a small set's budget", () => {
    const easy = Array.from({ length: 60 }, (_, index) => ({
      ...observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 4 + (index % 5) }),
      set: "large",
    }));
    const small = Array.from({ length: 9 }, () => ({
      ...observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 5 }),
      set: "small",
    }));
    // A reader's wording: a word the book never uses and a weak match, like the off-topic one.
    const readersWords = {
      ...observed(false, { bestCoverage: 0.4, unknownShare: 0.4, scoreRatio: 1 }),
      set: "small",
    };
    const offTopic = {
      ...observed(true, { bestCoverage: 0.4, unknownShare: 0.4, scoreRatio: 1 }),
      set: "small",
    };
    const pooled = chooseThresholds([...easy, ...small, readersWords, offTopic]);
    expect(decide(readersWords.signals as RetrievalSignals, 5, pooled.thresholds)).toBe("answer");
    // Without sets the same questions are one pool, where refusing it is within the budget.
    const unlabelled = [...easy, ...small, readersWords, offTopic].map(({ set, ...rest }) => rest);
    const { thresholds } = chooseThresholds(unlabelled);
    expect(decide(readersWords.signals as RetrievalSignals, 5, thresholds)).toBe("no_results");
  });
});

describe("the acronym rule", () => {
  // Two answerable questions have a reader's word the book never uses (not an acronym) and match
  // less well than the off-topic one below, so neither support nor the score ratio can refuse it.
  const answerable = [
    ...Array.from({ length: 40 }, (_, index) =>
      observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 4 + (index % 5) }),
    ),
    observed(false, { bestCoverage: 0.6, unknownShare: 0.25, scoreRatio: 3 }),
    observed(false, { bestCoverage: 0.65, unknownShare: 0.3, scoreRatio: 3.5 }),
  ];
  // Matches as well as the answerable questions except for one acronym the book never uses.
  const namesSomethingElse = observed(true, {
    bestCoverage: 0.9,
    unknownShare: 0.2,
    scoreRatio: 6,
    unknownAcronyms: 1,
  });

  it("is chosen when it refuses an off-topic question nothing else refuses", () => {
    const { thresholds } = chooseThresholds([...answerable, namesSomethingElse]);
    expect(thresholds.refuseUnknownAcronyms).toBe(true);
    expect(decide(namesSomethingElse.signals as RetrievalSignals, 5, thresholds)).toBe(
      "no_results",
    );
  });

  it("is left off when answerable questions name acronyms the book never uses", () => {
    const readersAcronyms = Array.from({ length: 2 }, () =>
      observed(false, { bestCoverage: 0.9, unknownShare: 0.2, scoreRatio: 6, unknownAcronyms: 1 }),
    );
    const { thresholds } = chooseThresholds([
      ...answerable,
      ...readersAcronyms,
      namesSomethingElse,
    ]);
    expect(thresholds.refuseUnknownAcronyms).toBe(false);
  });

  it("is left off when nothing needs it", () => {
    const { thresholds } = chooseThresholds([
      ...answerable,
      observed(true, { bestCoverage: 0.3, unknownShare: 0.6, scoreRatio: 1, unknownAcronyms: 1 }),
    ]);
    expect(thresholds.refuseUnknownAcronyms).toBe(false);
  });
});

describe("the low-confidence threshold", () => {
  // Every answer's best passage somewhere in the results covers the question well; only the first
  // source tells the wrong answers apart, and one of them by a word the book never uses.
  const right = Array.from({ length: 10 }, () =>
    observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 5 }),
  ).map((result) => ({ ...result, bestSimilarity: 0.85 }));
  const wrongFirst = Array.from({ length: 4 }, () =>
    observed(false, { bestCoverage: 0.9, unknownShare: 0, scoreRatio: 5 }, false),
  ).map((result) => ({ ...result, bestSimilarity: 0.4 }));
  const unknownWord = {
    ...observed(false, { bestCoverage: 0.9, unknownShare: 0.3, scoreRatio: 5 }, false),
    bestSimilarity: 0.8,
  };

  it("is set on the first source's support, between the right and the wrong answers", () => {
    const { thresholds } = chooseThresholds([...right, ...wrongFirst, unknownWord]);
    const flagged = (result: EvalQuestionResult) =>
      firstSourceSupport(result.bestSimilarity, result.signals as RetrievalSignals, thresholds) <
      thresholds.lowConfidenceSupport;
    expect(right.some(flagged)).toBe(false);
    expect(wrongFirst.every(flagged)).toBe(true);
    expect(flagged(unknownWord)).toBe(true);
  });
});
