import { createError } from "@lectern/engine/errors";
import { responseMetadata } from "@lectern/engine/pipeline/response-metadata";
import type { ChatInput, ChatOutcome } from "@lectern/engine/pipeline/types";
import { round } from "@lectern/engine/util/numbers";
import type { Context } from "hono";
import { classifyError, type ErrorContext } from "../pipeline/error-classification.ts";
import type { RouteDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { NEVER_CUT_OFF, stoppingError } from "./middleware/shutdown.ts";
import { readChatInput } from "./request.ts";
import type { ChatResponse } from "./wire.ts";

/** What the two chat routes share: reading the question, admission, and the answer's wire form. */

export interface StartedChat {
  /** When the request arrived (deps.now), for query_time_ms. */
  started: number;
  requestId: string;
  request: ChatInput;
  /** Frees the in-flight slot; call once the answer is complete or has failed. */
  release: () => void;
}

/** Validates the body, then admits the chat (rate limits, in-flight cap). */
export async function startChat(context: Context<AppEnv>, deps: RouteDeps): Promise<StartedChat> {
  const started = deps.now();
  const requestId = context.get("requestId");
  const request = await readChatInput(context, deps.config, {
    requestId,
    newSessionId: deps.newId,
  });
  const release = await deps.admission(context, request.sessionId);
  return { started, requestId, request, release };
}

export function toChatResponse(
  deps: RouteDeps,
  input: ChatInput,
  outcome: ChatOutcome,
  started: number,
): ChatResponse {
  return {
    answer: outcome.answer,
    fallback_message: outcome.fallbackMessage,
    sources: outcome.sources,
    metadata: responseMetadata(input, outcome, deps.now() - started),
    session_id: input.sessionId,
    confidence: outcome.confidence,
    message_id: deps.chat.newMessageId(),
    ...(outcome.suggestions && outcome.suggestions.length > 0
      ? { suggestions: outcome.suggestions }
      : {}),
  };
}

/**
 * One streamed turn: the answer's text goes out as `delta` events while the pipeline runs; resolves
 * to the outcome (counted in the metrics) once every delta is written, or undefined when the client
 * went away.
 */
export async function streamTurn(
  deps: RouteDeps,
  input: ChatInput,
  stream: { writeSSE(message: { event: string; data: string }): Promise<void> },
  signal: AbortSignal,
  timeout: AbortSignal,
): Promise<ChatOutcome | undefined> {
  const pending: Promise<void>[] = [];
  const outcome = await withTimeout(
    deps.chat.run(input, {
      signal,
      onDelta: (delta) => {
        pending.push(stream.writeSSE({ event: "delta", data: JSON.stringify({ delta }) }));
      },
    }),
    timeout,
    deps.config.requestTimeoutMs,
  );
  await Promise.all(pending);
  if (signal.aborted) return undefined;
  deps.metrics.observeAnswer(outcome);
  return outcome;
}

/** What stops an answer's work and what it is timed against. */
export interface RequestSignals {
  /** Stops the work: the time limit, the shutdown cut-off or the client gone. */
  signal: AbortSignal;
  /** What the answer is timed against: the time limit or the shutdown cut-off. */
  deadline: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
}

/**
 * The signals of one answer: `deadline` fires at the request timeout or the shutdown cut-off,
 * `signal` with it or when the client goes away (any of `clients`). One timer and plain listeners
 * per request, cleared by `dispose` once the answer is done (a per-request `AbortSignal.timeout`
 * and `AbortSignal.any` cost more, and `any` keeps its sources referenced until they fire).
 */
export function requestSignals(
  limitMs: number,
  clients: (AbortSignal | undefined)[],
  cutOff: AbortSignal = NEVER_CUT_OFF,
): RequestSignals {
  const deadline = new AbortController();
  const work = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort(new DOMException("The request timed out.", "TimeoutError"));
  }, limitMs);
  timer.unref();
  const onCutOff = () => deadline.abort(cutOff.reason);
  const onClient = (event: Event) => work.abort((event.target as AbortSignal).reason);
  deadline.signal.addEventListener("abort", () => work.abort(deadline.signal.reason), {
    once: true,
  });
  if (cutOff.aborted) onCutOff();
  else cutOff.addEventListener("abort", onCutOff, { once: true });
  for (const client of clients) {
    if (client?.aborted) work.abort(client.reason);
    else client?.addEventListener("abort", onClient, { once: true });
  }
  return {
    signal: work.signal,
    deadline: deadline.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      cutOff.removeEventListener("abort", onCutOff);
      for (const client of clients) client?.removeEventListener("abort", onClient);
    },
  };
}

/**
 * The signals of one streamed answer, on every route that streams: `signal` stops the work (the
 * client gone, the request timeout, the shutdown timeout), `deadline` is what `streamTurn` times;
 * `failure` names what ended the answer, the shutdown or the timeout before the error they caused;
 * `dispose` once the stream has ended.
 */
export function streamSignals(
  deps: RouteDeps,
  context: Context<AppEnv>,
): Omit<RequestSignals, "timedOut"> & {
  abort: AbortController;
  cutOff: AbortSignal;
  failure: (error: unknown) => ErrorContext;
} {
  const abort = new AbortController();
  const cutOff = deps.shutdownCutOff ?? NEVER_CUT_OFF;
  const signals = requestSignals(
    deps.config.requestTimeoutMs,
    [abort.signal, context.req.raw.signal],
    cutOff,
  );
  return {
    abort,
    cutOff,
    signal: signals.signal,
    deadline: signals.deadline,
    dispose: signals.dispose,
    failure: (error: unknown): ErrorContext =>
      classifyError(
        cutOff.aborted ? stoppingError() : signals.timedOut() ? createError("TIMEOUT") : error,
      ),
  };
}

/**
 * The work's result, or TIMEOUT once the signal fires (the work is told through its own signal)
 * or `limitMs` has passed when the work ends: work that holds the thread (an answer quoted from a
 * large book) keeps the timer from firing until it ends, so the clock is read then too.
 */
export async function withTimeout<T>(
  work: Promise<T>,
  timeout: AbortSignal,
  limitMs: number,
): Promise<T> {
  if (timeout.aborted) throw createError("TIMEOUT");
  const started = performance.now();
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(createError("TIMEOUT"));
    timeout.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const result = await Promise.race([work, timedOut]);
    if (timeout.aborted || performance.now() - started >= limitMs) throw createError("TIMEOUT");
    return result;
  } finally {
    if (onAbort) timeout.removeEventListener("abort", onAbort);
  }
}

/** Milliseconds to two decimals. */
export function roundMs(value: number): number {
  return round(value, 2);
}
