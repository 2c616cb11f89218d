import { describe, expect, it } from "vitest";
import { cutText } from "./cut-text.ts";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `offset` letters, then `emoji`, then letters up to `length` units. */
function withAt(offset: number, emoji: string, length: number): string {
  return `${"a".repeat(offset)}${emoji}`.padEnd(length, "b");
}

describe("cutText", () => {
  it.each([
    // An emoji (two units) starting at each offset around a 200-unit cut.
    { text: withAt(197, "🤖", 300), max: 200, length: 200 },
    { text: withAt(198, "🤖", 300), max: 200, length: 200 },
    { text: withAt(199, "🤖", 300), max: 200, length: 199 },
    { text: withAt(200, "🤖", 300), max: 200, length: 200 },
    { text: withAt(201, "🤖", 300), max: 200, length: 200 },
    { text: withAt(202, "🤖", 300), max: 200, length: 200 },
    // …and around a 500-unit cut.
    { text: withAt(498, "😀", 600), max: 500, length: 500 },
    { text: withAt(499, "😀", 600), max: 500, length: 499 },
    { text: withAt(500, "😀", 600), max: 500, length: 500 },
    { text: withAt(501, "😀", 600), max: 500, length: 500 },
    // Nothing but emoji: every cut at an odd length gives one unit back.
    { text: "🤖".repeat(150), max: 200, length: 200 },
    { text: "🤖".repeat(150), max: 199, length: 198 },
    { text: "🤖", max: 1, length: 0 },
    // Shorter than the limit, or exactly at it: unchanged.
    { text: "short 🤖", max: 200, length: 8 },
    { text: withAt(198, "🤖", 200), max: 200, length: 200 },
    { text: "", max: 200, length: 0 },
    // CJK in the Basic Multilingual Plane is one unit per character; astral CJK is two.
    { text: "機械学習".repeat(60), max: 200, length: 200 },
    { text: `${"a".repeat(199)}𠀀𠀀`, max: 200, length: 199 },
    // A combining mark may part from its letter: both halves are valid text.
    { text: `${"a".repeat(199)}e\u0301`, max: 200, length: 200 },
  ])("cuts $text.length units to $length (limit $max)", ({ text, max, length }) => {
    const cut = cutText(text, max);
    expect(cut.length).toBe(length);
    expect(text.startsWith(cut)).toBe(true);
    expect(cut).not.toMatch(LONE_SURROGATE);
  });

  it("gives back a whole code point at most, never more", () => {
    const text = "a🤖b😀c".repeat(80);
    for (let max = 0; max <= text.length; max++) {
      const cut = cutText(text, max);
      expect(cut).not.toMatch(LONE_SURROGATE);
      expect(max - cut.length).toBeLessThanOrEqual(1);
    }
  });
});
