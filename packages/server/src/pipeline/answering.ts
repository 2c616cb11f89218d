import {
  type AnswerSynthesizer,
  ExtractiveSynthesizer,
} from "@lectern/engine/pipeline/answer-synthesizer";
import { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import { ModelFollowUps } from "@lectern/engine/pipeline/follow-ups";
import { HeuristicRewriter, type QueryRewriter } from "@lectern/engine/pipeline/query-rewriter";
import type { Retriever } from "@lectern/engine/search/retriever";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import type { BookReader } from "../lectern.ts";
import { CircuitBreaker } from "../llm/circuit-breaker.ts";
import { createChatModel, ProviderClients } from "../llm/providers.ts";
import { LlmSynthesizer, type ModelCallReport } from "./llm-synthesizer.ts";
import { LlmFollowUpWriter } from "./model-follow-ups.ts";
import { LlmRewriter } from "./model-rewriter.ts";

/** The answer synthesizer and follow-up rewriter for the configured model (or none). */
export function createAnswering(
  config: Config,
  logger: Logger,
  clients: ProviderClients = new ProviderClients(),
  onModelCall?: (call: ModelCallReport) => void,
) {
  const handle = createChatModel(config.llm, clients);
  const extractive = new ExtractiveSynthesizer();
  if (!handle)
    return { synthesizer: extractive, rewriter: new HeuristicRewriter(), model: undefined };
  const breaker = new CircuitBreaker({
    failureThreshold: config.llm.breakerFailures,
    cooldownMs: config.llm.breakerCooldownMs,
  });
  const synthesizer = new LlmSynthesizer({
    handle,
    config: config.llm,
    breaker,
    fallback: extractive,
    onFailure: (error) =>
      logger.warn({ err: error, provider: handle.provider }, "model call failed"),
    ...(onModelCall ? { onModelCall } : {}),
  });
  const followUps = config.llm.followUps
    ? new ModelFollowUps(
        new LlmFollowUpWriter({
          handle,
          breaker,
          config: config.llm,
          onFailure: (error) =>
            logger.warn(
              { err: error, provider: handle.provider },
              "model follow-up questions failed; the book's are used",
            ),
        }),
        config.llm.followUpWaitMs,
      )
    : undefined;
  return {
    synthesizer,
    followUps,
    rewriter: new LlmRewriter({
      handle,
      breaker,
      config: config.llm,
      onDiscarded: (reason) =>
        logger.warn(
          { reason, provider: handle.provider },
          "the model's rewrite of a follow-up was discarded; the reader's question is searched",
        ),
    }),
    model: () => ({ provider: handle.provider, model: handle.modelId, state: breaker.state }),
    breaker,
  };
}

/**
 * The chat pipeline every entry point runs: `/chat`, `/chat/stream`, `lectern ask`, `repl`,
 * `eval`, `tune` and the bench. The served book is read on every turn, so a re-ingest is seen.
 */
export function createChatPipeline(
  lectern: BookReader,
  logger: Logger,
  options: {
    synthesizer?: AnswerSynthesizer;
    retriever?: Retriever;
    rewriter?: QueryRewriter;
    /** Each completed model answer (time to first token, tokens), for the metrics. */
    onModelCall?: (call: ModelCallReport) => void;
    followUps?: ModelFollowUps;
  } = {},
) {
  // The book's provider clients: chat and embeddings on one provider share one client.
  const answering = createAnswering(lectern.config, logger, lectern.providers, options.onModelCall);
  const fixed = options.retriever;
  const pipeline = new ChatPipeline({
    // The book as served when each question starts (a test's or the bench's retriever on it).
    book: () => (fixed ? { ...lectern.served, retriever: fixed } : lectern.served),
    synthesizer: options.synthesizer ?? answering.synthesizer,
    rewriter: options.rewriter ?? answering.rewriter,
    routeBasePath: lectern.config.routeBasePath,
    now: () => performance.now(),
    ...followUpsOption(
      options.followUps ?? (options.synthesizer ? undefined : answering.followUps),
    ),
  });
  return { pipeline, model: answering.model };
}

/**
 * Model follow-ups go with the configured model's answers: a synthesizer given by the caller (a
 * test's, the bench's) gets them only when they are given too.
 */
function followUpsOption(followUps: ModelFollowUps | undefined): { followUps?: ModelFollowUps } {
  return followUps ? { followUps } : {};
}
