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
  const terms = tag(text)
    .terms()
    .json()
    .flatMap((term) => term.terms[0] ?? []);
  for (const [index, word] of terms.entries()) {
    const lower = word.text.toLowerCase();
    const known = lexicon[lower] !== undefined;
    const guessedAdjective = word.tags.includes("Adjective") && !known;
    // An adjective right after a verb says how it went ("the URDF loaded fine"), though the
    // tagger reads it as a noun at the end of a sentence.
    const complement =
      lexicon[lower] === "Adjective" && (terms[index - 1]?.tags.includes("Verb") ?? false);
    // A word the tagger does not know and guesses to be a noun may be the comparative of an
    // adjective it knows ("look fatter") or the second half of a pair of adverbs or particles
    // ("back and forth", "to and fro").
    const notNoun = !known && (comparativeOf(lower, lexicon) || pairedWithParticle(terms, index));
    if ((word.tags.includes("Noun") && !complement && !notNoun) || guessedAdjective)
      nouns.add(lower);
  }
  return nouns;
}

/** "fatter", "thinnest", "noisier", "larger": -er or -est on an adjective of the lexicon. */
function comparativeOf(word: string, lexicon: Record<string, string>): boolean {
  const ending = /^(.+?)(?:er|est)$/.exec(word);
  const stem = ending?.[1];
  if (!stem || stem.length < 2) return false;
  const bases = [stem, `${stem}e`, stem.replace(/i$/, "y")];
  // A doubled final consonant: "fatt" → "fat", "thinn" → "thin".
  if (/([b-df-hj-np-tv-z])\1$/.test(stem)) bases.push(stem.slice(0, -1));
  return bases.some((base) => lexicon[base] === "Adjective");
}

/** The word after "and"/"or" that follows an adverb or a particle: "back and forth". */
function pairedWithParticle(terms: { text: string; tags: string[] }[], index: number): boolean {
  const joiner = terms[index - 1]?.text.toLowerCase();
  const first = terms[index - 2]?.tags ?? [];
  return (
    (joiner === "and" || joiner === "or") &&
    !first.includes("Noun") &&
    (first.includes("Adverb") || first.includes("Preposition") || first.includes("Conjunction"))
  );
}

/**
 * Of the words a question uses that the book never does, those that name what it asks about:
 * the nouns in the question ("mortgage", "Webots") and anything written as a code identifier or
 * an acronym ("sessionStorage", "SLAM"), not verbs, adjectives or adverbs ("merge", "seems",
 * "legitimate"): a refusal that says the book never mentions "seems" tells the reader nothing.
 */
export async function namedInQuestion(words: string[], question: string): Promise<string[]> {
  const nouns = new Set<string>();
  const contexts = contextsOf(words, question);
  if (contexts) {
    // A word counts as a noun by how the tagger reads it among its own neighbours only: at the edge
    // of another word's context it stands without the words that tell its use.
    for (const [word, texts] of contexts)
      for (const text of texts) if ((await nounsIn(text)).has(word)) nouns.add(word);
  } else if (words.some((word) => !NAME_LIKE.test(word))) {
    for (const noun of await nounsIn(question)) nouns.add(noun);
  }
  return words.filter((word) => NAME_LIKE.test(word) || nouns.has(word.toLowerCase()));
}

/**
 * Words on each side of a word that the tagger reads to tell its use: the tagger's cost grows with
 * the text, and over the 505 questions of the dev sets and the sample book, ±4 words tag each of
 * their words, alone and with the next one, as the whole question does (8,991 of 8,991).
 */
const CONTEXT_WORDS = 4;
/** Beyond this many contexts, tagging the whole question once is cheaper. */
const MAX_CONTEXTS = 2;

/**
 * The few words around each place each of `words` stands (names and acronyms apart: they need no
 * tagger), lower-cased word first; undefined when the whole question is cheaper to tag or a word
 * is not found as written.
 */
function contextsOf(words: string[], question: string): Map<string, string[]> | undefined {
  const tokens = question.split(/\s+/);
  const bare = tokens.map((token) => token.toLowerCase().replace(/[^\p{L}\p{N}_'-]/gu, ""));
  const contexts = new Map<string, string[]>();
  let count = 0;
  for (const word of new Set(words.filter((w) => !NAME_LIKE.test(w)).map((w) => w.toLowerCase()))) {
    const texts: string[] = [];
    for (const [at, token] of bare.entries())
      if (token === word)
        texts.push(tokens.slice(Math.max(0, at - CONTEXT_WORDS), at + CONTEXT_WORDS + 1).join(" "));
    if (texts.length === 0) return undefined;
    count += texts.length;
    contexts.set(word, texts);
  }
  return count <= MAX_CONTEXTS ? contexts : undefined;
}

/** Capitals after the first letter, digits, "_" or "." inside: an identifier or an acronym. */
const NAME_LIKE = /^.+[A-Z0-9_.]/;
