import {
  cleanFollowUps,
  type FollowUpWriter,
  MAX_FOLLOW_UP_CHARS,
  ModelFollowUps,
  mergeFollowUps,
} from "@lectern/engine/pipeline/follow-ups";
import type { RetrievedChunk } from "@lectern/engine/search/retriever";
import { APICallError } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { PromptLeakError } from "../llm/prompt-guard.ts";
import { FOLLOW_UP_SYSTEM_PROMPT } from "../llm/prompts.ts";
import type { ChatModelHandle } from "../llm/providers.ts";
import { LlmFollowUpWriter } from "./model-follow-ups.ts";

function result(index: number, text: string): RetrievedChunk {
  return {
    chunk: {
      id: `c${index}`,
      collection: "default",
      version: "",
      filePath: `p${index}.md`,
      chunkIndex: 0,
      totalChunks: 1,
      title: `Page ${index}`,
      section: `Section ${index}`,
      headingPath: [`Page ${index}`, `Section ${index}`],
      url: `/docs/p${index}`,
      tags: [],
      text,
      contentHash: `h${index}`,
      tokenCount: Math.ceil(text.length / 4),
    },
    score: 1,
    similarityScore: 0.9,
    coverage: 0.9,
  };
}

const RESULTS = [
  result(1, "A servo holds its angle with a PID loop. Raise the gain until it oscillates."),
  result(2, "The gearbox multiplies torque by its ratio."),
];

function answeringModel(reply: () => Promise<string> | string) {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "text" as const, text: await reply() }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    }),
  });
}

function writer(
  model: MockLanguageModelV3,
  breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 }),
) {
  const failures: unknown[] = [];
  const handle = {
    model,
    provider: "openai-compatible",
    modelId: "mock",
    unavailableCode: "LLM_UNAVAILABLE",
  } as ChatModelHandle;
  const followUps = new LlmFollowUpWriter({
    handle,
    breaker,
    config: loadConfig({ env: {} }).llm,
    onFailure: (error) => failures.push(error),
  });
  return { followUps, failures, breaker };
}

const QUESTION = "How do I tune a servo?";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("cleanFollowUps", () => {
  it("keeps the questions of a reply, without list marks, quotes or emphasis", () => {
    expect(
      cleanFollowUps(
        '1. What limits the gain of a servo?\n- "How does the gearbox change torque?"\n* **Why does a servo oscillate?**\n',
        QUESTION,
      ),
    ).toEqual([
      "What limits the gain of a servo?",
      "How does the gearbox change torque?",
      "Why does a servo oscillate?",
    ]);
  });

  it("drops the reader's own question, repeats, statements, citations, links and long lines", () => {
    const long = `What ${"very ".repeat(40)}long question is this?`;
    expect(long.length).toBeGreaterThan(MAX_FOLLOW_UP_CHARS);
    expect(
      cleanFollowUps(
        [
          "Here are some follow-up questions:",
          "how do I tune a servo",
          "How do I tune a servo?",
          "What is a gearbox?",
          "what is a GEARBOX?",
          "Why? ",
          "What does passage [1] say about gain?",
          "Is https://example.com the manual?",
          "Is <b>this</b> safe?",
          long,
          "What sets the gear ratio?",
        ].join("\n"),
        QUESTION,
      ),
    ).toEqual(["What is a gearbox?", "What sets the gear ratio?"]);
  });

  it("keeps three at most", () => {
    expect(
      cleanFollowUps("What is A?\nWhat is B?\nWhat is C?\nWhat is D?", QUESTION).map((q) => q),
    ).toEqual(["What is A?", "What is B?", "What is C?"]);
  });
});

describe("mergeFollowUps", () => {
  const book = ["What should I know about gains?", "What should I know about damping?"];

  it("takes the model's when it wrote two or more", () => {
    expect(mergeFollowUps(["What is A?", "What is B?"], book, QUESTION)).toEqual([
      "What is A?",
      "What is B?",
    ]);
  });

  it("tops one of the model's up with the book's, and uses the book's alone without any", () => {
    expect(mergeFollowUps(["What is A?"], book, QUESTION)).toEqual(["What is A?", ...book]);
    expect(mergeFollowUps([], book, QUESTION)).toEqual(book);
  });

  it("never repeats a question or offers the reader's own", () => {
    expect(
      mergeFollowUps(["What should I know about gains?"], [...book, QUESTION], QUESTION),
    ).toEqual(book);
  });
});

describe("LlmFollowUpWriter", () => {
  it("asks the model with the follow-up prompt, the passages and the question, and cleans its reply", async () => {
    const model = answeringModel(
      () => "1. What limits the gain of a servo?\n2. How does the gearbox change torque?",
    );
    const { followUps } = writer(model);
    const questions = await followUps.write(
      { question: QUESTION, results: RESULTS },
      new AbortController().signal,
    );
    expect(questions).toEqual([
      "What limits the gain of a servo?",
      "How does the gearbox change torque?",
    ]);
    const call = model.doGenerateCalls[0];
    const system = call?.prompt[0];
    expect(system?.role).toBe("system");
    expect(String(system?.content)).toMatch(
      new RegExp(`^${escapeRegExp(FOLLOW_UP_SYSTEM_PROMPT)}\n\n\\(Confidential marker`),
    );
    const user = JSON.stringify(call?.prompt[1]);
    expect(user).toContain('<passage number=\\"1\\" title=\\"Page 1 › Section 1\\">');
    expect(user).toContain("The gearbox multiplies torque");
    expect(user).toContain(`<question>\\n${QUESTION}\\n</question>`);
  });

  it("gives none when its reply repeats the prompt, reporting it", async () => {
    // Each sentence of the system prompt as sent (the canary's among them), as a question.
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const system = String(options.prompt[0]?.content ?? "");
        const text = system
          .split(/(?<=[.!?)])\s+/)
          .map((sentence) => sentence.replace(/[.!]?\)?$/, "?"))
          .join("\n");
        return {
          content: [{ type: "text" as const, text }],
          finishReason: { unified: "stop" as const, raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    const { followUps, failures } = writer(model);
    expect(
      await followUps.write({ question: QUESTION, results: RESULTS }, new AbortController().signal),
    ).toEqual([]);
    expect(failures).toEqual([expect.any(PromptLeakError)]);
  });

  it("gives none when the model fails, reporting the failure, and the circuit is left alone", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: "overloaded",
          url: "http://model",
          requestBodyValues: {},
          statusCode: 503,
        });
      },
    });
    const { followUps, failures, breaker } = writer(model);
    expect(
      await followUps.write({ question: QUESTION, results: RESULTS }, new AbortController().signal),
    ).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(breaker.state).toBe("closed"); // one failure would have opened it (threshold 1)
  });

  it("does not call a model whose circuit is open, nor one with no passages", async () => {
    const model = answeringModel(() => "What is A?\nWhat is B?");
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 });
    breaker.recordFailure();
    const open = writer(model, breaker).followUps;
    const signal = new AbortController().signal;
    expect(await open.write({ question: QUESTION, results: RESULTS }, signal)).toEqual([]);
    expect(
      await writer(model).followUps.write({ question: QUESTION, results: [] }, signal),
    ).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

describe("ModelFollowUps", () => {
  /** A writer whose questions come when the test says, and which records its signal. */
  function heldWriter() {
    let release: (questions: string[]) => void = () => {};
    let signal: AbortSignal | undefined;
    const written: FollowUpWriter = {
      write: (_input, given) => {
        signal = given;
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    };
    return { written, release: (questions: string[]) => release(questions), signal: () => signal };
  }

  it("gives the model's questions when they come within the wait", async () => {
    const held = heldWriter();
    const pending = new ModelFollowUps(held.written, 5_000).start({
      question: QUESTION,
      results: RESULTS,
    });
    setTimeout(() => held.release(["What is A?"]), 10);
    expect(await pending.settle()).toEqual(["What is A?"]);
  });

  it("gives none once the wait is over, and stops the call", async () => {
    const held = heldWriter();
    const pending = new ModelFollowUps(held.written, 20).start({
      question: QUESTION,
      results: RESULTS,
    });
    expect(await pending.settle()).toEqual([]);
    expect(held.signal()?.aborted).toBe(true);
  });

  it("stops the call when the answer fails or the reader leaves", async () => {
    const held = heldWriter();
    const cancelled = new ModelFollowUps(held.written, 5_000).start({
      question: QUESTION,
      results: RESULTS,
    });
    cancelled.cancel();
    expect(held.signal()?.aborted).toBe(true);

    const reader = new AbortController();
    const left = heldWriter();
    new ModelFollowUps(left.written, 5_000).start(
      { question: QUESTION, results: RESULTS },
      reader.signal,
    );
    reader.abort();
    expect(left.signal()?.aborted).toBe(true);
  });

  it("starts the call of a streamed answer after its first text has been handed on", async () => {
    const held = heldWriter();
    let calls = 0;
    const counted: FollowUpWriter = {
      write: (input, signal) => {
        calls++;
        return held.written.write(input, signal);
      },
    };
    const shown: string[] = [];
    const { pending, options } = new ModelFollowUps(counted, 5_000).beside(
      { question: QUESTION, results: RESULTS },
      { onDelta: (text) => shown.push(text) },
    );
    expect(calls).toBe(0);
    options.onDelta?.("Topics ");
    expect(shown).toEqual(["Topics "]);
    // Not in the turn that hands the first text on: that text goes out first.
    expect(calls).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    options.onDelta?.("carry messages.");
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    expect(shown).toEqual(["Topics ", "carry messages."]);
    setTimeout(() => held.release(["What is A?"]), 10);
    expect(await pending.settle()).toEqual(["What is A?"]);
  });

  it("starts it when a streamed answer ends without text, never once cancelled, at once unstreamed", async () => {
    const silent = heldWriter();
    const quiet = new ModelFollowUps(silent.written, 20).beside(
      { question: QUESTION, results: RESULTS },
      { onDelta: () => {} },
    );
    expect(silent.signal()).toBeUndefined();
    expect(await quiet.pending.settle()).toEqual([]);
    expect(silent.signal()?.aborted).toBe(true);

    let calls = 0;
    const counted: FollowUpWriter = { write: async () => [String(++calls)] };
    const cancelled = new ModelFollowUps(counted, 5_000).beside(
      { question: QUESTION, results: RESULTS },
      { onDelta: () => {} },
    );
    cancelled.options.onDelta?.("Topics");
    cancelled.pending.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cancelled.pending.settle()).toEqual([]);
    expect(calls).toBe(0);

    const unstreamed = new ModelFollowUps(counted, 5_000).beside(
      { question: QUESTION, results: RESULTS },
      {},
    );
    expect(calls).toBe(1);
    expect(unstreamed.options.onDelta).toBeUndefined();
    expect(await unstreamed.pending.settle()).toEqual(["1"]);
  });

  it("gives none when the writer throws", async () => {
    const failing: FollowUpWriter = { write: async () => Promise.reject(new Error("boom")) };
    const pending = new ModelFollowUps(failing, 5_000).start({
      question: QUESTION,
      results: RESULTS,
    });
    expect(await pending.settle()).toEqual([]);
  });
});
