import { HeuristicRewriter, type QueryRewriter } from "@lectern/engine/pipeline/query-rewriter";
import type { Config } from "../config/config.ts";
import type { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { generateModelText } from "../llm/model-stream.ts";
import { PromptGuard } from "../llm/prompt-guard.ts";
import { buildHistory, type Exchange, fenceSafe, REWRITE_SYSTEM_PROMPT } from "../llm/prompts.ts";
import type { ChatModelHandle } from "../llm/providers.ts";

/**
 * The model's rewrite of a follow-up into a standalone search query; the engine's heuristic
 * (`HeuristicRewriter`) when the model is unavailable, fails or the circuit is open.
 */
/** Tags of the prompt's fences: a rewrite that has them is the prompt played back. */
const PROMPT_TAGS = /<\/?(history|question|passages|passage|selection|system)\b/i;

/**
 * Why a model's rewrite cannot be searched, or undefined when it can: its reply repeats the prompt
 * (the canary, a run of the instructions, the fences' tags), or the query taken from it is far
 * longer than a standalone form of the question could be (twice the question and a phrase or two
 * from the conversation).
 */
export function implausibleRewrite(
  reply: string,
  rewritten: string,
  query: string,
  guard: PromptGuard,
): string | undefined {
  if (guard.isRepeatedIn(reply)) return "it repeats the prompt";
  if (PROMPT_TAGS.test(reply)) return "it repeats the prompt's tags";
  if (rewritten.length > 2 * query.length + 150) return "it is too long for a search query";
  return undefined;
}

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
      const text = await generateModelText(this.deps.handle.model, {
        system: guard.system,
        prompt: `${buildHistory(history, 1_500)}<question>\n${fenceSafe(query)}\n</question>`,
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
