import { describe, expect, it } from "vitest";
import { analyzeQuestion } from "./search-terms.ts";

describe("a question's words as search weighs them", () => {
  const rows: { question: string; words: string[] }[] = [
    { question: "How do relays work?", words: ["relai"] },
    { question: "How does the relay board work", words: ["relai", "board"] },
    // "work" names what is asked about here.
    { question: "How do I work out the relay's load?", words: ["work", "relai", "load"] },
    { question: "Does the relay work with 5 V?", words: ["relai", "work", "5", "v"] },
  ];
  for (const row of rows)
    it(row.question, () => {
      expect(analyzeQuestion(row.question).words).toEqual(row.words);
    });
});
