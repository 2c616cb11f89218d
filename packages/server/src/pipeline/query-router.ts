/**
 * QueryRouter: normalises the question, recognises small talk (answered briefly, without
 * retrieval) and flags text that tries to override instructions. Flagged text is never followed:
 * it is searched and answered as an ordinary question about the book.
 */

export interface RoutedQuery {
  route: "question" | "greeting" | "thanks";
  normalized: string;
  injectionFlagged: boolean;
  /** The short reply for greetings and thanks. */
  reply?: string;
}

const GREETING =
  /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|greetings|yo|howdy)( there)?( lectern| bot)?[\s!.,]*$/i;
const THANKS =
  /^(thanks?( you)?( (so|very) much| a lot)?|thx|ty|cheers|much appreciated|(great|perfect|ok|okay),? thanks?( you)?)[\s!.,]*$/i;
const INJECTION_PATTERNS = [
  /\bignore (all |any |the )?(previous|prior|above|earlier) (instructions|prompts?|messages|rules)\b/i,
  /\bdisregard (all |any |the )?(previous|prior|above|your) (instructions|prompts?|rules)\b/i,
  /\b(reveal|show|print|repeat|leak) (me )?(your|the) (system|hidden|initial) (prompt|instructions)\b/i,
  /\byou are now (a|an|in) /i,
  /\b(system prompt|developer mode|jailbreak)\b/i,
  /\bforget (everything|all) (you|above)/i,
];

export const GREETING_REPLY =
  "Hello! Ask me anything about this book, or select a passage on the page and ask about it.";
export const THANKS_REPLY = "You're welcome! Ask another question about the book any time.";

/** Trims, removes control characters and collapses runs of whitespace. */
export function normalizeQuery(text: string): string {
  let cleaned = "";
  for (const character of text) {
    const code = character.charCodeAt(0);
    // Control characters (other than whitespace, which collapses below) become spaces.
    cleaned += code < 32 || code === 127 ? " " : character;
  }
  return cleaned.replace(/\s+/g, " ").trim();
}

export function routeQuery(query: string): RoutedQuery {
  const normalized = normalizeQuery(query);
  const injectionFlagged = INJECTION_PATTERNS.some((pattern) => pattern.test(normalized));
  if (GREETING.test(normalized))
    return { route: "greeting", normalized, injectionFlagged, reply: GREETING_REPLY };
  if (THANKS.test(normalized))
    return { route: "thanks", normalized, injectionFlagged, reply: THANKS_REPLY };
  return { route: "question", normalized, injectionFlagged };
}
