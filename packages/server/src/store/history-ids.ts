/** Ids and limits as every history backend reads them (HistoryStore in history-store.ts). */
import { createError } from "@lectern/engine/errors";

/** Session and request ids: UUIDs in the usual hyphenated form, in any letter case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The id in lower case, or undefined when it is malformed. */
export function lowerUuid(value: string): string | undefined {
  return isUuid(value) ? value.toLowerCase() : undefined;
}

/** The id in lower case; a malformed one is refused with VALIDATION_ERROR naming `what`. */
export function requireUuid(value: string, what: string): string {
  const id = lowerUuid(value);
  if (id === undefined) throw createError("VALIDATION_ERROR", `The ${what} must be a UUID.`);
  return id;
}

/** A whole number ≥ 0; anything else (fractions, NaN, negative) is rounded into range. */
export function clampLimit(limit: number): number {
  if (Number.isNaN(limit) || limit <= 0) return 0;
  return Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER);
}
