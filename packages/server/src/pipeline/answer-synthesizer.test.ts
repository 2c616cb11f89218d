import { describe, expect, it } from "vitest";
import { retrievedChunk } from "../search/test-builders.ts";
import {
  EXTRACTIVE_FALLBACK_MESSAGE,
  ExtractiveSynthesizer,
  notInBookCaveat,
  SELECTION_UNANSWERABLE_MESSAGE,
} from "./answer-synthesizer.ts";

const result = (id: string, text: string, heading: string) =>
  retrievedChunk(id, text, heading, 0.8, 0.6);

const SELECTION =
  "Lithium cells power most small robots. Never discharge a cell below three volts. A deeply discharged cell can swell. Store packs half charged in a fireproof bag. Balance chargers keep the cells of a pack at the same voltage.";

const BOOK = [
  result(
    "servos",
    "A servo holds its angle with a feedback loop. The controller compares the target angle and the measured angle.",
    "Servos",
  ),
];

describe("ExtractiveSynthesizer in selected-text mode", () => {
  const synthesizer = new ExtractiveSynthesizer();

  it("answers a question about the selection from the selection, quoting a few sentences", async () => {
    const output = await synthesizer.synthesize({
      question: "What happens if I discharge a cell too far?",
      results: BOOK,
      selectedText: SELECTION,
    });
    expect(output).toMatchObject({
      answer: "Never discharge a cell below three volts. A deeply discharged cell can swell. [1]",
      mode: "selected_text",
      answeredFromSelection: true,
      citedNumbers: [1],
      fallbackMessage: EXTRACTIVE_FALLBACK_MESSAGE,
    });
  });

  it("explains the selection without echoing all of it", async () => {
    const output = await synthesizer.synthesize({
      question: "Explain this in simpler terms",
      results: [],
      selectedText: SELECTION,
    });
    expect(output.answeredFromSelection).toBe(true);
    const quoted = (output.answer ?? "").replace(/ \[1\]$/, "");
    expect(SELECTION).toContain(quoted);
    expect(quoted.length).toBeLessThan(SELECTION.length);
    expect(quoted.split(/(?<=\.)\s+/).length).toBeLessThanOrEqual(3);
  });

  it("answers a question beyond the selection from the book, numbering book sources from [2]", async () => {
    const output = await synthesizer.synthesize({
      question: "How does a servo hold its angle?",
      results: BOOK,
      selectedText: SELECTION,
    });
    expect(output.answer).toBe(
      "A servo holds its angle with a feedback loop. The controller compares the target angle and the measured angle. [2]",
    );
    expect(output).toMatchObject({
      mode: "selected_text",
      answeredFromSelection: false,
      citedNumbers: [2],
    });
  });

  it("says the selection cannot answer when neither it nor the book passages help", async () => {
    for (const results of [[], BOOK]) {
      const output = await synthesizer.synthesize({
        question: "Which GPS receiver should a drone use?",
        results: results.length > 0 ? [result("gps", "| Model | Price |", "Table")] : [],
        selectedText: SELECTION,
      });
      expect(output).toMatchObject({
        answer: SELECTION_UNANSWERABLE_MESSAGE,
        answeredFromSelection: false,
        fallbackMessage: null,
      });
    }
  });
});

describe("notInBookCaveat", () => {
  it("names up to three words, never adverbs or stray symbols", () => {
    expect(notInBookCaveat(["mortgage"])).toBe(
      "The book does not mention “mortgage”. These are the passages closest to the question:",
    );
    expect(notInBookCaveat(["ICP", "PCL"])).toContain("“ICP” or “PCL”");
    expect(notInBookCaveat(["a1", "b2", "c3", "d4"].map((w) => `word${w}`))).toContain(
      "“worda1”, “wordb2” or “wordc3”.",
    );
    expect(notInBookCaveat(["suddenly", "nicely"])).toBeNull();
    expect(notInBookCaveat(["42", "ok"])).toBeNull();
    expect(notInBookCaveat([])).toBeNull();
  });
});
