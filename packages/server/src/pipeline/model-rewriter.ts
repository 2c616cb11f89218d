import {
  HeuristicRewriter,
  implausibleRewrite,
  type QueryRewriter,
} from "@lectern/engine/pipeline/query-rewriter";
import { PromptGuard } from "@lectern/engine/prompts/prompt-guard";
import {
  buildHistory,
  type Exchange,
  fenceSafe,
  REWRITE_SYSTEM_PROMPT,
} from "@lectern/engine/prompts/prompts";
import type { Config } from "../config/config.ts";
import type { CircuitBreaker } from "../llm/circuit-breaker.ts";
import type { ChatModelHandle } from "../llm/providers.ts";
import { loadModelSdk } from "../llm/sdk.ts";

/**
 * The model's rewrite of a follow-up into a standalone search query; the engine's heuristic
 * (`HeuristicRewriter`) when the model is unavailable, fails or the circuit is open.
 */
export class LlmRewriter implements QueryRewriter {
  readonly kind = "model";
  private readonly fallback = new HeuristicRewriter();

  constructor(
    private readonly deps: {
      handle: ChatModelHandle;
      breaker: CircuitBreaker;
      config: Config["llm"];
      /** A rewrite was discarded (the reader's question is searched as it is), and why. */
      onDiscarded?: (reason: string) => void;
    },
  ) {}

  async rewrite(query: string, history: Exchange[], signal?: AbortSignal): Promise<string> {
    if (history.length === 0) return query;
    if (!this.deps.breaker.tryAcquire()) return this.fallback.rewrite(query, history);
    const guard = new PromptGuard(REWRITE_SYSTEM_PROMPT);
    try {
      const timeout = AbortSignal.timeout(this.deps.config.firstTokenTimeoutMs);
      const { generateText } = await loadModelSdk();
      const { text } = await generateText({
        model: this.deps.handle.model,
        system: guard.system,
        prompt: `${buildHistory(history, 1_500)}<question>\n${fenceSafe(query)}\n</question>`,
        maxRetries: 0,
        temperature: 0,
        maxOutputTokens: 120,
        abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      this.deps.breaker.recordSuccess();
      const rewritten =
        text
          .trim()
          .split("\n")[0]
          ?.replace(/^["']|["']$/g, "")
          .trim() ?? "";
      if (rewritten.length === 0) return this.fallback.rewrite(query, history);
      // The whole reply is checked, not only the line kept: the rest says whether it echoed.
      const discarded = implausibleRewrite(text, rewritten, query, guard);
      if (discarded) {
        this.deps.onDiscarded?.(discarded);
        return query;
      }
      return rewritten;
    } catch (error) {
      if (signal?.aborted) {
        this.deps.breaker.recordCancelled();
        throw error;
      }
      this.deps.breaker.recordFailure();
      return this.fallback.rewrite(query, history);
    }
  }
}
