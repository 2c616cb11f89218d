import { describe, expect, it } from "vitest";
import { loadModelSdk } from "./sdk.ts";

describe("loadModelSdk", () => {
  it("loads the SDK once: every call after the first has the same loading", async () => {
    const first = loadModelSdk();
    expect(loadModelSdk()).toBe(first);
    expect(typeof (await first).streamText).toBe("function");
  });
});
