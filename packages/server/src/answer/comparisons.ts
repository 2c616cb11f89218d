import { analyzeQuery } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { type Candidate, forEachWindow, parsedChunk, type Unit } from "./units.ts";

/**
 * Questions comparing things ("What is the difference between the map frame and the odom
 * frame?", "Path versus trajectory?"): the book answers them where it names all of them, often in
 * a section of a result's page other than the one the search ranked (one source per page), such
 * as the table of standard frames next to the section on looking transforms up.
 */

const DIFFERENCE = /\bdifference between\s+(.+?)(?:\s+(?:for|in|when|on|of)\s+[^,]+)?\s*[?.!]*$/i;
const VERSUS = /^(?:what(?:'s| is)\s+)?(.+?)\s+(?:versus|vs\.?)\s+(.+?)(?:\s*[:?.!].*)?$/i;
/** How many chunks of the results' pages a comparison may add to the candidates. */
const MAX_COMPARING_CHUNKS = 3;
/** Only the pages of the first results: a lower one seldom holds the comparison. */
const PAGES_LOOKED_AT = 3;

/**
 * The things a question compares, each as its words (stemmed), less the words they all share
 * ("frame" in "the map frame and the odom frame"); none when it compares nothing.
 */
export function comparedItems(question: string): string[][] {
  const items = comparedPhrases(question)
    .map((item) => analyzeQuery(item).words)
    .filter((words) => words.length > 0);
  if (items.length < 2) return [];
  const shared = items.reduce((common, words) => common.filter((word) => words.includes(word)));
  const distinct = items.map((words) => words.filter((word) => !shared.includes(word)));
  if (distinct.every((words) => words.length > 0)) return distinct;
  // One thing is part of the other's name ("an action and an action creator"): it keeps its
  // words, and the others are told apart by the words they add ("creator").
  const inner = items.filter((_, index) => distinct[index]?.length === 0);
  if (inner.length !== 1 || !inner[0]) return [];
  const innerWords = inner[0];
  const apart = items.map((words, index) =>
    distinct[index]?.length === 0 ? words : words.filter((word) => !innerWords.includes(word)),
  );
  return apart.every((words) => words.length > 0) ? apart : [];
}

/** The things a question compares as the reader wrote them ("a topic", "a service"). */
export function comparedPhrases(question: string): string[] {
  const text = question.trim().replace(/\s+/g, " ");
  const difference = DIFFERENCE.exec(text);
  const versus = difference ? null : VERSUS.exec(text);
  const raw = difference
    ? (difference[1] ?? "").split(/,\s*(?:and\s+)?|\s+and\s+/)
    : versus
      ? [versus[1] ?? "", versus[2] ?? ""]
      : [];
  return raw.map((item) => item.trim());
}

/**
 * When the first result does not compare the things (`comparesIn`, with `characterises` telling
 * whether a unit says what one of them is): the chunks of the first results' pages that name them
 * all, each weighed as the result whose page it is on. A lower result naming them all does not
 * stop this: it often names them in passing (a troubleshooting item's "no `map → odom`").
 */
export function comparingChunks(
  items: string[][],
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
  maxSentences: number,
  characterises: (unit: Unit) => boolean = () => true,
): Candidate[] {
  const namesAll = (terms: Set<string>) =>
    items.every((words) => words.some((word) => terms.has(word)));
  const quotable = (result: RetrievedChunk) =>
    comparesIn(parsedChunk(result.chunk).units, maxSentences, namesAll, characterises);
  if (results[0] && quotable(results[0])) return [];
  const seen = new Set(results.map((result) => result.chunk.id));
  const pages = new Set<string>();
  const found: Candidate[] = [];
  for (const [rank, result] of results.slice(0, PAGES_LOOKED_AT).entries()) {
    if (pages.has(result.chunk.filePath)) continue;
    pages.add(result.chunk.filePath);
    for (const chunk of pageChunks(result.chunk.filePath)) {
      if (found.length >= MAX_COMPARING_CHUNKS) return found;
      if (seen.has(chunk.id)) continue;
      const parsed = parsedChunk(chunk);
      if (!namesAll(parsed.allTerms)) continue;
      seen.add(chunk.id);
      found.push({ result: { ...result, chunk }, parsed, rank });
    }
  }
  return found;
}

/**
 * Whether some passage of the units (a window an answer could quote) names every compared thing
 * and says what one of them is (`characterises`): a passage naming them all in passing ("Quality
 * of Service" beside a table row for topics) compares nothing.
 */
function comparesIn(
  units: Unit[],
  maxSentences: number,
  namesAll: (terms: Set<string>) => boolean,
  characterises: (unit: Unit) => boolean,
): boolean {
  const says = units.map(characterises);
  let found = false;
  forEachWindow(units, maxSentences, (start, end) => {
    if (found || !says.slice(start, end + 1).some(Boolean)) return;
    const terms = new Set<string>();
    for (const unit of units.slice(start, end + 1))
      for (const term of [...unit.terms, ...unit.attachmentTerms]) terms.add(term);
    found = namesAll(terms);
  });
  return found;
}

/**
 * Whether the unit, or the list or code it introduces, names one of the things a comparison
 * question compares.
 */
export function namesCompared(items: string[][], unit: Unit): boolean {
  return items.some((words) =>
    words.some((word) => unit.terms.has(word) || unit.attachmentTerms.has(word)),
  );
}
