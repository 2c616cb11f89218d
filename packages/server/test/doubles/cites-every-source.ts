import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";

/** A model answer citing every source it was given, one sentence each ("Fact 3 [3]."). */
export const citesEverySource: AnswerSynthesizer = {
  kind: "cites-every-source",
  async synthesize(input) {
    const numbers = input.results.map((_, index) => index + 1);
    return {
      answer: numbers.map((number) => `Fact ${number} [${number}].`).join(" "),
      fallbackMessage: null,
      mode: "full",
      citedNumbers: numbers,
    };
  },
};

/** The [n] markers of an answer, in order. */
export function markersOf(answer: string): number[] {
  return Array.from(answer.matchAll(/\[(\d+)\]/g), (match) => Number(match[1]));
}
