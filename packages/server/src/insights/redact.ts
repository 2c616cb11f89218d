/**
 * What a question loses before it is logged for authors: anything that identifies a reader or
 * opens a door. Readers paste error output, config files and support signatures into questions;
 * the log keeps the question's words, not their email address, phone number, card number or keys.
 * Each is replaced by a marker in brackets, so the question still reads ("my key [secret] fails").
 */

const MARKERS = {
  secret: "[secret]",
  email: "[email]",
  card: "[card number]",
  phone: "[phone]",
} as const;

/** `api_key=…`, `token: …`, `password "…"`, `Authorization: Bearer …`: the value goes. */
const NAMED_SECRET =
  /\b((?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|token|access[_-]?token|auth[_-]?token|password|passwd|pwd|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',;]{4,}/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
/** Keys whose shape announces them: OpenAI/Stripe (sk-, sk_live_, pk_live_, rk_…), GitHub, Slack, AWS, Google, JWTs. */
const KNOWN_KEYS = [
  /\b(?:sk|pk|rk)[-_](?:live_|test_|proj-|ant-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** 13–19 digits, optionally in groups separated by spaces or dashes; kept only if Luhn-valid. */
const CARD = /(?<![\w.])\d(?:[ -]?\d){12,18}(?![\w.])/g;
/** A phone number: an optional +country code, then digit groups with spaces, dots, dashes or parentheses. */
const PHONE =
  /(?<![\w.+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,5}(?![\w])|(?<![\w.+])\+\d{7,15}(?!\w)|(?<![\w.])\d{10,15}(?![\w.])/g;
/**
 * A long run of letters and digits mixed, with no spaces: a key of some other service. Words,
 * identifiers and paths (letters only, or separated parts) are left alone.
 */
const OPAQUE_TOKEN = /(?<![\w/.-])[A-Za-z0-9+/=_-]{28,}(?![\w/.-])/g;

export function redact(text: string): string {
  let result = text.replace(NAMED_SECRET, (_match, name: string) => `${name}${MARKERS.secret}`);
  result = result.replace(BEARER, (_match, scheme: string) => `${scheme} ${MARKERS.secret}`);
  for (const pattern of KNOWN_KEYS) result = result.replace(pattern, MARKERS.secret);
  result = result.replace(EMAIL, MARKERS.email);
  result = result.replace(CARD, (match) => (luhnValid(match) ? MARKERS.card : match));
  result = result.replace(PHONE, (match) => (isPhoneLike(match) ? MARKERS.phone : match));
  result = result.replace(OPAQUE_TOKEN, (match) => (looksRandom(match) ? MARKERS.secret : match));
  return result;
}

function luhnValid(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let total = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    total += digit;
  }
  return total % 10 === 0;
}

/**
 * Seven to fifteen digits (E.164), and not a version, a date or an address of the book's kind:
 * "2.0.1", "192.168.1.10" and "2024-05-01" are dotted or dashed numbers readers ask about.
 */
function isPhoneLike(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 7 || digits.length > 15) return false;
  if (/^\d+(?:\.\d+)+$/.test(candidate)) return false; // versions, IP addresses
  if (/^\d{4}-\d{2}-\d{2}$/.test(candidate)) return false; // ISO dates
  return true;
}

function looksRandom(token: string): boolean {
  const hasDigit = /\d/.test(token);
  const hasLetter = /[A-Za-z]/.test(token);
  // snake_case and kebab-case names are words joined, not keys.
  const parts = token.split(/[_-]/).filter(Boolean);
  if (parts.length > 1 && parts.every((part) => /^[a-z]+\d*$/i.test(part) && part.length < 16))
    return false;
  return hasDigit && hasLetter;
}
