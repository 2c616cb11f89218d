import { setMaxListeners } from "node:events";
import { createError, type LecternError } from "@lectern/engine/errors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { errorBody, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from "./errors.ts";

/**
 * While the server stops, the probes still answer (/ready says "shutting down") and every other
 * request that arrives is refused with 503 SERVICE_UNAVAILABLE and Retry-After, so a load balancer
 * or the widget asks another instance, or this one again once it is back.
 */

/** Paths answered as usual during shutdown: the probes that report it. */
const ANSWERED_WHILE_STOPPING = new Set(["/health", "/ready"]);

/** The error of a request refused, or of an answer cut off, because the server is stopping. */
export function stoppingError(): LecternError {
  return createError(
    "SERVICE_UNAVAILABLE",
    "The server is restarting. Please try again in a few seconds.",
  );
}

export function refuseWhileStopping(isShuttingDown: () => boolean): MiddlewareHandler<AppEnv> {
  return async (context, next) => {
    if (!isShuttingDown() || ANSWERED_WHILE_STOPPING.has(context.req.path)) return next();
    // Answered here rather than thrown: a refusal while stopping is expected, not a failure to log.
    const error = stoppingError();
    context.header("Retry-After", String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    return context.json(errorBody(error.code, error.message, context.get("requestId")), 503);
  };
}

/**
 * The server's cut-off: aborted at the shutdown timeout. Every request in flight is told through
 * `onCutOff`, which keeps them in a set behind one listener, so the signal has no listener limit
 * to reach (Node warns of a leak past ten) and a request costs no listener of its own.
 */
export function cutOffController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Never aborted: the cut-off of an app that is never shut down (tests, the MCP server). */
export const NEVER_CUT_OFF: AbortSignal = cutOffController().signal;

/** The requests in flight told of each cut-off, behind the one listener each cut-off has. */
const toldOfCutOff = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once `cutOff` aborts (at once when it has); returns what stops listening.
 */
export function onCutOff(cutOff: AbortSignal, listener: () => void): () => void {
  if (cutOff === NEVER_CUT_OFF) return doNothing;
  if (cutOff.aborted) {
    listener();
    return doNothing;
  }
  const told = toldOfCutOff.get(cutOff) ?? tellOnAbort(cutOff);
  told.add(listener);
  return () => told.delete(listener);
}

/** The set of listeners `cutOff`'s one listener calls when it aborts. */
function tellOnAbort(cutOff: AbortSignal): Set<() => void> {
  const told = new Set<() => void>();
  toldOfCutOff.set(cutOff, told);
  cutOff.addEventListener(
    "abort",
    () => {
      for (const listener of [...told]) listener();
      told.clear();
    },
    { once: true },
  );
  return told;
}

function doNothing(): void {}
