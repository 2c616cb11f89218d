import { timingSafeEqual } from "node:crypto";

/** Compares secrets in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750), if any. Any other form, a
 * bare token included, carries none.
 */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? "")?.[1];
}
