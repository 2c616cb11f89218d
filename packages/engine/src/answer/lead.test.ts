import { describe, expect, it } from "vitest";
import { definitionSubject } from "./lead.ts";

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
