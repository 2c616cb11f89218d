import { ERROR_CODES, type ErrorCode, isLecternError } from "@lectern/engine/errors";

/**
 * Error classification (the seeds' ErrorRecovery step): sorts any failure into the seeds'
 * ErrorContext types with a message that is safe to show (no stack, path, SQL or secret) and
 * whether retrying can help. The original error is only logged, with the request id.
 */

export type ErrorType = "network" | "database" | "llm" | "validation" | "agent" | "unknown";

export interface ErrorContext {
  errorType: ErrorType;
  errorCode: ErrorCode;
  status: number;
  userSafeMessage: string;
  retryable: boolean;
  details: Record<string, unknown> | undefined;
  /** Seconds to wait before trying again (Retry-After), when known. */
  retryAfterSeconds: number | undefined;
}

/**
 * How long a client should wait when the database cannot be reached: the pool opens a fresh
 * connection on the next request, so a few seconds cover a terminated backend or a quick restart.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// ECONNRESET and EPIPE are not here: they say a socket broke, not which one. The reader's socket
// breaks whenever a tab closes; the PostgreSQL store tags its own as DATABASE_UNAVAILABLE.
const DATABASE_ERROR_CODES = new Set(["ECONNREFUSED", "ETIMEDOUT", "57P01", "57P02", "57P03"]);

/**
 * SQLSTATE classes of a database that cannot serve now but will again without anyone changing the
 * request: 08 connection exception; 53 insufficient resources (53100 disk full, 53200 out of
 * memory, 53300 too many connections, 53400 a configuration limit), which passes once space,
 * memory or connections are freed.
 */
const DATABASE_ERROR_CLASSES = ["08", "53"];

/**
 * SQLSTATEs of a value the database cannot read as its column's type or encoding:
 * invalid_text_representation (a JSON escape of half a surrogate pair, a malformed uuid),
 * character_not_in_repertoire, untranslatable_character.
 */
const INVALID_TEXT_CODES = new Set(["22P02", "22021", "22P05"]);

/** Codes of a connection the other side closed or reset. */
const DISCONNECT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

export interface FailureContext {
  /** The reader's request was aborted: the client closed the connection or went away. */
  clientGone?: boolean;
}

/**
 * Classifies a failure. Once the reader has gone away, whatever broke because of it (a socket
 * reset, a cancelled call) is CLIENT_CLOSED_REQUEST: no one reads the answer and the server did
 * nothing wrong. Failures the code already named (DATABASE_UNAVAILABLE from the store…) keep
 * their code.
 */
export function classifyError(error: unknown, context: FailureContext = {}): ErrorContext {
  if (context.clientGone && !isLecternError(error)) {
    return build("CLIENT_CLOSED_REQUEST", "network", false);
  }
  if (isLecternError(error)) {
    const errorType = typeOf(error.code);
    return {
      errorType,
      errorCode: error.code,
      status: error.status,
      userSafeMessage: error.message,
      retryable:
        errorType === "network" ||
        errorType === "database" ||
        errorType === "llm" ||
        error.code === "RATE_LIMITED",
      details: error.details,
      retryAfterSeconds:
        error.retryAfterSeconds ??
        (error.code === "DATABASE_UNAVAILABLE" ? DATABASE_RETRY_AFTER_SECONDS : undefined),
    };
  }
  if (isDatabaseFailure(error)) {
    return build("DATABASE_UNAVAILABLE", "database", true);
  }
  if (isInvalidText(error)) return build("TEXT_NOT_STORABLE", "validation", false);
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return build("TIMEOUT", "network", true);
  }
  // A connection reset whose owner did not say it was the database's.
  if (isDisconnect(error)) return build("SERVICE_UNAVAILABLE", "network", true);
  return build("INTERNAL_ERROR", "unknown", false);
}

function build(code: ErrorCode, errorType: ErrorType, retryable: boolean): ErrorContext {
  const entry = ERROR_CODES[code];
  return {
    errorType,
    errorCode: code,
    status: entry.status,
    userSafeMessage: entry.message,
    retryable,
    details: undefined,
    retryAfterSeconds: code === "DATABASE_UNAVAILABLE" ? DATABASE_RETRY_AFTER_SECONDS : undefined,
  };
}

function typeOf(code: ErrorCode): ErrorType {
  switch (code) {
    case "DATABASE_UNAVAILABLE":
    case "DATA_DIR_CORRUPT":
    case "QDRANT_UNAVAILABLE":
      return "database";
    case "LLM_UNAVAILABLE":
    case "GEMINI_UNAVAILABLE":
      return "llm";
    case "TIMEOUT":
    case "SERVICE_UNAVAILABLE":
      return "network";
    case "INTERNAL_ERROR":
      return "unknown";
    default:
      return code.endsWith("_ERROR") || ERROR_CODES[code].status < 500 ? "validation" : "agent";
  }
}

/** Connection-level failures of PostgreSQL or a closed PGlite, and a database out of resources. */
export function isDatabaseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    (DATABASE_ERROR_CODES.has(code) ||
      (code.length === 5 && DATABASE_ERROR_CLASSES.includes(code.slice(0, 2))))
  )
    return true;
  return /PGlite is closed|Connection terminated|connection (is )?closed|Client has encountered a connection error|terminating connection|timeout exceeded when trying to connect|Cannot use a pool after calling end/i.test(
    error.message,
  );
}

/** A value the database refused to read as text of its column (not a fault of the connection). */
export function isInvalidText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && INVALID_TEXT_CODES.has(code);
}

/** A closed or reset connection (ECONNRESET, EPIPE, ECONNABORTED, a stream closed early). */
export function isDisconnect(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && DISCONNECT_CODES.has(code);
}
