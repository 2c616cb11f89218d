import type { ChatInput } from "@lectern/engine/pipeline/types";
import type { Context, Handler } from "hono";
import type { Logger } from "pino";
import { classifyError, type ErrorContext } from "../../pipeline/error-classification.ts";
import { requestSignals, toChatResponse } from "../chat-turn.ts";
import { clientOf } from "../client-link.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from "../middleware/errors.ts";
import type { AnsweredTurn, SeedError } from "./shape.ts";

/**
 * What every seed's translator shares: one chat turn through the same chat service as POST /chat
 * (admission, the session's recent exchanges, the pipeline, the exchange recorded), answered in
 * Lectern's own ChatResponse, which each translator then reshapes; and errors caught on the way
 * out so each seed's routes answer with that seed's error body.
 */

/** Admits the chat (rate limits, in-flight cap), answers it and records the exchange. */
export async function answerTurn(
  context: Context<AppEnv>,
  deps: RouteDeps,
  request: ChatInput,
  started: number,
): Promise<AnsweredTurn> {
  const release = await deps.admission(context, request.sessionId);
  const { signal, within, dispose } = requestSignals(deps.config.requestTimeoutMs, [
    clientOf(context),
  ]);
  try {
    const { input, outcome } = await within(deps.chat.ask(request, { signal }));
    deps.metrics.observeAnswer(outcome);
    const response = toChatResponse(deps, input, outcome, started);
    await deps.chat.saveExchange(input, response);
    deps.logger.info({ requestId: input.requestId, mode: outcome.mode }, "chat (compat)");
    return { input, response };
  } finally {
    dispose();
    release();
  }
}

/** What a seed's routes answer for a failure, from Lectern's classification of it. */
export type ToSeedError = (error: ErrorContext, retryAfter: number | undefined) => SeedError;

/**
 * Runs a seed's handler; any failure is answered with the seed's error body (`seedErrorResponse`).
 */
export function seedHandler(
  logger: Logger,
  toSeedError: ToSeedError,
  handler: Handler<AppEnv>,
): Handler<AppEnv> {
  return async (context, next) => {
    try {
      return await handler(context, next);
    } catch (error) {
      return seedErrorResponse(context, logger, error, toSeedError);
    }
  };
}

/**
 * A failure classified once (as on Lectern's own routes), logged, and answered with the seed's
 * error body, with Retry-After when the error carries a hint (and on every 503).
 */
export function seedErrorResponse(
  context: Context<AppEnv>,
  logger: Logger,
  error: unknown,
  toSeedError: ToSeedError,
): Response {
  const classified = classifyError(error);
  const requestId = context.get("requestId");
  if (classified.status >= 500) logger.error({ err: error, requestId }, "request failed");
  const retryAfter =
    retryAfterOf(error) ??
    (classified.status === 503 ? SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  const { status, body } = toSeedError(classified, retryAfter);
  if (retryAfter) context.header("Retry-After", String(retryAfter));
  return context.json(body as object, status as 400);
}

function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  return (error as { retryAfterSeconds?: number }).retryAfterSeconds;
}
