/**
 * Text as PostgreSQL can store it: U+0000 is dropped (no text or JSONB value may hold it) and a
 * lone UTF-16 surrogate, which has no UTF-8 form, becomes U+FFFD. Neither carries meaning in a
 * question, a selection, a URL or a comment.
 */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd");
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A parsed JSON value with every string in it, keys included, made storable. */
export function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)]),
    );
  }
  return value;
}

/**
 * JSON text parsed with every string in it made storable (`storableJson`), without walking the
 * value when the text can hold nothing to change.
 */
export function parseStorableJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return UNSTORABLE_SOURCE.test(text) ? storableJson(value) : value;
}

/**
 * A surrogate in JSON text, as itself or escaped, or an escaped U+0000 (JSON holds no raw one); a
 * pair is taken too (and then kept).
 */
const UNSTORABLE_SOURCE = /[\ud800-\udfff]|\\u(?:0000|d[89a-f])/i;

/**
 * `JSON.stringify` for a JSON column: every string value made storable on the way. A lone
 * surrogate would otherwise be written as an escape ("\\ud83d") that PostgreSQL refuses
 * (22P02, unsupported Unicode escape sequence). Keys are the program's own and left as they are.
 */
export function storableJsonText(value: unknown): string {
  // JSON.stringify writes U+0000 as \u0000 and a lone surrogate as \ud800–\udfff, and a
  // surrogate pair as itself: without such an escape in its output (or a backslash in the text
  // that looks like one, which only takes the slow way), nothing needs making storable. The
  // replacer function makes JSON.stringify two to three times slower on an answer's sources.
  const plain = JSON.stringify(value);
  if (plain === undefined || !UNSTORABLE_ESCAPE.test(plain)) return plain;
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "string" ? storableText(item) : item,
  );
}

/** The escapes JSON.stringify writes for U+0000 and for a surrogate (paired ones it writes as is). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
