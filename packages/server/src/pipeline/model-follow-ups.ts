import {
  cleanFollowUps,
  type FollowUpInput,
  type FollowUpWriter,
} from "@lectern/engine/pipeline/follow-ups";
import type { Config } from "../config/config.ts";
import type { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { generateModelText } from "../llm/model-stream.ts";
import { PromptGuard, PromptLeakError } from "../llm/prompt-guard.ts";
import { buildPassages, FOLLOW_UP_SYSTEM_PROMPT, followUpUserPrompt } from "../llm/prompts.ts";
import type { ChatModelHandle } from "../llm/providers.ts";

/** The passages' share of the prompt: enough to know what the book says next, and cheap. */
const FOLLOW_UP_CONTEXT_TOKENS = 2_000;

export class LlmFollowUpWriter implements FollowUpWriter {
  constructor(
    private readonly deps: {
      handle: ChatModelHandle;
      breaker: CircuitBreaker;
      config: Config["llm"];
      onFailure?: (error: unknown) => void;
    },
  ) {}

  async write(input: FollowUpInput, signal: AbortSignal): Promise<string[]> {
    // The answer's call owns the circuit: this optional one neither probes a failing model nor
    // counts towards opening the circuit.
    if (this.deps.breaker.state !== "closed" || input.results.length === 0) return [];
    const passages = buildPassages(
      input.results,
      Math.min(this.deps.config.contextTokens, FOLLOW_UP_CONTEXT_TOKENS),
    );
    const guard = new PromptGuard(FOLLOW_UP_SYSTEM_PROMPT);
    try {
      const text = await generateModelText(this.deps.handle.model, {
        system: guard.system,
        prompt: followUpUserPrompt(input.question, passages.text),
        temperature: this.deps.config.temperature,
        maxOutputTokens: 120,
        abortSignal: signal,
      });
      if (guard.isRepeatedIn(text)) throw new PromptLeakError();
      return cleanFollowUps(text, input.question);
    } catch (error) {
      if (!signal.aborted) this.deps.onFailure?.(error);
      return [];
    }
  }
}
