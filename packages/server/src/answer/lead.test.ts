import { describe, expect, it } from "vitest";
import { ExtractiveSynthesizer } from "../pipeline/answer-synthesizer.ts";
import { retrievedChunk } from "../search/test-builders.ts";
import type { RetrievedChunk } from "../search/types.ts";
import { definitionSubject } from "./lead.ts";

/**
 * The lead passage, table-driven: each row is a question, the chunks search found (made up for
 * these tests; none is a book's), what the answer must open with or contain, and what it must not.
 */

const glossary = retrievedChunk(
  "terms",
  [
    "Every term of the toolkit in one place.",
    "",
    "A quern is the grinding stage that turns raw samples into an even powder.",
  ].join("\n"),
  "Terms",
  0.5,
);

const usesQuern = retrievedChunk(
  "setup",
  "Note: the quern runs before the sieve. Start the quern from the control panel and wait until its lamp is green.",
  "Setup",
  0.9,
);

const sieve = retrievedChunk(
  "sieve",
  [
    "The sieve separates the powder by grain size.",
    "",
    "Its mesh is chosen per sample. To change the mesh, lift the lid and swap the frame:",
    "",
    "```sh",
    "mill mesh --size 40",
    "```",
  ].join("\n"),
  "Sieve",
  0.8,
);

const spooler = retrievedChunk(
  "spool",
  "Jobs wait in line. A spooler is a queue that holds print jobs until the printer is free.",
  "Spooler",
  0.8,
);

const cases: {
  name: string;
  question: string;
  results: RetrievedChunk[];
  /** The book's glossary page, found by its title rather than by the search. */
  glossary?: RetrievedChunk;
  /** The answer's first lines after its heading hold this. */
  opens?: string;
  contains?: string[];
  lacks?: string[];
}[] = [
  {
    name: "for 'what is X', the glossary's sentence saying what X is leads, beyond the results",
    question: "What is a quern?",
    results: [usesQuern],
    glossary,
    opens: "A quern is the grinding stage",
  },
  {
    name: "of two sources alike, the one saying what X is leads; a label before X is an aside",
    question: "What is a quern?",
    results: [usesQuern, { ...glossary, similarityScore: usesQuern.similarityScore }],
    opens: "A quern is the grinding stage",
  },
  {
    name: "a passage ending in ':' brings the code it introduces",
    question: "How do I change the mesh of the sieve?",
    results: [sieve],
    contains: ["To change the mesh, lift the lid and swap the frame:", "mill mesh --size 40"],
  },
  {
    name: "a sentence holding none of the question's words is not quoted with the one that does",
    question: "What does the print spooler queue hold?",
    results: [spooler],
    contains: ["**A spooler is a queue that holds print jobs until the printer is free.**"],
    lacks: ["**Jobs wait in line."],
  },
];

describe("the lead passage", () => {
  const synthesizer = new ExtractiveSynthesizer();
  for (const row of cases)
    it(row.name, async () => {
      const output = await synthesizer.synthesize({
        question: row.question,
        results: row.results,
        selectedText: null,
        ...(row.glossary
          ? {
              glossaryPages: [row.glossary.chunk.filePath],
              pageChunks: (filePath: string) =>
                [...row.results, ...(row.glossary ? [row.glossary] : [])]
                  .map((result) => result.chunk)
                  .filter((chunk) => chunk.filePath === filePath),
            }
          : {}),
      });
      const answer = output.answer ?? "";
      if (row.opens) {
        const [, body = ""] = answer.split("\n\n");
        expect(body).toContain(row.opens);
      }
      for (const phrase of row.contains ?? []) expect(answer).toContain(phrase);
      for (const phrase of row.lacks ?? []) expect(answer).not.toContain(phrase);
    });
});

describe("the subject of a definition question", () => {
  const rows: [string, string][] = [
    ["What is a quern?", "quern"],
    ["what's the sieve", "sieve"],
    ["What does mesh size mean?", "mesh size"],
    ["Define grain size", "grain size"],
    ["How do I change the mesh?", ""],
  ];
  for (const [question, subject] of rows)
    it(`${question} → "${subject}"`, () => expect(definitionSubject(question)).toBe(subject));
});
