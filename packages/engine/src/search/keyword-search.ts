import type { ChunkRecord } from "../book/records.ts";
import { analyze, analyzeQuery, analyzeWord, plainWordInitial } from "./analyzer.ts";
import { type EngineLexical, engineBm25Ranking } from "./engine-search.ts";
import { languageOfPath } from "./languages.ts";
import type { LexicalHit, LexicalIndex } from "./lexical-index.ts";
import { rankingTerms } from "./lexical-search.ts";
import type { TermSource } from "./term-source.ts";

/**
 * Search as you type, for the reader's search box: the sections whose words match what has been
 * typed so far, each with a snippet and the spans to highlight. Unlike `Retriever.search` it never
 * refuses (a reader looking for a page wants the closest ones), treats the last word as a prefix
 * while it is still being typed ("kinem" finds "kinematics"), and ranks sections containing every
 * word first.
 */

export interface KeywordHit {
  pageTitle: string;
  /** The section's heading; null for a page's opening. */
  section: string | null;
  url: string;
  filePath: string;
  /** A short plain-text excerpt around the best matching words. */
  snippet: string;
  /** [start, end) character offsets of matched words in `snippet`. */
  highlights: [number, number][];
  score: number;
}

/** The hits as `GET /search` answers them (`SearchResponse.results`). */
export function searchResults(hits: readonly KeywordHit[]) {
  return hits.map((hit) => ({
    page_title: hit.pageTitle,
    section: hit.section,
    url: hit.url,
    snippet: hit.snippet,
    highlights: hit.highlights,
    score: hit.score,
  }));
}

export interface KeywordSearchOptions {
  /** Most results (1–20). */
  limit: number;
  /** Most sections of one page among the results. */
  perPage?: number;
  /** Only pages whose file path starts with this: one version of a versioned book. */
  filePrefix?: string | undefined;
}

/** How many completions of an unfinished last word join the search. */
const MAX_COMPLETIONS = 3;
/** Words in a snippet. */
const SNIPPET_WORDS = 28;

export function keywordSearch(
  index: LexicalIndex,
  query: string,
  options: KeywordSearchOptions,
): KeywordHit[] {
  const plan = keywordPlan(index, query, options);
  if (!plan) return [];
  // On a large book, terms in most chunks are left out when rarer ones are typed, as in retrieval.
  const prefix = options.filePrefix;
  const hits = index.search(rankingTerms(index, plan.searched), {
    limit: plan.candidates,
    ...(prefix ? { filter: (chunk: ChunkRecord) => chunk.filePath.startsWith(prefix) } : {}),
  });
  return keywordResults(plan, hits);
}

/** The same search with the BM25 ranking in an external engine (LEXICAL_BACKEND=qdrant). */
export async function engineKeywordSearch(
  engine: EngineLexical,
  query: string,
  options: KeywordSearchOptions,
): Promise<KeywordHit[]> {
  const plan = keywordPlan(engine.terms, query, options);
  if (!plan) return [];
  const { hits } = await engineBm25Ranking(
    engine,
    { terms: plan.searched, boost: new Map() },
    {
      limit: plan.candidates,
      filters: options.filePrefix ? { filePrefix: options.filePrefix } : undefined,
    },
  );
  return keywordResults(plan, hits);
}

interface KeywordPlan {
  limit: number;
  perPage: number;
  /** Every term searched: the finished words (corrected when they are typos) and completions. */
  searched: string[];
  complete: Set<string>;
  completions: string[];
  candidates: number;
}

/** What to search for: the finished words, and the completions of the word still being typed. */
function keywordPlan(
  terms: Pick<TermSource, "documentFrequencyOf" | "closestTerm" | "termsStartingWith">,
  query: string,
  options: KeywordSearchOptions,
): KeywordPlan | undefined {
  const limit = Math.min(20, Math.max(1, Math.floor(options.limit)));
  const perPage = options.perPage ?? 2;
  // The word under the cursor is still being typed: it is searched by its completions only (a
  // typo lookup would take "kinem" for some other word).
  const partial = /\s$/.test(query) ? undefined : lastWord(query);
  const finished = partial ? query.slice(0, query.length - partial.length) : query;
  const complete = new Set<string>();
  for (const term of analyzeQuery(finished, languageOfPath(options.filePrefix)).terms) {
    if (terms.documentFrequencyOf(term) > 0) complete.add(term);
    else {
      const corrected = terms.closestTerm(term);
      if (corrected) complete.add(corrected);
    }
  }
  const completions = partial ? completionsOf(terms, partial) : [];
  const searched = [...new Set([...complete, ...completions])];
  if (searched.length === 0) return undefined;
  return { limit, perPage, searched, complete, completions, candidates: Math.max(50, limit * 5) };
}

/** Sections with every word first, at most `perPage` of a page, each with its snippet. */
function keywordResults(plan: KeywordPlan, hits: LexicalHit[]): KeywordHit[] {
  const { complete, completions, limit, perPage } = plan;
  const required = [...complete].filter((term) => !completions.includes(term));
  const ranked = hits
    .map((hit) => {
      const matched = new Set(hit.matchedTerms);
      const allWords =
        required.every((term) => matched.has(term)) &&
        (completions.length === 0 || completions.some((term) => matched.has(term)));
      return { hit, allWords };
    })
    .sort(
      (left, right) =>
        Number(right.allWords) - Number(left.allWords) || right.hit.score - left.hit.score,
    );

  const perPageCount = new Map<string, number>();
  const results: KeywordHit[] = [];
  const highlightTerms = new Set(plan.searched);
  for (const { hit } of ranked) {
    const count = perPageCount.get(hit.chunk.filePath) ?? 0;
    if (count >= perPage) continue;
    perPageCount.set(hit.chunk.filePath, count + 1);
    results.push(toHit(hit.chunk, hit.score, highlightTerms));
    if (results.length >= limit) break;
  }
  return results;
}

function lastWord(query: string): string | undefined {
  const match = /([\p{L}\p{N}_]+)$/u.exec(query);
  return match?.[1]?.toLowerCase();
}

/** The book's most frequent terms that start with the unfinished word (or with its stem). */
function completionsOf(
  index: Pick<TermSource, "documentFrequencyOf" | "termsStartingWith">,
  partial: string,
): string[] {
  if (partial.length < 2) return [];
  const stems = new Set([partial, ...analyze(partial)]);
  const found = new Map<string, number>();
  for (const stem of stems) {
    for (const term of index.termsStartingWith(stem, 200)) {
      found.set(term, index.documentFrequencyOf(term));
    }
  }
  return [...found.entries()]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .slice(0, MAX_COMPLETIONS)
    .map(([term]) => term);
}

function toHit(chunk: ChunkRecord, score: number, terms: Set<string>): KeywordHit {
  const { snippet, highlights } = snippetOf(plainText(chunk.text), terms);
  return {
    pageTitle: chunk.title,
    section: chunk.headingPath.length > 1 ? chunk.section : null,
    url: chunk.url,
    filePath: chunk.filePath,
    snippet,
    highlights,
    score: Math.round(score * 1000) / 1000,
  };
}

/** Markdown reduced to the prose a reader sees: no code blocks, heading marks, emphasis or link targets. */
export function plainText(markdown: string): string {
  return (
    markdown
      // Code is shown on the page; a snippet of it (`- arg: name: …`) reads as noise in a list.
      .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ")
      .replace(/^```.*$/gm, " ")
      .replace(/^#{1,6}\s+/gm, "")
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, " ")
      .replace(/`+/g, "")
      // Emphasis marks sit at a word's edge; an underscore inside one (`ament_python`) is its own.
      .replace(/(?<![\p{L}\p{N}])[*_]+|[*_]+(?![\p{L}\p{N}])/gu, " ")
      .replace(/[|>]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/**
 * The SNIPPET_WORDS-word window of `text` with the most distinct matched terms (the earliest among
 * equals), with the offsets of every matched word in it.
 */
export function snippetOf(
  text: string,
  terms: Set<string>,
): { snippet: string; highlights: [number, number][] } {
  // A plain word can only stand for a searched term that starts with its own first letter.
  const initials = new Set(Array.from(terms, (term) => term[0]));
  const words = Array.from(text.matchAll(/\S+/g), (match) => ({
    text: match[0],
    start: match.index ?? 0,
    term: termOf(match[0], terms, initials),
  }));
  if (words.length === 0) return { snippet: "", highlights: [] };
  // The window slides one word at a time, counting each term's words inside it, so a chunk costs
  // one pass rather than one pass per window.
  const inWindow = new Map<string, number>();
  let distinct = 0;
  const enter = (term: string | undefined) => {
    if (!term) return;
    const count = inWindow.get(term) ?? 0;
    if (count === 0) distinct++;
    inWindow.set(term, count + 1);
  };
  const leave = (term: string | undefined) => {
    if (!term) return;
    const count = inWindow.get(term) ?? 0;
    if (count === 1) distinct--;
    inWindow.set(term, count - 1);
  };
  for (const word of words.slice(0, SNIPPET_WORDS)) enter(word.term);
  let bestStart = 0;
  let bestScore = distinct;
  for (let start = 1; start + SNIPPET_WORDS <= words.length; start++) {
    leave(words[start - 1]?.term);
    enter(words[start + SNIPPET_WORDS - 1]?.term);
    if (distinct > bestScore) {
      bestScore = distinct;
      bestStart = start;
    }
  }
  const window = words.slice(bestStart, bestStart + SNIPPET_WORDS);
  const first = window[0] as (typeof window)[number];
  const last = window[window.length - 1] as (typeof window)[number];
  const prefix = bestStart > 0 ? "… " : "";
  const suffix = bestStart + SNIPPET_WORDS < words.length ? " …" : "";
  const body = text.slice(first.start, last.start + last.text.length);
  const highlights: [number, number][] = [];
  for (const word of window) {
    if (!word.term) continue;
    const core = /[\p{L}\p{N}][\p{L}\p{N}_'’-]*[\p{L}\p{N}]|[\p{L}\p{N}]/u.exec(word.text);
    if (!core) continue;
    const start = prefix.length + word.start - first.start + core.index;
    highlights.push([start, start + core[0].length]);
  }
  return { snippet: `${prefix}${body}${suffix}`, highlights };
}

/** The searched term a word of the text stands for, if any. */
function termOf(
  word: string,
  terms: Set<string>,
  initials: Set<string | undefined>,
): string | undefined {
  const initial = plainWordInitial(word);
  if (initial !== undefined && !initials.has(initial)) return undefined;
  for (const term of analyzedWord(word)) if (terms.has(term)) return term;
  return undefined;
}

/**
 * A word's terms. Plain words take analyzeWord's short cut; the others (identifiers, accents,
 * other scripts) are remembered, as snippets analyse the same words of the book again and again.
 */
function analyzedWord(word: string): string[] {
  return analyzeWord(word, rememberedAnalysis);
}

const wordTerms = new Map<string, string[]>();
function rememberedAnalysis(word: string): string[] {
  let terms = wordTerms.get(word);
  if (!terms) {
    terms = analyze(word);
    if (wordTerms.size >= 50_000) wordTerms.clear();
    wordTerms.set(word, terms);
  }
  return terms;
}
