import { describe, expect, it } from "vitest";
import { round, sum } from "./numbers.ts";
import { basePath, pathWithin, urlPath } from "./url-path.ts";

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

describe("basePath and pathWithin", () => {
  it.each([
    ["", "/"],
    ["https://x.example", "/"],
    ["https://x.example/handbook", "/handbook/"],
    ["https://x.example/handbook/", "/handbook/"],
    ["/handbook", "/handbook/"],
    ["not a url", "/"],
  ])("the site at %j is served at %j", (baseUrl, path) => {
    expect(basePath(baseUrl)).toBe(path);
  });

  it.each([
    ["/handbook/docs/a#b", "/handbook/", "docs/a"],
    ["https://x.example/handbook/docs/a/", "/handbook/", "docs/a/"],
    ["/docs/a", "/", "docs/a"],
    ["/elsewhere/a", "/handbook/", "elsewhere/a"],
  ])("%j under %j is %j", (url, base, within) => {
    expect(pathWithin(url, base)).toBe(within);
  });
});
