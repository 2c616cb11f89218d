import { timingSafeEqual } from "node:crypto";

/** Compares secrets in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The bearer token of an Authorization header, if any. */
export function bearerToken(header: string | undefined): string | undefined {
  return header?.replace(/^Bearer\s+/i, "") || undefined;
}
