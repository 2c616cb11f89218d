import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import type { Logger } from "pino";
import { classifyError } from "../../pipeline/error-classification.ts";
import type { AppEnv } from "../env.ts";
import type { createSite } from "../site.ts";
import type { ErrorBody } from "../wire.ts";

/**
 * The one place failures become responses: every error body is
 * `{error_code, message, request_id, details?}`, with X-Request-Id (and Retry-After when the error
 * carries a hint). Unknown errors are logged and answered as INTERNAL_ERROR.
 */

/** Retry hint of a 503 whose cause gave none: long enough for a restart or a reconnection. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export function errorBody(
  code: string,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
): ErrorBody {
  return { error_code: code, message, request_id: requestId, ...(details ? { details } : {}) };
}

/** The request's id; a new one when the failure came before the id middleware ran. */
function requestIdOf(context: Context<AppEnv>, newId: () => string): string {
  const requestId = context.get("requestId") ?? newId();
  context.header("X-Request-Id", requestId);
  return requestId;
}

export function handleErrors(logger: Logger, newId: () => string): ErrorHandler<AppEnv> {
  return (error, context) => {
    const requestId = requestIdOf(context, newId);
    const classified = classifyError(error, { clientGone: context.req.raw.signal.aborted });
    if (classified.status >= 500) {
      logger.error({ err: error, requestId, errorType: classified.errorType }, "request failed");
    } else if (classified.errorCode === "CLIENT_CLOSED_REQUEST") {
      logger.debug({ requestId, code: classified.errorCode }, "client disconnected");
    } else {
      logger.debug({ requestId, code: classified.errorCode }, classified.userSafeMessage);
    }
    // Every 503 says when to come back: the error's own hint, or a short default.
    const retryAfter =
      classified.retryAfterSeconds ??
      (classified.status === 503 ? SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
    if (retryAfter) context.header("Retry-After", String(retryAfter));
    return context.json(
      errorBody(classified.errorCode, classified.userSafeMessage, requestId, classified.details),
      classified.status as 400,
    );
  };
}

/** 404 for unknown paths, except a GET that names a page of the demo book (or its `.md`). */
export function notFound(
  site: ReturnType<typeof createSite> | undefined,
  newId: () => string,
): NotFoundHandler<AppEnv> {
  return async (context) => {
    if (site && context.req.method === "GET") {
      const page = (await site.markdown(context)) ?? (await site.page(context));
      if (page) return page;
    }
    const requestId = requestIdOf(context, newId);
    return context.json(
      errorBody("NOT_FOUND", `No endpoint ${context.req.method} ${context.req.path}.`, requestId),
      404,
    );
  };
}

/** A known path asked with another method: 405 with the methods that are allowed. */
export function methodNotAllowed(allow: string) {
  return (context: Context<AppEnv>) => {
    if (context.req.method === "OPTIONS") {
      context.header("Allow", `${allow}, OPTIONS`);
      return context.body(null, 204);
    }
    context.header("Allow", allow);
    return context.json(
      errorBody(
        "METHOD_NOT_ALLOWED",
        `${context.req.method} is not allowed on ${context.req.path}; use ${allow}.`,
        context.get("requestId"),
      ),
      405,
    );
  };
}
