/**
 * Which words of a question name things, read in context by an English part-of-speech tagger
 * (compromise): "mortgage" in "a variable rate mortgage" names a thing, "merge" in "How do I
 * merge…" and "legitimate" in "a legitimate pattern" do not. The tagger takes a few hundred
 * milliseconds to load, so it is loaded on first use, once.
 */

type Tagger = ((text: string) => { terms(): { json(): TaggedTerm[] } }) & {
  world(): { model: { one: { lexicon: Record<string, string> } } };
};
interface TaggedTerm {
  terms: { text: string; tags: string[] }[];
}

let tagger: Promise<Tagger> | undefined;

function loadTagger(): Promise<Tagger> {
  tagger ??= import("compromise/two").then((module) => module.default as unknown as Tagger);
  return tagger;
}

/** Loads the tagger ahead of the first question that needs it (a server does at start). */
export async function warmWordClasses(): Promise<void> {
  await loadTagger();
}

/**
 * The words the text uses as nouns, lower-cased, as written (not stemmed). A word the tagger does
 * not know and reads as an adjective counts too: it stands before a noun as a name does ("the
 * gimbal controller"); adjectives it knows ("a legitimate pattern") do not.
 */
export async function nounsIn(text: string): Promise<Set<string>> {
  const tag = await loadTagger();
  const lexicon = tag.world().model.one.lexicon;
  const nouns = new Set<string>();
  let previous: string[] = [];
  for (const term of tag(text).terms().json()) {
    const word = term.terms[0];
    if (!word) continue;
    const lower = word.text.toLowerCase();
    const guessedAdjective = word.tags.includes("Adjective") && lexicon[lower] === undefined;
    // An adjective right after a verb says how it went ("the URDF loaded fine"), though the
    // tagger reads it as a noun at the end of a sentence.
    const complement = lexicon[lower] === "Adjective" && previous.includes("Verb");
    if ((word.tags.includes("Noun") && !complement) || guessedAdjective) nouns.add(lower);
    previous = word.tags;
  }
  return nouns;
}

/**
 * Of the words a question uses that the book never does, those that name what it asks about:
 * the nouns in the question ("mortgage", "Webots") and anything written as a code identifier or
 * an acronym ("sessionStorage", "SLAM"), not verbs, adjectives or adverbs ("merge", "seems",
 * "legitimate"). An answer that says "The book does not mention “seems”" misleads the reader
 * about a question the passages below do answer.
 */
export async function namedInQuestion(words: string[], question: string): Promise<string[]> {
  const nouns = await nounsIn(question);
  return words.filter((word) => NAME_LIKE.test(word) || nouns.has(word.toLowerCase()));
}

/** Capitals after the first letter, digits, "_" or "." inside: an identifier or an acronym. */
const NAME_LIKE = /^.+[A-Z0-9_.]/;

/**
 * Of the words a question uses that the book never does, those written as names: an identifier
 * or acronym ("componentWillReceiveProps", "SLAM"), or a capitalised word inside a sentence
 * ("the Webots simulator"). Not in a title-cased question ("Server Side Guide & Redux Store
 * Clarification"), where capitals say nothing. Such a word names something the book does not
 * cover even when the rest of the question matches a passage well.
 */
export function namesIn(words: string[], question: string): string[] {
  const tokens = question.split(/\s+/).filter((token) => /\p{L}/u.test(token));
  const capitalised = tokens.filter((token) => /^["'(“]*\p{Lu}/u.test(token)).length;
  const titleCased = capitalised * 2 > tokens.length;
  const inSentence = (word: string) =>
    new RegExp(`(?:^|[^.!?:\\s])\\s+["'(“]*${escaped(word)}\\b`, "u").test(question);
  return words.filter(
    (word) =>
      NAME_LIKE.test(word) || (!titleCased && /^\p{Lu}\p{Ll}/u.test(word) && inSentence(word)),
  );
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
