import { stemmer } from "stemmer";
import { cachedIn } from "../util/bounded-cache.ts";
import { languageAnalysis } from "./languages.ts";
import { STOPWORDS } from "./stopwords.ts";

/**
 * The text analyzer shared by indexing and querying. Text is NFKC-normalised (full-width `ｒｅｄｕｘ`
 * and half-width kana, common in CJK text, become their usual forms), words are lower-cased,
 * stopwords dropped and the rest Porter-stemmed.
 *
 * Code identifiers are split into their words and also kept whole, so both an exact identifier and
 * a description in words find the passage: `onBrokenLinks` → on broken links + onbrokenlinks,
 * `ros2_control` → ros2 control + ros2_control, `rclpy.spin` → rclpy spin + rclpy.spin. The whole
 * word is always a term; case boundaries only decide which parts are added beside it:
 * - Every case boundary is a candidate (`mapStateToProps`, `PureComponent`, `ReactDOM`), also in
 *   two-part PascalCase: in technical books those are mostly class and component names whose parts
 *   are what a reader types (`LaserScan` → "laser scan").
 * - A part shorter than three characters is a fragment of a name, not a word (`KaTeX`, `iOS`,
 *   `macOS`, `GraphQL`, `NumPy`, `MongoDB`, `QoS`, `kHz`); it is glued to the part before it, or to
 *   the part after it when it comes first (`eProsima`, `CMakeLists` → cmake lists). Short parts
 *   that are words do stay parts: two-letter stopwords (`onBrokenLinks`, `mapStateToProps`), `id`
 *   and `ms` (`groupId`, `timeoutMs`), a two-letter acronym starting a word (`IOError`), and parts
 *   with digits (`apiV2`).
 * - Product names built on a few suffixes are one word, not two: a capitalised part followed by
 *   Script, Hub, Lab, SQL, Tube or Socket is glued (`JavaScript`, `TypeScript`, `GitHub`,
 *   `GitLab`, `PostgreSQL`, `MySQL`, `YouTube`, `WebSocket`). Readers write these names in any case
 *   ("Github", "javascript"), and only the whole word matches every spelling; their parts ("java",
 *   "script", "hub") would match unrelated passages. No structural rule tells `JavaScript` from
 *   `PureComponent`, so this short list is the price of splitting two-part PascalCase at all. After
 *   a lower-case part (`runScript`, `openSocket`) the suffix is an ordinary word and splits.
 *
 * Numbers: a decimal number is one word, its value, with its shorter forms and its whole part
 * added beside it (`9.81` → 9.81 + 9.8 + 9), never the digits after the point alone, which would
 * make "0.8 m" match a reader's "9.8" through "8"; a reader who writes fewer digits ("about 9.8")
 * meets the book's 9.81. A version of three or more numbers keeps its parts, whole and shorter
 * forms (`4.2.0` → 4.2 4 2 0 4.2.0), so "Redux 4.2" finds it.
 *
 * Chinese, Japanese and Korean runs (Han, Hiragana, Katakana, Hangul) are cut from adjacent Latin
 * letters and digits (`redux中间件` → redux + 中间件) and indexed as overlapping character bigrams
 * (中间件 → 中间 间件; a lone character stays a unigram), as Lucene's CJK analyzer does. Bigrams
 * rather than Intl.Segmenter: a dictionary segmenter cuts a phrase differently inside a book's
 * sentence than alone in a short question, and its output changes with the ICU data of the Node
 * build, whereas every bigram of a phrase is also a bigram of any text containing it, so index and
 * query always agree. Other scripts without spaces (Thai) stay one token per run.
 *
 * Bump ANALYZER_VERSION whenever the output changes: persisted indexes built with another version
 * are rebuilt.
 */
export const ANALYZER_VERSION = 10;

const COMPOUND = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[._\-/:#][\p{L}\p{N}]+)*/gu;
const SEPARATORS = /[._\-/:#]+/;
/** A compound of ASCII letters, lower case but for the first: no part, number or case boundary. */
const PLAIN_COMPOUND = /^[A-Za-z][a-z]*$/;
// "HTTPServer" → HTTP Server, but a plural acronym ("URLs", "APIs") stays one word.
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}(?!s(?:\P{L}|$))\p{Ll})/u;
const IDENTIFIER_SEPARATOR = /[._/:#]|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
/** Two or three letter-only parts joined by single hyphens ("re-render", "built-in"). */
const HYPHENATED_WORDS = /^\p{L}+(?:-\p{L}+){1,2}$/u;
const DECIMAL = /^(\p{N}+)\.\p{N}+$/u;
const VERSION = /^\p{N}+(?:\.\p{N}+){2,}$/u;
const LETTERS_THEN_DIGITS = /^(\p{L}{2,})\p{N}+$/u;
// The prolonged sound mark ー belongs to no script of its own but is part of katakana words.
const CJK_RUN = /([\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}ー]+)/u;
const NON_LATIN_LETTER = /(?!\p{sc=Latin})\p{L}/u;
/** A single word followed by an argument list: "compose(a, b)", "dispatch()". */
const CALLED_WORD = /(?<![\p{L}\p{N}_$.])([\p{L}_$][\p{L}\p{N}_$]*)\(([^()]{0,80})\)/gu;
const ONE_LETTER = /(?<![\p{L}\p{N}_$])\p{L}(?![\p{L}\p{N}_$])/gu;
const SHORT_WORD_PARTS: ReadonlySet<string> = new Set(["id", "ms"]);
const BRAND_SUFFIXES: ReadonlySet<string> = new Set([
  "script",
  "hub",
  "lab",
  "sql",
  "tube",
  "socket",
]);

/** Splits text into lower-cased words before stopwords and stemming, identifiers expanded. */
export function tokenize(text: string): string[] {
  return tokenizeDetailed(text).map((token) => token.text);
}

/**
 * Whether a term has letters outside the Latin script (a CJK bigram, a Greek or Cyrillic word).
 * Such terms are not in the English vocabulary the stopwords and stemming assume.
 */
export function isNonLatinTerm(term: string): boolean {
  return NON_LATIN_LETTER.test(term);
}

interface Token {
  text: string;
  /** As the reader wrote it (case kept). */
  original: string;
  /** A whole identifier kept beside its parts (`ros2_control`), not a word of its own. */
  compound: boolean;
  /** A whole code identifier (`makeAutoObservable`, `functools.reduce`). */
  identifier?: boolean;
}

function tokenizeDetailed(text: string): Token[] {
  const tokens: Token[] = [];
  // With a capturing group, split puts the CJK runs at the odd indices.
  const pieces = text.normalize("NFKC").split(CJK_RUN);
  pieces.forEach((piece, index) => {
    if (index % 2 === 1) pushBigrams(piece, tokens);
    else pushWords(piece, tokens);
  });
  return tokens;
}

function pushBigrams(run: string, tokens: Token[]): void {
  const characters = [...run];
  if (characters.length === 1) tokens.push({ text: run, original: run, compound: false });
  for (let index = 0; index + 1 < characters.length; index++) {
    const pair = `${characters[index]}${characters[index + 1]}`;
    tokens.push({ text: pair, original: pair, compound: false });
  }
}

function pushWords(text: string, tokens: Token[]): void {
  for (const match of text.matchAll(COMPOUND)) {
    // Most words of a text: one token, the word lower-cased, as the steps below make it.
    if (PLAIN_COMPOUND.test(match[0])) {
      tokens.push({ text: match[0].toLowerCase(), original: match[0], compound: false });
      continue;
    }
    const compound = match[0].replace(/['’]/g, "'");
    // A decimal number is its value, its shorter forms and its whole part: the digits after the
    // point are no number of their own ("0.8" is not "8"), and a reader's "9.8" meets "9.81".
    const decimal = DECIMAL.exec(compound);
    if (decimal?.[1] !== undefined) {
      tokens.push({ text: compound, original: compound, compound: false });
      for (let end = compound.length - 1; end > decimal[1].length + 1; end--) {
        tokens.push({ text: compound.slice(0, end), original: compound, compound: true });
      }
      tokens.push({ text: decimal[1], original: compound, compound: true });
      continue;
    }
    // A version's shorter forms, so "Redux 4.2" finds "4.2.0" as a whole number.
    if (VERSION.test(compound)) {
      const numbers = compound.split(".");
      for (let length = 2; length < numbers.length; length++) {
        const prefix = numbers.slice(0, length).join(".");
        tokens.push({ text: prefix, original: compound, compound: true });
      }
    }
    const parts = compound.split(SEPARATORS).flatMap(caseParts);
    for (const part of parts) {
      const lower = part.toLowerCase();
      if (lower) tokens.push({ text: lower, original: part, compound: false });
      // "ros2" also answers to "ROS 2" and "ros".
      const letters = LETTERS_THEN_DIGITS.exec(lower)?.[1];
      if (letters) tokens.push({ text: letters, original: part, compound: true });
    }
    // Identifiers are also indexed whole; hyphenated prose ("two-legged") is its words, plus the
    // words written together, which readers often do ("re-render" / "rerender", "e-mail").
    if (parts.length > 1 && IDENTIFIER_SEPARATOR.test(compound)) {
      tokens.push({
        text: compound.toLowerCase(),
        original: compound,
        compound: true,
        identifier: true,
      });
    } else if (parts.length > 1 && HYPHENATED_WORDS.test(compound)) {
      tokens.push({
        text: compound.replace(/-/g, "").toLowerCase(),
        original: compound,
        compound: true,
      });
    }
  }
}

/** The words of one separator-free segment at its case boundaries, fragments glued back. */
function caseParts(segment: string): string[] {
  const candidates = segment.split(CAMEL_BOUNDARY);
  if (candidates.length === 1) return candidates;
  const parts: string[] = [];
  let previous: string | undefined;
  candidates.forEach((candidate, index) => {
    const last = parts.length - 1;
    const glue =
      last >= 0 &&
      (isFragment(candidate, candidates[index + 1]) || isBrandSuffix(previous, candidate));
    if (glue) parts[last] += candidate;
    else parts.push(candidate);
    previous = candidate;
  });
  const [first, second] = parts;
  if (first !== undefined && second !== undefined && isFragment(first, second)) {
    parts.splice(0, 2, first + second);
  }
  return parts;
}

function isFragment(part: string, next: string | undefined): boolean {
  // Digits make a version or dimension ("apiV2"), worth keeping as a part.
  if (part.length >= 3 || /\p{N}/u.test(part)) return false;
  const lower = part.toLowerCase();
  if (lower.length === 2 && (STOPWORDS.has(lower) || SHORT_WORD_PARTS.has(lower))) return false;
  // An acronym that starts a word of its own: "IOError", "UIKit".
  return !(next !== undefined && /^\p{Lu}{2}$/u.test(part));
}

function isBrandSuffix(previous: string | undefined, part: string): boolean {
  return (
    previous !== undefined && /^\p{Lu}/u.test(previous) && BRAND_SUFFIXES.has(part.toLowerCase())
  );
}

const stemCache = new Map<string, string>();

/**
 * Porter leaves an adverb in "-ily" apart from its adjective: "lazily" is "lazili", "lazy" is
 * "lazi", so "load a reducer lazily" missed the page on lazy loading. A stem ending in "ili" loses
 * its "li" ("lazili" → "lazi", "easili" → "easi", "necessarili" → "necessari"); nouns in "-ily"
 * keep singular and plural together ("family" and "families" are both "fami").
 */
function adverbToAdjective(stem: string): string {
  return stem.length > 5 && stem.endsWith("ili") ? stem.slice(0, -2) : stem;
}

/**
 * Forms Porter cuts to a stem no other form of the word shares ("lying" → "ly", "lies" → "li",
 * while "lie" stays "lie"), read as their base word as Porter2's exceptions do; "news" stays
 * apart from "new".
 */
const IRREGULAR_STEMS = new Map([
  ["lying", "lie"],
  ["lies", "lie"],
  ["lied", "lie"],
  ["dying", "die"],
  ["dies", "die"],
  ["died", "die"],
  ["tying", "tie"],
  ["ties", "tie"],
  ["tied", "tie"],
  ["news", "news"],
]);

function normalizeTerm(token: string, language?: string): string | undefined {
  if (language !== undefined) return normalizeTermIn(language, token);
  const word = token.endsWith("'s") ? token.slice(0, -2) : token;
  if (STOPWORDS.has(word) || STOPWORDS.has(token)) return undefined;
  if (word.length > 40) return undefined;
  // Identifiers, numbers and very short words are matched exactly.
  if (/[^a-z]/.test(word) || word.length <= 3) return word;
  let stem = stemCache.get(word) ?? IRREGULAR_STEMS.get(word);
  if (stem === undefined) {
    stem = adverbToAdjective(stemmer(americanSpelling(word)));
    if (stemCache.size < 200_000) stemCache.set(word, stem);
  }
  return stem;
}

const stemCaches = new Map<string, Map<string, string>>();

/**
 * A term of a page or question in another language than English (search/languages.ts): its own
 * stopwords, and its own stemmer for words of letters (accented ones too); identifiers, numbers
 * and words of three letters or fewer matched exactly, as in English.
 */
function normalizeTermIn(language: string, token: string): string | undefined {
  const { stem, stopwords } = languageAnalysis(language);
  const word = token.replace(/^(?:[cdjlmnst]|qu)'/, "");
  if (stopwords.has(word) || stopwords.has(token) || word === "") return undefined;
  if (word.length > 40) return undefined;
  if (/[^\p{L}]/u.test(word) || word.length <= 3) return word;
  const cache = stemCaches.get(language) ?? new Map<string, string>();
  stemCaches.set(language, cache);
  let stemmed = cache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (cache.size < 200_000) cache.set(word, stemmed);
  }
  return stemmed;
}

/**
 * British spellings in the American form, so that a reader's "visualize" finds a book's
 * "visualise" and "color" its "colour": -ise/-yse verbs (and their -ised, -ising, -isation forms),
 * -our nouns and -tre nouns. Book and question are both written this way, so a word with no
 * American twin ("promise", "contour") only changes its ending on both sides alike. A few letters
 * must come before the ending: "rise", "hour" and "your" stay as they are.
 */
function americanSpelling(word: string): string {
  return word
    .replace(/^(\w{3,})is(e|ed|es|ing|ation|ations|er|ers)$/, "$1iz$2")
    .replace(/^(\w{2,})ys(e|ed|es|ing|er|ers)$/, "$1yz$2")
    .replace(/^(\w{2,})our(s|ed|ing|ful|ite|ites|able|less)?$/, "$1or$2")
    .replace(/^(\w{2,})tre(s)?$/, "$1ter$2");
}

/**
 * A plain word of running text: ASCII letters, lower case but for the first, between quotes,
 * brackets and punctuation ("Robot," "(gains)." "“servo”"). Most words of a book are such words.
 */
const PLAIN_WORD = /^[("'“‘[]*([A-Za-z][a-z]*)[.,;:!?)"'”’\]]*$/;

/**
 * The lower-cased first letter of a plain word (see PLAIN_WORD), which every term of the word
 * starts with: the word is one token, and stemming only ever changes a word's ending. Undefined
 * for other words.
 */
export function plainWordInitial(word: string): string | undefined {
  return PLAIN_WORD.exec(word)?.[1]?.[0]?.toLowerCase();
}

/**
 * A plain word (see PLAIN_WORD) as its term and its form: lower case, in American spelling, without
 * its inflection ("Reducers" → reducer, "libraries" → library, "dispatching" → dispatch, "caches"
 * and "caching" → cach). Stemming also joins words derived from one another ("immutable" and
 * "immutability" are both immut, "publishes" and "publisher" both publish); their forms tell them
 * apart. Undefined for other words (code, acronyms, numbers) and for stopwords; Markdown emphasis
 * around a word is left out ("**node**").
 */
export function plainWordForm(word: string): { term: string; form: string } | undefined {
  // Markdown emphasis around it ("**node**") is not part of the word.
  const plain = PLAIN_WORD.exec(
    word.replace(/^[*_]+|[*_]+(?=[.,;:!?)"'”’\]]*$)/g, ""),
  )?.[1]?.toLowerCase();
  if (plain === undefined) return undefined;
  const term = normalizeTerm(plain);
  return term ? { term, form: inflectionBase(singular(americanSpelling(plain))) } : undefined;
}

/** plainWordForm of each whitespace-separated word of a text, by term. */
export function plainWordForms(text: string): Map<string, string> {
  const forms = new Map<string, string>();
  for (const word of text.split(/\s+/)) {
    const plain = plainWordForm(word);
    if (plain) forms.set(plain.term, plain.form);
  }
  return forms;
}

/**
 * A title or heading as one key: each word's form (plainWordForm; other words lower case), a
 * leading article and Markdown emphasis left out. "Immutability", "the immutability" and
 * "**Immutabilities**" are one key; "Immutable" is another.
 */
export function headingKey(text: string): string {
  return cachedIn(headingKeys, text, MAX_HEADING_WORDS, keyOfHeading);
}

/** Headings and questions as keys, kept: the same ones are looked up request after request. */
const headingKeys = new Map<string, string>();

function keyOfHeading(text: string): string {
  return text
    .trim()
    .replace(/^(?:the|an?)\s+/i, "")
    .split(/\s+/)
    .map((word) => cachedIn(headingWords, word, MAX_HEADING_WORDS, headingWord))
    .filter((word) => word !== "")
    .join(" ");
}

/** A word of a heading as headingKey reads it; kept, as a question's words are read again. */
function headingWord(word: string): string {
  return (
    plainWordForm(word)?.form ?? word.toLowerCase().replace(/^[*_`"'“‘(]+|[*_`"'”’).,:;!?]+$/g, "")
  );
}
const headingWords = new Map<string, string>();
const MAX_HEADING_WORDS = 16_384;

/**
 * A singular word without its -ing or -ed ending (when four letters stay: "string" and "embed"
 * keep theirs), a doubled consonant left before it ("mapping" → map), or a final e ("cache" and
 * "caching" → cach).
 */
function inflectionBase(word: string): string {
  const stem = word.replace(/(?:ing|ed)$/, "");
  const base =
    stem !== word && stem.length >= 4 ? stem.replace(/([b-df-hj-np-tv-z])\1$/, "$1") : word;
  return base.replace(/e$/, "");
}

function singular(word: string): string {
  if (word.length <= 3 || /(?:ss|us|is)$/.test(word)) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  return word.replace(/s$/, "");
}

/**
 * `analyze` of one whitespace-separated word, the same terms, with a short cut for plain words:
 * one lower-cased token (no NFKC change, no CJK, no identifier parts), so only its stopword check
 * and stem remain. Snippets analyse every word of the sections they quote. Other words go to
 * `other` (analyze, or a cache of it).
 */
export function analyzeWord(word: string, other: (word: string) => string[] = analyze): string[] {
  const plain = PLAIN_WORD.exec(word)?.[1];
  if (plain === undefined) return other(word);
  const term = normalizeTerm(plain.toLowerCase());
  return term ? [term] : [];
}

/**
 * Index/query terms for a text, in order, duplicates kept (term frequency matters). `language`:
 * a text in another language than English (search/languages.ts), stemmed in that language.
 */
export function analyze(text: string, language?: string): string[] {
  if (language !== undefined) return analyzeText(text, language);
  return [...remembered(analysedShort, text, analyzeText)];
}

function analyzeText(text: string, language?: string): string[] {
  const terms: string[] = [];
  for (const token of tokenizeDetailed(text)) {
    const term = normalizeTerm(token.text, language);
    if (term) terms.push(term);
  }
  return terms;
}

/**
 * A query's distinct terms, split into the words a reader used and the extra whole-identifier
 * forms. Only the words weigh in on how much of the question a passage covers. `spelled` gives
 * each term as the reader first wrote it.
 */
export function analyzeQuery(text: string, language?: string): AnalysedQuery {
  const found =
    language === undefined
      ? remembered(analysedQueries, text, analyzeQueryText)
      : analyzeQueryText(text, language);
  return {
    terms: [...found.terms],
    words: [...found.words],
    identifiers: [...found.identifiers],
    spelled: new Map(found.spelled),
  };
}

export interface AnalysedQuery {
  terms: string[];
  words: string[];
  identifiers: string[];
  spelled: Map<string, string>;
}

/**
 * Short texts are analysed again and again while one question is answered (the question, its
 * words one by one, headings, sentences): their analyses are kept, up to MAX_REMEMBERED texts of
 * at most MAX_REMEMBERED_LENGTH characters each, and each caller gets its own copy.
 */
const MAX_REMEMBERED = 4_000;
const MAX_REMEMBERED_LENGTH = 300;
const analysedShort = new Map<string, readonly string[]>();
const analysedQueries = new Map<string, AnalysedQuery>();

function remembered<T>(memo: Map<string, T>, text: string, analyse: (text: string) => T): T {
  if (text.length > MAX_REMEMBERED_LENGTH) return analyse(text);
  return cachedIn(memo, text, MAX_REMEMBERED, analyse);
}

function analyzeQueryText(text: string, language?: string): AnalysedQuery {
  const terms = new Set<string>();
  const words = new Set<string>();
  const identifiers = new Set<string>();
  const spelled = new Map<string, string>();
  for (const token of tokenizeDetailed(text)) {
    const term = normalizeTerm(token.text, language);
    if (!term) continue;
    terms.add(term);
    if (!spelled.has(term)) spelled.set(term, token.original);
    if (!token.compound) words.add(term);
    if (token.identifier) identifiers.add(term);
  }
  // A word written as a call (`compose(a, b)`, `dispatch()`) is code, whatever its case, and its
  // one-letter arguments are placeholders, not words of the question.
  for (const call of text.matchAll(CALLED_WORD)) {
    const term = normalizeTerm((call[1] ?? "").toLowerCase(), language);
    if (term && terms.has(term)) identifiers.add(term);
    for (const argument of (call[2] ?? "").matchAll(ONE_LETTER)) {
      const letter = (argument[0] ?? "").toLowerCase();
      terms.delete(letter);
      words.delete(letter);
    }
  }
  return { terms: [...terms], words: [...words], identifiers: [...identifiers], spelled };
}
