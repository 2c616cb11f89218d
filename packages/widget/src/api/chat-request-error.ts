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

export const NETWORK_ERROR_MESSAGE =
  "The assistant could not be reached. Check your connection and try again.";
export const INVALID_RESPONSE_MESSAGE = "The answer could not be read. Please try again.";

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

function messageForStatus(status: number): string {
  if (status === 429) return "Too many requests. Please wait and try again.";
  if (status === 504) return "The answer took too long. Please try again.";
  if (status >= 500) return "The assistant is unavailable right now. Please try again later.";
  return "The question could not be sent. Please try again.";
}
