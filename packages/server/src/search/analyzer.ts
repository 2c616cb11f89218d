import { stemmer } from "stemmer";
import { STOPWORDS } from "./stopwords.ts";

/**
 * The text analyzer shared by indexing and querying. Words are lower-cased, stopwords dropped and
 * the rest Porter-stemmed. Code identifiers are split into their words (`onBrokenLinks` → on broken
 * links, `ros2_control` → ros2 control, `rclpy.spin` → rclpy spin) and also kept whole, so both an
 * exact identifier and a description in words find the passage.
 *
 * Bump ANALYZER_VERSION whenever the output changes: persisted indexes built with another version
 * are rebuilt.
 */
export const ANALYZER_VERSION = 2;

const COMPOUND = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[._\-/:#][\p{L}\p{N}]+)*/gu;
const SEPARATORS = /[._\-/:#]+/;
// "HTTPServer" → HTTP Server, but a plural acronym ("URLs", "APIs") stays one word.
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}(?!s(?:\P{L}|$))\p{Ll})/u;
const IDENTIFIER_SEPARATOR = /[._/:#]|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
const LETTERS_THEN_DIGITS = /^(\p{L}{2,})\p{N}+$/u;

/** Splits text into lower-cased words before stopwords and stemming, identifiers expanded. */
export function tokenize(text: string): string[] {
  return tokenizeDetailed(text).map((token) => token.text);
}

interface Token {
  text: string;
  /** A whole identifier kept beside its parts (`ros2_control`), not a word of its own. */
  compound: boolean;
}

function tokenizeDetailed(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(COMPOUND)) {
    const compound = match[0].replace(/['’]/g, "'");
    const parts = compound.split(SEPARATORS).flatMap((part) => part.split(CAMEL_BOUNDARY));
    for (const part of parts) {
      const lower = part.toLowerCase();
      if (lower) tokens.push({ text: lower, compound: false });
      // "ros2" also answers to "ROS 2" and "ros".
      const letters = LETTERS_THEN_DIGITS.exec(lower)?.[1];
      if (letters) tokens.push({ text: letters, compound: true });
    }
    // Identifiers are also indexed whole; hyphenated prose ("two-legged") is just its words.
    if (parts.length > 1 && IDENTIFIER_SEPARATOR.test(compound)) {
      tokens.push({ text: compound.toLowerCase(), compound: true });
    }
  }
  return tokens;
}

const stemCache = new Map<string, string>();

function normalizeTerm(token: string): string | undefined {
  const word = token.endsWith("'s") ? token.slice(0, -2) : token;
  if (STOPWORDS.has(word) || STOPWORDS.has(token)) return undefined;
  if (word.length > 40) return undefined;
  // Identifiers, numbers and very short words are matched exactly.
  if (/[^a-z]/.test(word) || word.length <= 3) return word;
  let stem = stemCache.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    if (stemCache.size < 200_000) stemCache.set(word, stem);
  }
  return stem;
}

/** Index/query terms for a text, in order, duplicates kept (term frequency matters). */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenizeDetailed(text)) {
    const term = normalizeTerm(token.text);
    if (term) terms.push(term);
  }
  return terms;
}

/**
 * A query's distinct terms, split into the words a reader used and the extra whole-identifier
 * forms. Only the words weigh in on how much of the question a passage covers.
 */
export function analyzeQuery(text: string): { terms: string[]; words: string[] } {
  const terms = new Set<string>();
  const words = new Set<string>();
  for (const token of tokenizeDetailed(text)) {
    const term = normalizeTerm(token.text);
    if (!term) continue;
    terms.add(term);
    if (!token.compound) words.add(term);
  }
  return { terms: [...terms], words: [...words] };
}
