import { describe, expect, it } from "vitest";
import { round, sum } from "./numbers.ts";
import { urlPath } from "./url-path.ts";

describe("round", () => {
  it("keeps the given number of decimals", () => {
    expect(round(0.123_456, 3)).toBe(0.123);
    expect(round(0.125_6, 2)).toBe(0.13);
    expect(round(2, 3)).toBe(2);
  });
});

describe("sum", () => {
  it("adds any iterable, empty ones to 0", () => {
    expect(
      sum(
        new Map([
          ["a", 1.5],
          ["b", 2],
        ]).values(),
      ),
    ).toBe(3.5);
    expect(sum([])).toBe(0);
  });
});

describe("urlPath", () => {
  it("drops the origin and the fragment; leaves other text alone", () => {
    expect(urlPath("/docs/arm/ik#jacobian")).toBe("/docs/arm/ik");
    expect(urlPath("https://b.example/docs/arm/ik#jacobian")).toBe("/docs/arm/ik");
    expect(urlPath("arm/ik.md")).toBe("arm/ik.md");
  });
});
