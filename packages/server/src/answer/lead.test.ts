import { describe, expect, it } from "vitest";
import { definitionSubject } from "./lead.ts";

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
