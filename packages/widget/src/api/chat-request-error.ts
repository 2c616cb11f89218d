import { DEFAULT_STRINGS, type WidgetStrings } from "../strings.ts";
import { readErrorBody } from "./wire-checks.ts";

/** A failed request, carrying the server's user-safe message (or one of ours) and its code. */
export class ChatRequestError extends Error {
  readonly code: string;
  /** HTTP status, when the server answered with one. */
  readonly status: number | null;
  /** Seconds to wait before trying again (429), from Retry-After or the error details. */
  readonly retryAfterSeconds: number | null;

  constructor(
    code: string,
    message: string,
    options: { status?: number | null; retryAfterSeconds?: number | null } = {},
  ) {
    super(message);
    this.name = "ChatRequestError";
    this.code = code;
    this.status = options.status ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

export const NETWORK_ERROR_MESSAGE = DEFAULT_STRINGS.networkError;
export const INVALID_RESPONSE_MESSAGE = DEFAULT_STRINGS.invalidResponse;

/** Builds the error of a non-2xx response from its JSON error body and headers. */
export async function errorFromResponse(response: Response): Promise<ChatRequestError> {
  const body = readErrorBody(await response.json().catch(() => null));
  const details = body?.details;
  const retryAfterSeconds =
    parseRetryAfter(response.headers.get("Retry-After")) ??
    (typeof details?.retry_after === "number" ? details.retry_after : null);
  const code = body ? body.error_code : `HTTP_${response.status}`;
  const message = body ? body.message : messageForStatus(response.status);
  return new ChatRequestError(code, message, { status: response.status, retryAfterSeconds });
}

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The widget's own text for a failure, in the host's words: errors the widget noticed itself
 * (network, unreadable answer, an HTTP error without Lectern's body) have a string of their own;
 * the server's errors keep the server's message.
 */
export function failureText(error: ChatRequestError, strings: WidgetStrings): string {
  if (error.code === "NETWORK_ERROR") return strings.networkError;
  if (error.code === "INVALID_RESPONSE") return strings.invalidResponse;
  if (error.code === "INCOMPLETE_ANSWER") return strings.incompleteAnswer;
  if (error.code === `HTTP_${error.status}`) return messageForStatus(error.status ?? 0, strings);
  return error.message;
}

function messageForStatus(status: number, strings: WidgetStrings = DEFAULT_STRINGS): string {
  if (status === 429) return strings.tooManyRequests;
  if (status === 504) return strings.serverTimeout;
  if (status >= 500) return strings.unavailable;
  return strings.notSent;
}
