import { describe, expect, it } from "vitest";
import { cachedIn } from "./bounded-cache.ts";

describe("cachedIn", () => {
  it("makes a value once, and empties the cache when it is full", () => {
    const cache = new Map<string, number>();
    let made = 0;
    const lengthOf = (key: string) =>
      cachedIn(cache, key, 2, (text) => {
        made++;
        return text.length;
      });
    expect([lengthOf("ab"), lengthOf("ab"), lengthOf("abc")]).toEqual([2, 2, 3]);
    expect(made).toBe(2);
    lengthOf("abcd");
    expect([...cache.keys()]).toEqual(["abcd"]);
  });
});
