import { describe, expect, it } from "vitest";
import { mayBeOverview, normalizeQuery, OVERVIEW_PATTERNS, routeQuery } from "./query-router.ts";

/**
 * Every text a pattern matches, for patterns made of literal characters, `(?:a|b)` groups,
 * `[ab]` classes and `?` after any of them between `^` and `$` (an overview pattern's syntax):
 * anything else throws, so a pattern written otherwise fails the test below rather than passing
 * it unread.
 */
function textsOf(source: string): string[] {
  let at = 0;
  const alternatives = (): string[] => {
    const texts: string[] = [];
    for (;;) {
      texts.push(...sequence());
      if (source[at] !== "|") return texts;
      at++;
    }
  };
  const sequence = (): string[] => {
    let texts = [""];
    while (at < source.length && source[at] !== "|" && source[at] !== ")") {
      let item: string[];
      const char = source[at] as string;
      if (source.startsWith("(?:", at)) {
        at += 3;
        item = alternatives();
        if (source[at++] !== ")") throw new Error(`unclosed group in ${source}`);
      } else if (char === "[") {
        const end = source.indexOf("]", at);
        item = [...source.slice(at + 1, end)];
        at = end + 1;
      } else if (/[\\^$.*+{}()]/.test(char)) {
        throw new Error(`${char} at ${at} of ${source}`);
      } else {
        item = [char];
        at++;
      }
      if (source[at] === "?") {
        item = ["", ...item];
        at++;
      }
      texts = texts.flatMap((text) => item.map((next) => text + next));
    }
    return texts;
  };
  const inner = source.replace(/^\^/, "").replace(/\$$/, "");
  source = inner;
  const texts = alternatives();
  if (at !== source.length) throw new Error(`${source} read to ${at} only`);
  return texts;
}

describe("the overview patterns' words", () => {
  it.each(OVERVIEW_PATTERNS.map((pattern) => [pattern.source.slice(0, 48), pattern]))(
    "hold every word of every text %j matches",
    (_, pattern) => {
      const texts = textsOf(pattern.source);
      expect(texts.length).toBeGreaterThan(0);
      for (const text of texts) {
        // The texts are the pattern's own: each matches it, in any letter case.
        expect(pattern.test(text), text).toBe(true);
        expect(pattern.test(text.toUpperCase()), text).toBe(true);
        expect(mayBeOverview(text), text).toBe(true);
        expect(mayBeOverview(text.toUpperCase()), text).toBe(true);
      }
    },
  );

  it.each([
    "How do I publish messages on a topic",
    "What is this book about today",
    "What's a URDF file",
  ])("leave out a text with any other word: %j", (text) => {
    expect(mayBeOverview(text)).toBe(false);
    expect(routeQuery(`${text}?`).route).toBe("question");
  });
});

describe("normalizeQuery", () => {
  it.each([
    ["  What is a topic?  ", "What is a topic?"],
    ["What\tis\n\na topic?", "What is a topic?"],
    ["a\u0000b\u001fc\u007fd", "a b c d"],
    ["\u0000\u0001 lead", "lead"],
    ["non-breaking\u00a0space and\u2028line", "non-breaking space and line"],
    ["emoji 🤖 and é stay", "emoji 🤖 and é stay"],
    ["\u0080 is not a control character here", "\u0080 is not a control character here"],
  ])("%j → %j", (query, normalized) => {
    expect(normalizeQuery(query)).toBe(normalized);
  });
});
