import { describe, expect, it } from "vitest";
import { editDistance, isNeighbourKey, slipDistance } from "./edit-distance.ts";

describe("editDistance", () => {
  /** The textbook full-matrix optimal string alignment distance. */
  function reference(left: string, right: string): number {
    const table = Array.from({ length: left.length + 1 }, (_, row) =>
      Array.from({ length: right.length + 1 }, (_, column) =>
        row === 0 ? column : column === 0 ? row : 0,
      ),
    );
    for (let row = 1; row <= left.length; row++) {
      for (let column = 1; column <= right.length; column++) {
        const cost = left[row - 1] === right[column - 1] ? 0 : 1;
        const line = table[row] as number[];
        const above = table[row - 1] as number[];
        let value = Math.min(
          (above[column] ?? 0) + 1,
          (line[column - 1] ?? 0) + 1,
          (above[column - 1] ?? 0) + cost,
        );
        if (
          row > 1 &&
          column > 1 &&
          left[row - 1] === right[column - 2] &&
          left[row - 2] === right[column - 1]
        ) {
          value = Math.min(value, ((table[row - 2] as number[])[column - 2] ?? 0) + 1);
        }
        line[column] = value;
      }
    }
    return (table[left.length] as number[])[right.length] ?? 0;
  }

  it("agrees with the full computation up to its limit, on many random word pairs", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const word = () =>
      Array.from(
        { length: 3 + Math.floor(random() * 9) },
        () => "abcde"[Math.floor(random() * 5)],
      ).join("");
    for (let trial = 0; trial < 3_000; trial++) {
      const left = word();
      const right = random() < 0.5 ? word() : `${left.slice(0, -1)}e`;
      for (const max of [1, 2]) {
        expect(editDistance(left, right, max), `${left} ${right} ${max}`).toBe(
          Math.min(reference(left, right), max + 1),
        );
      }
    }
    expect(editDistance("jacobain", "jacobian", 2)).toBe(1);
    expect(editDistance("detemine", "determine", 2)).toBe(1);
  });
});

describe("slipDistance", () => {
  it("counts the slips a typist makes: a neighbouring key, a swap, a missing or extra letter", () => {
    expect(slipDistance("detemin", "determin", 1)).toBe(1); // a letter left out
    expect(slipDistance("jacobain", "jacobian", 2)).toBe(1); // two letters swapped
    expect(slipDistance("wrote", "write", 1)).toBe(1); // o is next to i
    expect(slipDistance("kinemmat", "kinemat", 1)).toBe(1); // a letter typed twice
    expect(slipDistance("trajectori", "trajectori", 2)).toBe(0);
  });

  it("does not take one real word for a mistyped other", () => {
    // Far-away keys: these are different words, not typos.
    expect(slipDistance("solder", "solver", 1)).toBe(2);
    expect(slipDistance("stock", "stack", 1)).toBe(2);
    expect(slipDistance("micro", "macro", 1)).toBe(2);
    expect(slipDistance("commut", "comput", 1)).toBe(2);
    // Terms are stems: a different ending is a different word.
    expect(slipDistance("proxi", "proxim", 1)).toBe(2);
    expect(slipDistance("castl", "cast", 1)).toBe(2);
    // A long stem may end in a kept typo ("kinematcs" stems to "kinematc").
    expect(slipDistance("kinematc", "kinemat", 2)).toBe(1);
  });

  it("never exceeds max + 1 and agrees with editDistance when every letter differs by a neighbour", () => {
    expect(slipDistance("abcdefgh", "zzzzzzzz", 2)).toBe(3);
    expect(slipDistance("qwerty", "qwerty", 1)).toBe(0);
    expect(slipDistance("qeerty", "qwerty", 1)).toBe(editDistance("qeerty", "qwerty", 1));
  });

  it("knows the keyboard's neighbours", () => {
    expect(isNeighbourKey("s", "d")).toBe(true);
    expect(isNeighbourKey("g", "b")).toBe(true);
    expect(isNeighbourKey("d", "v")).toBe(false);
    expect(isNeighbourKey("é", "e")).toBe(true);
  });
});
