import { cutText } from "@lectern/engine/util/cut-text";
import pino, { type DestinationStream, type Logger } from "pino";

/**
 * Logging that keeps readers' words and secrets out of the log. Errors are logged field by field
 * from a list of what is safe: the AI SDK's call errors carry the whole request (system prompt,
 * the reader's question, the conversation) and the response body; database errors carry the query
 * parameters (`params`) and the rejected values in `where`, `detail` and the message; and a fetch
 * refused because the base URL holds a key repeats that URL. None of that is needed to diagnose.
 */

/** Error fields that describe what failed without carrying data. */
const SAFE_FIELDS = [
  "code",
  "errno",
  "syscall",
  "status",
  "statusCode",
  "isRetryable",
  "errorType",
  "severity",
  "routine",
  "schema",
  "table",
  "column",
  "constraint",
  "dataType",
  "reason",
] as const;

/** user:password@ in URLs, Bearer tokens and key-like words. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/\b([a-z][\w+.-]*:\/\/)[^\s/@]+@/gi, "$1***@")
    .replace(/\b(Bearer|Basic)\s+[\w.~+/=-]+/gi, "$1 ***")
    .replace(/\b(sk|pk|rk|api|key)[-_][\w-]{12,}/gi, "***");
}

/** A database error: PostgreSQL's fields (SQLSTATE code and severity). */
function isDatabaseError(error: Error & Record<string, unknown>): boolean {
  return typeof error.severity === "string" && /^[0-9A-Z]{5}$/.test(String(error.code ?? ""));
}

export function safeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: cutText(scrubSecrets(String(error)), 200) };
  const fields = error as Error & Record<string, unknown>;
  const database = isDatabaseError(fields);
  // A database message quotes the value it rejected ('invalid input syntax for type uuid: "…"').
  const message = database
    ? error.message.replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'")
    : error.message;
  const safe: Record<string, unknown> = {
    type: error.name,
    message: scrubSecrets(message),
  };
  for (const field of SAFE_FIELDS) {
    const value = fields[field];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      safe[field] = typeof value === "string" ? scrubSecrets(value) : value;
  }
  if (typeof fields.url === "string") safe.url = scrubSecrets(fields.url);
  if (error.stack) {
    // The stack's first line repeats the message; the frames carry no data.
    const frames = error.stack.split("\n").filter((line) => /^\s+at /.test(line));
    safe.stack = [`${error.name}: ${safe.message}`, ...frames].join("\n");
  }
  if (depth < 3) {
    if (error.cause !== undefined) safe.cause = safeError(error.cause, depth + 1);
    if (fields.lastError !== undefined) safe.lastError = safeError(fields.lastError, depth + 1);
  }
  return safe;
}

/** A JSON-lines logger (stderr by default) whose `err` fields go through `safeError`. */
export function createSafeLogger(
  level: string,
  destination: DestinationStream = pino.destination(2),
): Logger {
  return pino({ level, base: null, serializers: { err: safeError } }, destination);
}
