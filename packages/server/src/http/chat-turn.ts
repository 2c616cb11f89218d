import { createError } from "@lectern/engine/errors";
import { responseMetadata } from "@lectern/engine/pipeline/response-metadata";
import type { ChatInput, ChatOutcome } from "@lectern/engine/pipeline/types";
import { round } from "@lectern/engine/util/numbers";
import type { Context } from "hono";
import { classifyError, type ErrorContext } from "../pipeline/error-classification.ts";
import { type ClientLink, clientOf, signalLink } from "./client-link.ts";
import type { RouteDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { NEVER_CUT_OFF, onCutOff, stoppingError } from "./middleware/shutdown.ts";
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
  signals: Pick<RequestSignals, "signal" | "within">,
): Promise<ChatOutcome | undefined> {
  const pending: Promise<void>[] = [];
  const { signal } = signals;
  const outcome = await signals.within(
    deps.chat.run(input, {
      signal,
      onDelta: (delta) => {
        pending.push(stream.writeSSE({ event: "delta", data: JSON.stringify({ delta }) }));
      },
    }),
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
  /** Whether the answer's time is up: the time limit passed or the shutdown cut it off. */
  deadlinePassed(): boolean;
  /** Whether the time limit passed (the shutdown's cut-off is not a timeout). */
  timedOut(): boolean;
  /**
   * The work's result, or TIMEOUT once the time is up (the work is told through `signal`) or the
   * time limit has passed when the work ends: work that holds the thread (an answer quoted from a
   * large book) keeps the timer from firing until it ends, so the clock is read then too.
   */
  within<T>(work: Promise<T>): Promise<T>;
  /** Clears the timer and the listeners once the answer is done. */
  dispose(): void;
}

/**
 * The signals of one answer: `signal` aborts at the request timeout, at the shutdown cut-off or
 * when the client goes away (any of `clients`); a flag tells the first two from the last. One
 * controller, one timer and one listener a client per request (a controller for the deadline and
 * another for the work, each with listeners, cost more than the pipeline's cheapest answers).
 */
export function requestSignals(
  limitMs: number,
  clients: ClientLink[],
  cutOff: AbortSignal = NEVER_CUT_OFF,
): RequestSignals {
  const work = new AbortController();
  const started = performance.now();
  let passed: "time" | "cut-off" | undefined;
  /** Rejects the answer `within` waits for, once the time is up. */
  let onDeadline: (() => void) | undefined;
  const pass = (why: "time" | "cut-off", reason: unknown) => {
    if (passed) return;
    passed = why;
    work.abort(reason);
    onDeadline?.();
  };
  const timer = setTimeout(
    () => pass("time", new DOMException("The request timed out.", "TimeoutError")),
    limitMs,
  );
  timer.unref();
  const stopListening = onCutOff(cutOff, () => pass("cut-off", cutOff.reason));
  const onClient = (reason: unknown) => work.abort(reason);
  const unwatch = clients.map((client) => client.watch(onClient));
  return {
    signal: work.signal,
    deadlinePassed: () => passed !== undefined,
    timedOut: () => passed === "time",
    within: <T>(answer: Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        const timeout = () => reject(createError("TIMEOUT"));
        if (passed) return timeout();
        onDeadline = timeout;
        answer.then(
          (result) => {
            onDeadline = undefined;
            if (passed || performance.now() - started >= limitMs) timeout();
            else resolve(result);
          },
          (error: unknown) => {
            onDeadline = undefined;
            reject(error);
          },
        );
      }),
    dispose: () => {
      clearTimeout(timer);
      stopListening();
      for (const stop of unwatch) stop();
    },
  };
}

/**
 * The signals of one streamed answer, on every route that streams: `signal` stops the work (the
 * client gone, the request timeout, the shutdown timeout), `within` times `streamTurn`'s work;
 * `failure` names what ended the answer, the shutdown or the timeout before the error they caused;
 * `dispose` once the stream has ended.
 */
export function streamSignals(
  deps: RouteDeps,
  context: Context<AppEnv>,
): Omit<RequestSignals, "timedOut" | "deadlinePassed"> & {
  abort: AbortController;
  cutOff: AbortSignal;
  failure: (error: unknown) => ErrorContext;
} {
  const abort = new AbortController();
  const cutOff = deps.shutdownCutOff ?? NEVER_CUT_OFF;
  const signals = requestSignals(
    deps.config.requestTimeoutMs,
    [signalLink(abort.signal), clientOf(context)],
    cutOff,
  );
  return {
    abort,
    cutOff,
    signal: signals.signal,
    within: signals.within,
    dispose: signals.dispose,
    failure: (error: unknown): ErrorContext =>
      classifyError(
        cutOff.aborted ? stoppingError() : signals.timedOut() ? createError("TIMEOUT") : error,
      ),
  };
}

/** Milliseconds to two decimals. */
export function roundMs(value: number): number {
  return round(value, 2);
}
