import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { REWRITE_SYSTEM_PROMPT } from "../llm/prompts.ts";
import type { ChatModelHandle } from "../llm/providers.ts";
import { LlmRewriter } from "./model-rewriter.ts";

/** A model whose reply is made from the system prompt it was sent (canary included). */
function modelReplying(reply: (system: string) => string) {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const system = options.prompt.find((message) => message.role === "system");
      return {
        content: [{ type: "text" as const, text: reply(String(system?.content ?? "")) }],
        finishReason: { unified: "stop" as const, raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

function rewriter(model: MockLanguageModelV3) {
  const discarded: string[] = [];
  const handle = {
    model,
    provider: "openai-compatible",
    modelId: "mock",
    unavailableCode: "LLM_UNAVAILABLE",
  } as ChatModelHandle;
  const rewrite = new LlmRewriter({
    handle,
    breaker: new CircuitBreaker({ failureThreshold: 3, cooldownMs: 60_000 }),
    config: loadConfig({ env: {} }).llm,
    onDiscarded: (reason) => discarded.push(reason),
  });
  return { rewrite, discarded };
}

const HISTORY = [{ query: "What is ros2_control?", answer: "A framework for robot control [1]." }];
const QUESTION = "What are its main components?";

describe("LlmRewriter", () => {
  it("searches the model's standalone form of a follow-up", async () => {
    const { rewrite, discarded } = rewriter(
      modelReplying(() => '"What are the main components of ros2_control?"'),
    );
    expect(await rewrite.rewrite(QUESTION, HISTORY)).toBe(
      "What are the main components of ros2_control?",
    );
    expect(discarded).toEqual([]);
  });

  it.each([
    ["the whole prompt played back", (system: string) => system],
    ["the canary alone", (system: string) => /lc-[0-9a-f]+/.exec(system)?.[0] ?? "no canary"],
    [
      "its instructions, reworded in case",
      () => REWRITE_SYSTEM_PROMPT.slice(60, 140).toUpperCase(),
    ],
    ["the fences of the conversation", () => `<question>\n${QUESTION}\n</question>`],
    ["a paragraph, not a query", () => `ros2_control ${"and its parts ".repeat(30)}`],
  ])("discards %s and searches the reader's own question", async (_, reply) => {
    const { rewrite, discarded } = rewriter(modelReplying(reply));
    expect(await rewrite.rewrite(QUESTION, HISTORY)).toBe(QUESTION);
    expect(discarded).toHaveLength(1);
  });
});
