import { sum } from "../util/numbers.ts";
import { analyzeQuery, isNonLatinTerm } from "./analyzer.ts";
import { languageOfPath } from "./languages.ts";
import type { SynonymExpansion, Synonyms } from "./synonyms.ts";
import type { TermSource } from "./term-source.ts";
import type { RetrieveOptions, SearchSettings } from "./types.ts";

/** The share of a corrected word's weight that still counts as unknown. */
export const CORRECTION_DOUBT = 0.5;

/** How much a word of the earlier turn counts in a follow-up's search, against 1 for its own words. */
export const CONTEXT_WEIGHT = 0.5;

/** A question as the index sees it: what to search for, and how much each word says. */
export interface SearchTerms {
  terms: string[];
  /** Each word of the question (not of the earlier turn) and its weight. */
  weights: Map<string, number>;
  totalWeight: number;
  /** The weight of words the book never uses (corrected words count in part). */
  unknownWeight: number;
  /** The words of the question the book never uses, as the reader wrote them. */
  unknownWords: string[];
  /** Those of them written as acronyms ("SLAM", "ESP32"), unless the whole question is in capitals. */
  unknownAcronyms: string[];
  /** Per-term BM25 weight for the words of the earlier turn. */
  boost: Map<string, number>;
  corrections: { from: string; to: string }[];
  /** Whole code identifiers of the question that the book contains (`createStore`). */
  identifiers: string[];
}

/**
 * The question's search terms and their weights. Each word weighs its idf, except that:
 * - a word the book never uses is first looked up in the book's vocabulary (a typo of a book
 *   word, edit distance 1 for 5–7 letters, 2 from 8) and searched as that word;
 * - a word in a non-Latin script that the book does not contain is left out (it says nothing
 *   about whether the book covers the rest of the question);
 * - a word the book never uses weighs at most as much as the rarest word the book does use, so
 *   one stray word (a typo, slang, a prefix such as "chore:") cannot outweigh the rest;
 * - a whole code identifier the book never contains counts as an unknown word, although only
 *   the words a reader typed otherwise count;
 * - words of the earlier turn (`context`) join the search at CONTEXT_WEIGHT;
 * - an author-approved synonym (synonyms.ts) replaces the reader's phrase by the book's: the
 *   book's words weigh as the question's, and the reader's words the book never uses drop out.
 */
/**
 * The search terms of one retrieval: its question, the earlier turn, the book's synonyms, in the
 * language of the pages its filters keep.
 */
export function retrievalTerms(
  index: TermSource,
  query: string,
  options: RetrieveOptions,
  settings: Pick<SearchSettings, "synonyms">,
): SearchTerms {
  const language = languageOfPath(options.filters?.filePrefix);
  return searchTermsOf(index, query, options.context, settings.synonyms, language);
}

export function searchTermsOf(
  index: TermSource,
  query: string,
  context: string | undefined,
  synonyms?: Synonyms,
  /** The language of the pages searched (search/languages.ts); undefined for English. */
  language?: string,
): SearchTerms {
  const { terms, words, identifiers, spelled } = withSynonyms(
    analyzeQuestion(query, language),
    synonyms?.expand(query, (term) => index.documentFrequencyOf(term) > 0),
  );
  const searchTerms = new Set<string>();
  const weights = new Map<string, number>();
  const boost = new Map<string, number>();
  const corrections: { from: string; to: string }[] = [];
  const unknown: string[] = [];
  for (const term of terms) {
    if (index.documentFrequencyOf(term) > 0) {
      searchTerms.add(term);
      continue;
    }
    const corrected = index.closestTerm(term);
    if (corrected) {
      corrections.push({ from: term, to: corrected });
      searchTerms.add(corrected);
    } else searchTerms.add(term);
  }
  const correctedOf = new Map(corrections.map((entry) => [entry.from, entry.to]));
  let knownMax = 0;
  let unknownWeight = 0;
  for (const word of words) {
    const term = correctedOf.get(word) ?? word;
    if (index.documentFrequencyOf(term) === 0) {
      if (!isNonLatinTerm(term)) unknown.push(term);
      continue;
    }
    const weight = index.idf(term);
    weights.set(term, Math.max(weights.get(term) ?? 0, weight));
    knownMax = Math.max(knownMax, weight);
    // A corrected word is a guess: it counts as half unknown when deciding whether to answer.
    if (term !== word) unknownWeight += CORRECTION_DOUBT * weight;
  }
  // A code identifier names one API exactly: one the book never mentions (`makeAutoObservable`,
  // `functools.reduce`) says the question is about some other library, even when its parts
  // ("make", "auto", "observable") are common words of the book.
  for (const identifier of identifiers) {
    if (index.documentFrequencyOf(identifier) === 0) unknown.push(identifier);
  }
  const unknownCap = knownMax > 0 ? knownMax : Number.POSITIVE_INFINITY;
  for (const term of new Set(unknown)) {
    const weight = Math.min(index.idf(term), unknownCap);
    weights.set(term, weight);
    unknownWeight += weight;
  }
  if (context) {
    for (const term of analyzeQuery(context, language).terms) {
      if (searchTerms.has(term) || index.documentFrequencyOf(term) === 0) continue;
      searchTerms.add(term);
      boost.set(term, CONTEXT_WEIGHT);
    }
  }
  const unknownWords = [...new Set(unknown)].map((term) => spelled.get(term) ?? term);
  return {
    terms: [...searchTerms],
    weights,
    totalWeight: sum(weights.values()),
    unknownWeight,
    unknownWords,
    unknownAcronyms: isShouted(query) ? [] : unknownWords.filter(isAcronym),
    boost,
    corrections,
    identifiers: identifiers.filter((identifier) => index.documentFrequencyOf(identifier) > 0),
  };
}

/**
 * A word written in capitals, with at least two letters and maybe digits or a plural "s": "SLAM",
 * "PX4", "ESP32", "APIs". Not "4K" or "3D" (a number with a unit) nor "I".
 */
export function isAcronym(word: string): boolean {
  return /^[A-Z][A-Z0-9]*[A-Z0-9]s?$/.test(word) && (word.match(/[A-Z]/g)?.length ?? 0) >= 2;
}

/** A question typed mostly in capitals, where capitals say nothing about acronyms. */
function isShouted(text: string): boolean {
  let upper = 0;
  let lower = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code >= 65 && code <= 90) upper++;
    else if (code >= 97 && code <= 122) lower++;
  }
  return upper >= lower;
}

type AnalysedQuery = ReturnType<typeof analyzeQuery>;

function withSynonyms(
  analysed: AnalysedQuery,
  expansion: SynonymExpansion | undefined,
): AnalysedQuery {
  if (!expansion) return analysed;
  const keep = (term: string) => !expansion.dropped.has(term);
  const spelled = new Map(analysed.spelled);
  for (const [term, phrase] of expansion.spelled) if (!spelled.has(term)) spelled.set(term, phrase);
  return {
    terms: [...new Set([...analysed.terms.filter(keep), ...expansion.terms])],
    words: [...new Set([...analysed.words.filter(keep), ...expansion.words])],
    identifiers: analysed.identifiers.filter(keep),
    spelled,
  };
}

/**
 * "How does X work?" asks about X: "work" frames the question and names nothing its answer must
 * say, yet it is a rare word of most books, so a heading such as "How actions work underneath"
 * would outrank the pages about X.
 */
const WORKS_FRAME = /^\s*how\s+(?:does|do)\s+.+\s+work\s*\??\s*$/i;

/** A question's terms and words as search weighs them: `analyzeQuery` less its frame words. */
export function analyzeQuestion(query: string, language?: string): AnalysedQuery {
  const analysed = analyzeQuery(query, language);
  if (!WORKS_FRAME.test(query)) return analysed;
  const keep = (term: string) => term !== "work";
  return { ...analysed, terms: analysed.terms.filter(keep), words: analysed.words.filter(keep) };
}
