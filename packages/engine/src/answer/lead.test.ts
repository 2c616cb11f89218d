import { describe, expect, it } from "vitest";
import { chunkRecord } from "../search/test-builders.ts";
import { bestLead, definitionSubject, type Lead } from "./lead.ts";
import { CARD_WEIGHTS, questionWords, type ScoredSection, sectionsOf } from "./section-card.ts";

describe("the subject of a definition question", () => {
  const rows: [string, string][] = [
    ["What is a quern?", "quern"],
    ["what's the sieve", "sieve"],
    ["What does mesh size mean?", "mesh size"],
    ["Define grain size", "grain size"],
    ["How do I change the mesh?", ""],
    // Asked among the reader's own words, or after naming the thing.
    ["ok quick one: what's the textbook definition of a quern? not just 'the grinder'", "quern"],
    ["lol what does the QS in QS-mill actually stand for", "QS in QS-mill"],
    ["sieves vs querns -- what even is a sieve plate?", "sieve plate"],
    ["The manual keeps mentioning Grist — what is it?", "Grist"],
    ["What is it?", ""],
    ["Wet milling: what does that mean, and how is it different from dry milling?", "Wet milling"],
    ["the guide calls it a 'closed loop'. meaning??", "closed loop"],
    [
      "why is my powder coarse? what's the finer setting and what else does it change",
      "finer setting",
    ],
    // Not asking what a thing is.
    ["The mill jams at startup. whats wrong", ""],
    ["What's that setting for, and why bother?", ""],
    [
      "Many mills put a sieve after the grinder. What's the usual way to clean it after a batch of wet grain?",
      "",
    ],
  ];
  for (const [question, subject] of rows)
    it(`${question} → "${subject}"`, () => expect(definitionSubject(question)).toBe(subject));
});

describe("the best lead among many sections", () => {
  /** A small seeded generator: the same sections each run. */
  function random(seed: number) {
    let state = seed;
    return () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
  }
  const vocabulary = ["sieve", "quern", "grain", "mesh", "hopper", "wheel", "flour", "batch"];
  const filler = ["the", "turns", "holds", "feeds", "into", "slowly", "each", "until"];

  /** Sections of made-up sentences over a small vocabulary: many windows tie exactly. */
  function sections(next: () => number, count: number): ScoredSection[] {
    const word = (list: string[]) => list[Math.floor(next() * list.length)] as string;
    const sentence = () => {
      const words = Array.from({ length: 4 + Math.floor(next() * 4) }, () =>
        next() < 0.5 ? word(vocabulary) : word(filler),
      );
      const text = words.join(" ");
      return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    };
    const block = () =>
      next() < 0.3
        ? Array.from({ length: 2 + Math.floor(next() * 3) }, () => `- ${sentence()}`).join("\n")
        : Array.from({ length: 1 + Math.floor(next() * 3) }, sentence).join(" ");
    return Array.from({ length: count }, (_, at) => {
      const text = Array.from({ length: 1 + Math.floor(next() * 3) }, block).join("\n\n");
      const section = sectionsOf(chunkRecord(`s${at}`, text, `Part ${at}`), at)[0];
      if (!section) throw new Error("no section");
      // Scores in rank order, some equal.
      return { section, score: 10 - Math.floor(at / 2), similarity: 0.5 };
    });
  }

  it("is the best-scoring window, the first-ranked section's among equal ones", () => {
    const next = random(7);
    for (let round = 0; round < 40; round++) {
      const ranked = sections(next, 12);
      const asked = Array.from(
        { length: 2 + Math.floor(next() * 3) },
        () => vocabulary[Math.floor(next() * vocabulary.length)],
      ).join(" ");
      const question = questionWords(asked, () => 1);
      const subject = next() < 0.3 ? (vocabulary[0] as string) : "";
      const lead = bestLead(ranked, question, subject, CARD_WEIGHTS);
      // Each section's own best window, its standing reckoned against the best-ranked section.
      const top = ranked[0] as ScoredSection;
      const none = { ...top, section: { ...top.section, blocks: [], termCounts: new Map() } };
      let expected: Lead | undefined;
      for (const entry of ranked) {
        const own = bestLead([none, entry], question, subject, CARD_WEIGHTS);
        if (own && (!expected || own.score > expected.score)) expected = own;
      }
      expect(lead?.section.section.chunk.id).toBe(expected?.section.section.chunk.id);
      expect(lead?.sentences).toEqual(expected?.sentences);
      expect(lead?.score).toBe(expected?.score);
    }
  });
});
