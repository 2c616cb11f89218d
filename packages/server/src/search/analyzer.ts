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
export const ANALYZER_VERSION = 1;

const COMPOUND = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[._\-/:#][\p{L}\p{N}]+)*/gu;
const SEPARATORS = /[._\-/:#]+/;
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const LETTERS_THEN_DIGITS = /^(\p{L}{2,})\p{N}+$/u;

/** Splits text into lower-cased words before stopwords and stemming, identifiers expanded. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(COMPOUND)) {
    const compound = match[0].replace(/['’]/g, "'");
    const parts = compound.split(SEPARATORS).flatMap((part) => part.split(CAMEL_BOUNDARY));
    for (const part of parts) {
      const lower = part.toLowerCase();
      if (lower) tokens.push(lower);
      // "ros2" also answers to "ROS 2" and "ros".
      const letters = LETTERS_THEN_DIGITS.exec(lower)?.[1];
      if (letters) tokens.push(letters);
    }
    if (parts.length > 1) tokens.push(compound.toLowerCase());
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
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term) terms.push(term);
  }
  return terms;
}
