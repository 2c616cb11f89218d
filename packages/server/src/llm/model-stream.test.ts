import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { generateModelText, type ModelStreamPart, streamModelText } from "./model-stream.ts";

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};
const finish: LanguageModelV3StreamPart = {
  type: "finish",
  finishReason: { unified: "stop", raw: undefined },
  usage,
};

function model(chunks: LanguageModelV3StreamPart[], calls: unknown[] = []) {
  return new MockLanguageModelV3({
    doStream: async (options) => {
      calls.push(options);
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

async function read(parts: AsyncGenerator<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of parts) seen.push(part);
  return seen;
}

const request = { system: "S", prompt: "P", abortSignal: new AbortController().signal };

describe("a model answer streamed from the provider", () => {
  it("sends the system prompt and one user message with the settings given", async () => {
    const calls: Record<string, unknown>[] = [];
    await read(
      streamModelText(model([finish], calls), { ...request, temperature: 0.2, maxOutputTokens: 9 }),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      prompt: [
        { role: "system", content: "S" },
        { role: "user", content: [{ type: "text", text: "P" }] },
      ],
      temperature: 0.2,
      maxOutputTokens: 9,
    });
  });

  it.each([
    {
      case: "text deltas in order, then the tokens used",
      chunks: [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hel" },
        { type: "text-delta", id: "t", delta: "" },
        { type: "text-delta", id: "t", delta: "lo" },
        { type: "text-end", id: "t" },
        finish,
      ] satisfies LanguageModelV3StreamPart[],
      parts: [
        { type: "text", text: "Hel" },
        { type: "text", text: "lo" },
        { type: "finish", inputTokens: 12, outputTokens: 3 },
      ],
    },
    {
      case: "no reasoning text",
      chunks: [
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "thinking" },
        { type: "reasoning-end", id: "r" },
        { type: "text-delta", id: "t", delta: "A" },
      ] satisfies LanguageModelV3StreamPart[],
      parts: [{ type: "text", text: "A" }],
    },
  ])("yields $case", async ({ chunks, parts }) => {
    expect(await read(streamModelText(model(chunks), request))).toEqual(parts);
  });

  it("throws the error the stream reports, after the text before it", async () => {
    const failure = new Error("upstream went away");
    const seen: ModelStreamPart[] = [];
    const chunks: LanguageModelV3StreamPart[] = [
      { type: "text-delta", id: "t", delta: "A" },
      { type: "error", error: failure },
      { type: "text-delta", id: "t", delta: "never" },
    ];
    await expect(async () => {
      for await (const part of streamModelText(model(chunks), request)) seen.push(part);
    }).rejects.toBe(failure);
    expect(seen).toEqual([{ type: "text", text: "A" }]);
  });

  it("throws the abort's reason, not the transport's error, once the signal fires", async () => {
    const controller = new AbortController();
    const reason = Object.assign(new Error("no first token in time"), { name: "TimeoutError" });
    const hanging = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => {
        await new Promise((_, reject) =>
          abortSignal?.addEventListener("abort", () =>
            reject(new DOMException("aborted", "AbortError")),
          ),
        );
        throw new Error("unreachable");
      },
    });
    const parts = read(streamModelText(hanging, { ...request, abortSignal: controller.signal }));
    controller.abort(reason);
    await expect(parts).rejects.toBe(reason);
  });
});

describe("a short model answer taken whole from the provider", () => {
  const whole = (content: { type: "text" | "reasoning"; text: string }[], calls: unknown[] = []) =>
    new MockLanguageModelV3({
      doGenerate: async (options) => {
        calls.push(options);
        return {
          content,
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });

  it("sends one system and one user message and returns the text parts joined", async () => {
    const calls: Record<string, unknown>[] = [];
    const model = whole(
      [
        { type: "reasoning", text: "hidden" },
        { type: "text", text: "One?" },
        { type: "text", text: "\nTwo?" },
      ],
      calls,
    );
    expect(await generateModelText(model, { ...request, maxOutputTokens: 120 })).toBe("One?\nTwo?");
    expect(calls[0]).toMatchObject({
      prompt: [
        { role: "system", content: "S" },
        { role: "user", content: [{ type: "text", text: "P" }] },
      ],
      maxOutputTokens: 120,
    });
  });

  it("throws the abort's reason once the signal fires", async () => {
    const controller = new AbortController();
    const reason = new Error("answer ended");
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        controller.abort(reason);
        throw new DOMException("aborted", "AbortError");
      },
    });
    await expect(
      generateModelText(model, { ...request, abortSignal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
