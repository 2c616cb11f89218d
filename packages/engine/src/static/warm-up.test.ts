import { describe, expect, it } from "vitest";
import type { EngineAnswer, EngineQuestion } from "../engine/engine.ts";
import { warmUpOnOpen } from "./warm-up.ts";

/** An engine that records what it is asked; `fails` makes every answer fail. */
function recordingEngine(starters: string[] | undefined, fails = false) {
  const asked: EngineQuestion[] = [];
  const engine = {
    synopsis: starters ? { text: "", about: "", intro: undefined as never, starters } : undefined,
    async ask(question: EngineQuestion): Promise<EngineAnswer> {
      asked.push(question);
      if (fails) throw new Error("the shard could not be fetched");
      return {
        answer: "",
        fallbackMessage: null,
        sources: [],
        mode: "full",
        lowConfidence: false,
        confidence: "high",
      };
    },
  };
  return { engine, asked };
}

describe("warmUpOnOpen", () => {
  it("answers the first starter question once after the panel's starter questions opened the book", async () => {
    const { engine, asked } = recordingEngine(["How do topics work?", "What is a node?"]);
    const warm = warmUpOnOpen(engine);
    await warm({ method: "GET", path: "/suggestions" });
    await warm({ method: "GET", path: "/suggestions" });
    expect(asked).toEqual([{ query: "How do topics work?" }]);
  });

  it.each([
    ["a question", { method: "POST", path: "/chat/stream", body: '{"query":"What is a node?"}' }],
    // The searches as the reader types would wait behind the warming.
    ["the search box", { method: "GET", path: "/search?q=topic" }],
  ])("does nothing when %s opened the book", async (_, request) => {
    const first = recordingEngine(["How do topics work?"]);
    const warm = warmUpOnOpen(first.engine);
    await warm(request);
    await warm({ method: "GET", path: "/suggestions" });
    expect(first.asked).toEqual([]);
  });

  it("does nothing for a book without starter questions", async () => {
    const none = recordingEngine(undefined);
    await warmUpOnOpen(none.engine)({ method: "GET", path: "/suggestions" });
    expect(none.asked).toEqual([]);
  });

  it("settles when the warming answer fails: nobody waits on it", async () => {
    const { engine, asked } = recordingEngine(["How do topics work?"], true);
    await expect(warmUpOnOpen(engine)({ method: "GET", path: "/suggestions" })).resolves.toBe(
      undefined,
    );
    expect(asked).toHaveLength(1);
  });
});
