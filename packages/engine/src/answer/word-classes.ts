/**
 * Which words of a question name things. A word's classes come from a word list generated from
 * WordNet (word-class-list.ts: each word that can be a verb, an adjective or an adverb, with its
 * classes most used first), its inflections read by the suffix rules WordNet's own lookup uses;
 * the words next to it choose among its classes: "mortgage" in "a variable rate mortgage" names a
 * thing, "merge" in "How do I merge…", "legitimate" in "a legitimate pattern" and "book" in "How
 * do I book a slot" do not. A word the list does not hold is a noun or a name. The list is loaded
 * on first use, once.
 */

/** Word classes, most used first: n noun, v verb, a adjective, r adverb. */
type Classes = string;
interface WordList {
  lemmas: Map<string, Classes>;
  /** Irregular forms and their class: "won" a verb's, "fatter" an adjective's. */
  forms: Map<string, "v" | "a">;
}

let wordList: Promise<WordList> | undefined;

function loadWordList(): Promise<WordList> {
  wordList ??= import("./word-class-list.ts").then((module) =>
    parseWordList(module.WORD_CLASS_LIST),
  );
  // A list that could not be fetched (a static book's reader offline) is tried again next time.
  wordList.catch(() => {
    wordList = undefined;
  });
  return wordList;
}

/** Loads the word list ahead of the first question that needs it (a server does at start). */
export async function warmWordClasses(): Promise<void> {
  await loadWordList();
}

export function parseWordList(text: string): WordList {
  const list: WordList = { lemmas: new Map(), forms: new Map() };
  let classes = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("@")) {
      classes = line.slice(1);
      continue;
    }
    for (const word of line.split(" ")) {
      if (!word) continue;
      if (classes === "=v" || classes === "=a")
        list.forms.set(word.slice(0, word.indexOf(":")), classes === "=v" ? "v" : "a");
      else list.lemmas.set(word, classes);
    }
  }
  return list;
}

/**
 * Suffix rules: an ending, what replaces it, and the class the form has when the lemma has that
 * class (WordNet's detachment rules, with doubled final consonants and -ly adverbs added).
 */
const INFLECTIONS: [ending: string, replacement: string, cls: string][] = [
  ["s", "", "n"],
  ["ses", "s", "n"],
  ["xes", "x", "n"],
  ["zes", "z", "n"],
  ["ches", "ch", "n"],
  ["shes", "sh", "n"],
  ["ies", "y", "n"],
  ["s", "", "v"],
  ["ies", "y", "v"],
  ["es", "", "v"],
  ["ed", "e", "v"],
  ["ed", "", "v"],
  ["ied", "y", "v"],
  ["ing", "e", "v"],
  ["ing", "", "v"],
  ["er", "", "a"],
  ["est", "", "a"],
  ["er", "e", "a"],
  ["est", "e", "a"],
  ["ier", "y", "a"],
  ["iest", "y", "a"],
  ["ly", "", "r"],
  ["ily", "y", "r"],
  ["ly", "le", "r"],
  ["ally", "", "r"],
];

/**
 * The classes a word can have, most used first: the word's own entry, then those its endings
 * give it. An -ing or -ed form of a verb reads first as the verb: the list counts how often
 * "running" was a noun, not how often it was the verb "run". Undefined for a word the list does
 * not hold in any form.
 */
export function classesOf(word: string, list: WordList): Classes | undefined {
  // "built", "won", "fatter": an irregular form is only its verb's or adjective's (an -ing
  // form a noun too, as below).
  const form = list.forms.get(word);
  if (form) return form === "v" && word.endsWith("ing") ? "vn" : form;
  const own = list.lemmas.get(word) ?? "";
  // Each class an ending gives, with how used the lemma's class is (its place in the lemma's
  // classes): "keeps" is first a verb as "keep" is, "funds" first a noun as "fund" is.
  const inflected = new Map<string, number>();
  for (const [ending, replacement, cls] of INFLECTIONS) {
    if (!word.endsWith(ending) || word.length - ending.length < 2 || inflected.has(cls)) continue;
    const stem = word.slice(0, -ending.length);
    // -es after a hiss or an "o" only: "passes", "goes"; "nodes" is not "nod" + -es.
    if (ending === "es" && !/(?:[sxzo]|[cs]h)$/.test(stem)) continue;
    for (const base of baseForms(stem, replacement, cls)) {
      // -ly makes an adverb of an adjective; the other rules keep the lemma's class.
      const at = list.lemmas.get(base)?.indexOf(cls === "r" ? "a" : cls) ?? -1;
      if (at >= 0) {
        inflected.set(cls, at);
        break;
      }
    }
  }
  const byUse = [...inflected].sort(([, a], [, b]) => a - b).map(([cls]) => cls);
  const verbForm = /(?:ing|ed)$/.test(word) && inflected.has("v");
  // An -ing form names its doing too: "the logging", "his wedding speech".
  const gerund = verbForm && word.endsWith("ing") ? "n" : "";
  const order = verbForm ? `v${own}${byUse.join("")}${gerund}` : `${own}${byUse.join("")}`;
  const classes = [...new Set(order)].join("");
  return classes || undefined;
}

/** "stopp" → "stop" too: a doubled final consonant before -ed, -ing, -er and -est. */
function baseForms(stem: string, replacement: string, cls: string): string[] {
  const bases = [stem + replacement];
  if (replacement === "" && cls !== "n" && /([b-df-hj-np-tv-z])\1$/.test(stem))
    bases.push(stem.slice(0, -1));
  return bases;
}

/**
 * English's closed classes, which the word list leaves out, by what they tell of the word after
 * them. None of them is ever named.
 */
const FUNCTION_WORDS: [kind: FunctionKind, words: string][] = [
  // Before a noun or its adjective: "a fine", "the fix", "which file", "every spec file".
  [
    "determiner",
    "a an the this these those my your our their his her its some any no each every another " +
      "many few several all both either neither much more most such what which whose",
  ],
  // Before a noun phrase, or an -ing form used as one: "in watch mode", "before running".
  [
    "preposition",
    "about above across after against along among around as at before behind below beneath " +
      "beside besides between beyond by despite during except for from in inside into like near " +
      "of off on onto out outside over past per plus since than through throughout toward towards " +
      "under underneath unlike until up upon via with within without versus vs",
  ],
  // Before a verb: subject pronouns, "to" and negations ("I merge", "to brew", "don't flash").
  // Modals and "do" are not: in a question a subject follows them ("Can pnpm…", "Does jest…").
  [
    "subject",
    "i we you they he she it who to not never don't doesn't didn't can't cannot won't " +
      "shouldn't couldn't wouldn't isn't aren't wasn't weren't dont doesnt didnt cant wont please " +
      "let's i'll you'll we'll they'll i'd you'd we'd they'd",
  ],
  // The rest tell nothing of the word after them.
  [
    "other",
    "and or but nor so yet if else unless because although though while whether whereas where when " +
      "why how whatever whenever wherever there here is are was were be been being am do does " +
      "did have has had having can could should would will shall may might must me him us them " +
      "myself yourself itself ourselves themselves mine yours ours theirs hers also just only " +
      "very too then that that's what's there's here's it's i'm you're we're they're i've " +
      "you've we've they've how's where's who's zero one two three four five six seven eight " +
      "nine ten eleven twelve twenty hundred thousand million",
  ],
];
type FunctionKind = "determiner" | "preposition" | "subject" | "other";
const FUNCTION_KIND = new Map(
  FUNCTION_WORDS.flatMap(([kind, words]) => words.split(" ").map((word) => [word, kind] as const)),
);
/** Prefixes written with a hyphen ("micro-ROS", "multi-robot", "non-zero"): never named. */
const PREFIXES = new Set(
  (
    "anti auto bi co counter cross de dis extra hyper inter intra macro mega meta micro mid " +
    "mini mis mono multi non over post pre pro pseudo re semi sub super trans tri ultra un " +
    "under"
  ).split(" "),
);
/** A plural noun's ending: "-s", not "-ss", "-us" or "-is". */
const PLURAL = /[^siu]s$/;
/** Particles that pair with another by "and"/"or": "back and forth", "to and fro". */
const PARTICLES = new Set("to up down in out on off over back through".split(" "));

interface Token {
  word: string;
  /** A comma, a full stop or other punctuation ends the token: the next one starts afresh. */
  ends: boolean;
  /** Written with a capital inside a sentence: a name ("the Western Roman Empire"). */
  name: boolean;
  /** Joined to the next part by a hyphen: "micro" of "micro-ROS". */
  joined: boolean;
}

/** The question's words, lower-cased; a hyphenated word as its parts ("pour-over" → 2). */
function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  let sentenceStart = true;
  for (const raw of text.split(/\s+/)) {
    const parts = raw
      .replaceAll("’", "'")
      .split("-")
      .map((part) => part.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
      .filter((part) => part !== "");
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      tokens.push({
        word: part.toLowerCase(),
        ends: last && /[^\p{L}\p{N}']$/u.test(raw),
        name: !sentenceStart && /^\p{Lu}/u.test(part),
        joined: !last,
      });
      sentenceStart = false;
    }
    if (/[.?!:]$/.test(raw)) sentenceStart = true;
  }
  return tokens;
}

/**
 * Each token's class where it stands, read left to right: a function word's kind; else the
 * class the word before calls for, if the word has it (a noun after a determiner, a
 * preposition, an adjective or a noun; a verb after a subject), else its most used class. A
 * word the list does not hold is a noun or a name ("n").
 */
function readClasses(tokens: Token[], list: WordList): string[] {
  const read: string[] = [];
  for (const [index, token] of tokens.entries()) {
    const kind = FUNCTION_KIND.get(token.word);
    const previous = index > 0 && !tokens[index - 1]?.ends ? (read[index - 1] ?? "") : "";
    if (kind) read.push(kind);
    else read.push(classAt(tokens, index, previous, list));
  }
  return read;
}

function classAt(tokens: Token[], index: number, previous: string, list: WordList): string {
  const token = tokens[index] as Token;
  if (token.name) return "n";
  if (token.joined && PREFIXES.has(token.word)) return "a";
  const classes = classesOf(token.word, list);
  if (!classes) return pairedWithParticle(tokens, index, list) ? "r" : "n";
  if (previous === "subject" && classes.includes("v")) return "v";
  const inNounPhrase = ["determiner", "preposition", "a", "n"].includes(previous);
  if (!inNounPhrase || !classes.includes("n")) return classes[0] ?? "n";
  // After a noun, an adjective or an adverb says how it is ("the workspace built fine", "the
  // store still…"), and a verb agrees with a plural ("the wheels look", "the tests crash"); a
  // word that is most often a verb is else the second noun of a compound ("the test file").
  if (previous === "n" && classes[0] !== "v") return classes[0] ?? "n";
  if (previous === "n" && PLURAL.test(tokens[index - 1]?.word ?? "")) return "v";
  // "before running the tests", "processes keep growing": an -ing form is the verb's unless a
  // determiner stands before it ("the logging").
  if (previous !== "determiner" && classes[0] === "v" && token.word.endsWith("ing")) return "v";
  // "a fine mesh": an adjective before a word that is not a verb modifies it.
  const next = tokens[index + 1];
  const modifies = classes[0] === "a" && !token.ends && next !== undefined;
  const nextIsVerb = next && classesOf(next.word, list)?.[0] === "v";
  return modifies && !FUNCTION_KIND.has(next.word) && !nextIsVerb ? "a" : "n";
}

/** An unknown word after "and"/"or" that follows a particle or an adverb: "to and fro". */
function pairedWithParticle(tokens: Token[], index: number, list: WordList): boolean {
  const joiner = tokens[index - 1]?.word;
  const first = tokens[index - 2]?.word ?? "";
  return (
    (joiner === "and" || joiner === "or") &&
    (PARTICLES.has(first) || classesOf(first, list)?.[0] === "r")
  );
}

/**
 * The words the text uses as nouns, lower-cased, as written (not stemmed): words the list reads
 * as nouns where they stand, and words it does not hold (names, terms of the trade).
 */
export async function nounsIn(text: string): Promise<Set<string>> {
  const list = await loadWordList();
  const tokens = tokensOf(text);
  const read = readClasses(tokens, list);
  return new Set(tokens.filter((_, index) => read[index] === "n").map((token) => token.word));
}

/**
 * Of the words a question uses that the book never does, those that name what it asks about:
 * the nouns in the question ("mortgage", "Webots") and anything written as a code identifier or
 * an acronym ("sessionStorage", "SLAM"), not verbs, adjectives or adverbs ("merge", "seems",
 * "legitimate"): a refusal that says the book never mentions "seems" tells the reader nothing.
 */
export async function namedInQuestion(words: string[], question: string): Promise<string[]> {
  let nouns = new Set<string>();
  if (words.some((word) => !NAME_LIKE.test(word))) {
    // Without the list the refusal still comes, naming only identifiers and acronyms.
    nouns = await nounsIn(question).catch(() => nouns);
  }
  return words.filter((word) => NAME_LIKE.test(word) || nouns.has(word.toLowerCase()));
}

/** Capitals after the first letter, digits, "_" or "." inside: an identifier or an acronym. */
const NAME_LIKE = /^.+[A-Z0-9_.]/;
