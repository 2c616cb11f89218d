/**
 * QueryRouter: normalises the question, recognises small talk (answered briefly, without
 * retrieval) and flags text that tries to override instructions. Flagged text is never followed:
 * it is searched and answered as an ordinary question about the book.
 */

export type Route = "question" | "greeting" | "thanks" | "overview";

export interface RoutedQuery {
  route: Route;
  normalized: string;
  injectionFlagged: boolean;
  /** The short reply for greetings and thanks. */
  reply?: string;
}

const GREETING =
  /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|greetings|yo|howdy)( there)?( lectern| bot)?[\s!.,]*$/i;
const THANKS_CORE = `(?:thanks?(?: you)?(?: (?:so|very) much| a lot| again)?|thx|ty|cheers|much appreciated|appreciate it)`;
const ACKNOWLEDGEMENT = `(?:(?:that|this|it|you) (?:helped|helps|was (?:very |really |super )?(?:helpful|useful|great|clear))|got it|(?:that |it |this )?makes sense|(?:great|perfect|ok|okay|cool|nice|awesome|understood)(?: answer)?)`;
/** "thanks", "ok, thanks!", "thanks, that helped", "that helped, thank you", "great, got it, thx". */
const THANKS = new RegExp(
  String.raw`^(?:${ACKNOWLEDGEMENT}[\s,.!]+)*${THANKS_CORE}(?:[\s,.!]+${ACKNOWLEDGEMENT})*[\s!.,]*$`,
  "i",
);
const BOOK = `(?:book|site|website|course|guide|documentation|docs|manual|tutorial|tutorials|textbook|primer|handbook|wiki)`;
/** Questions about the book as a whole, answered from its synopsis rather than one passage. */
export const OVERVIEW_PATTERNS = [
  new RegExp(
    `^(?:what|what's|what is|what are) (?:this|the|these) ${BOOK} (?:all |really )?about$`,
    "i",
  ),
  new RegExp(
    `^what (?:does|do|will) (?:this|the|these) ${BOOK} (?:cover|teach|contain|explain|include|talk about)$`,
    "i",
  ),
  new RegExp(
    `^what (?:topics|subjects|parts|chapters) (?:are|does|do|is)(?: covered| in)?(?: (?:this|the) ${BOOK})?(?: cover)?$`,
    "i",
  ),
  new RegExp(
    `^what can i (?:learn|find) (?:here|in (?:this|the) ${BOOK}|from (?:this|the) ${BOOK})$`,
    "i",
  ),
  new RegExp(
    `^(?:give me |can you give me )?(?:an |a short |a quick )?(?:overview|summary|outline)(?: of)?(?: (?:this|the) ${BOOK})?$`,
    "i",
  ),
  new RegExp(`^(?:summarise|summarize|describe) (?:this|the) ${BOOK}$`, "i"),
  new RegExp(
    `^(?:where|how) (?:do|should|can) i (?:start|begin)(?: (?:reading|with (?:this|the) ${BOOK}))?$`,
    "i",
  ),
  /^(?:the )?table of contents$/i,
  // Who the book is for and what it expects a reader to know: its introduction says.
  new RegExp(
    `^what (?:background|background knowledge|knowledge|experience|prerequisites|skills) (?:do|should|will) i (?:need|have)(?: to have)?(?: (?:before|for)(?: starting| reading| beginning| using)? (?:this|the) ${BOOK})?$`,
    "i",
  ),
  new RegExp(
    `^what (?:do|should) i (?:need to )?know before (?:starting|reading|beginning) (?:this|the) ${BOOK}$`,
    "i",
  ),
  new RegExp(
    `^(?:what are the prerequisites|are there (?:any )?prerequisites)(?: (?:for|of) (?:this|the) ${BOOK})?$`,
    "i",
  ),
  new RegExp(`^who is (?:this|the) ${BOOK} (?:for|written for|aimed at|meant for)$`, "i"),
];

/**
 * Text that tries to override instructions, each pattern with the words one of which any match
 * holds (lower case): a question without them is not run through the pattern, which a reader's
 * first question would otherwise compile.
 */
const INJECTION_PATTERNS: [words: string[], pattern: RegExp][] = [
  [
    ["ignore"],
    /\bignore (all |any |the )?(previous|prior|above|earlier) (instructions|prompts?|messages|rules)\b/i,
  ],
  [
    ["disregard"],
    /\bdisregard (all |any |the )?(previous|prior|above|your) (instructions|prompts?|rules)\b/i,
  ],
  [
    ["prompt", "instructions"],
    /\b(reveal|show|print|repeat|leak) (me )?(your|the) (system|hidden|initial) (prompt|instructions)\b/i,
  ],
  [["you are now"], /\byou are now (a|an|in) /i],
  [
    ["system prompt", "developer mode", "jailbreak"],
    /\b(system prompt|developer mode|jailbreak)\b/i,
  ],
  [["forget"], /\bforget (everything|all) (you|above)/i],
];

export const GREETING_REPLY =
  "Hello! Ask me anything about this book, or select a passage on the page and ask about it.";
export const THANKS_REPLY = "You're welcome! Ask another question about the book any time.";

/**
 * Every word of the overview patterns. They are words and single spaces between anchors, so a
 * text with another word matches none of them (query-router.test.ts checks every text they
 * match): most questions skip the patterns, which take milliseconds to compile on first use.
 */
const OVERVIEW_WORDS = new Set(
  OVERVIEW_PATTERNS.flatMap((pattern) => pattern.source.match(/[a-z']+/g) ?? []),
);

/** Whether every word of the text is one of the overview patterns' (in any letter case). */
export function mayBeOverview(text: string): boolean {
  return text
    .toLowerCase()
    .split(" ")
    .every((word) => OVERVIEW_WORDS.has(word));
}

/** Trims, removes control characters and collapses runs of whitespace. */
export function normalizeQuery(text: string): string {
  // Control characters (other than whitespace, which collapses with it) become spaces.
  return text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f]/g;

export function routeQuery(query: string): RoutedQuery {
  const normalized = normalizeQuery(query);
  // Outside ASCII, a case-insensitive pattern (without the u flag) matches only the same character:
  // lower-casing the text keeps every match's words.
  const lower = normalized.toLowerCase();
  const injectionFlagged = INJECTION_PATTERNS.some(
    ([words, pattern]) => words.some((word) => lower.includes(word)) && pattern.test(normalized),
  );
  if (GREETING.test(normalized))
    return { route: "greeting", normalized, injectionFlagged, reply: GREETING_REPLY };
  if (THANKS.test(normalized))
    return { route: "thanks", normalized, injectionFlagged, reply: THANKS_REPLY };
  const bare = normalized
    .replace(/^(?:hi|hello|hey|so|ok|okay|please)[,!]?\s+/i, "")
    .replace(/[\s?!.]+$/, "");
  if (mayBeOverview(bare) && OVERVIEW_PATTERNS.some((pattern) => pattern.test(bare)))
    return { route: "overview", normalized, injectionFlagged };
  return { route: "question", normalized, injectionFlagged };
}
