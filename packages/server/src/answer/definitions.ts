import { analyze, plainWordForm } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { cachedIn } from "../util/bounded-cache.ts";
import { shareOf, type WeightedQuestion } from "./question-weights.ts";
import { type Candidate, parsedChunk, type Unit } from "./units.ts";

/**
 * Definitions for "what is X" questions: how clearly a sentence defines X, and the chunks of the
 * results' pages where a definition usually sits (page opening, section start, glossary entry).
 */

/** Nouns that name what kind of thing a term is, not which: "a reducer function", "the URDF file". */
const GENERIC_HEADS = new Set(analyze("function file object value type class pattern concept"));

/**
 * How clearly a unit defines the question's subject: up to 1 for "X is …" where X is the subject
 * and little else ("The ros2 topic command is …" does not define "topic"), 0.8 for an apposition
 * naming it alone.
 */
export function definitionStrength(query: WeightedQuestion, unit: Unit): number {
  const subject = query.subject;
  if (!subject) return 0;
  let strength = 0;
  for (const named of unit.definienda) {
    const terms = named.terms;
    const recall = shareOf(subject, query.subjectTotal, terms);
    if (recall < 0.5) continue;
    // A generic head noun ("A thunk function is …") does not make the subject another thing.
    let matched = 0;
    let counted = 0;
    for (const term of terms) {
      if (query.subjectWords.has(term)) matched++;
      if (query.subjectWords.has(term) || !GENERIC_HEADS.has(term)) counted++;
    }
    const purity = counted === 0 ? 0 : matched / counted;
    strength = Math.max(strength, recall * purity);
  }
  for (const named of unit.appositions) {
    const terms = named.terms;
    // Weaker than a copula: "the robot's centre, a point …" is an aside more often than a definition.
    if (shareOf(subject, query.subjectTotal, terms) >= 0.5 && terms.size === 1)
      strength = Math.max(strength, 0.8 * shareOf(subject, query.subjectTotal, terms));
  }
  return strength;
}

/** Whether a word of a title or heading is the subject's word in another form ("Immutable"). */
function otherForm(query: WeightedQuestion, word: string): boolean {
  const plain = plainWordForm(word);
  const wanted = plain && query.subjectForms.get(plain.term);
  return wanted !== undefined && plain !== undefined && wanted !== plain.form;
}

/**
 * A unit this strong defines the subject: a copula or an apposition naming it and little else, or
 * its acronym spelled out ("The QoS mismatch is …" and a paragraph opening on X only mention it).
 */
export const DEFINES = 0.8;

/** Glossary pages, by title: each of their entries defines one term. */
export const GLOSSARY_TITLE = /\b(?:glossary|terminology|definitions)\b/i;
/** Most chunks of the results' pages added for a definition question. */
const MAX_DEFINING_CHUNKS = 4;
/** Most of them from sections headed by X alone (a book may repeat a section in two tutorials). */
const MAX_HEADED_SECTIONS = 2;

/**
 * For a definition question, the chunks of the results' pages where the definition of X usually
 * sits, when they are not among the results themselves: the opening chunk of a page whose title
 * names X ("Describing a Robot with URDF"), the first chunk of a section whose heading names X
 * when the result only continues it, and the chunk of a glossary page whose entry defines X. Each
 * is weighed as the result that led to it (same rank and similarity). The book's glossary pages
 * (`glossaryPages`) are looked up too: a glossary entry that defines X is weighed as the first
 * result, also when the glossary page is itself a lower result (a glossary's sections hold many
 * entries, so the one that matters ranks low among the passages that only use the term). So are
 * `headedSections`, the chunks opening a page or section of the book titled X alone, wherever
 * they are: such a section says what X is, while the results may only use X or a word of the same
 * stem ("immutable" for immutability).
 */
export function definingChunks(
  query: WeightedQuestion,
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
  glossaryPages: string[] = [],
  headedSections: ChunkRecord[] = [],
): Candidate[] {
  const seen = new Set(results.map((result) => result.chunk.id));
  const pages = new Map<string, ChunkRecord[]>();
  const pageOf = (filePath: string) => {
    let page = pages.get(filePath);
    if (!page) {
      page = pageChunks(filePath);
      pages.set(filePath, page);
    }
    return page;
  };
  const found: Candidate[] = [];
  const promoted = new Set<string>();
  // The glossary first: its entry is where the book itself defines the term.
  const first = results[0];
  for (const filePath of glossaryPages) {
    if (!first || found.length >= MAX_DEFINING_CHUNKS) break;
    const entry = glossaryEntry(query, pageOf(filePath));
    // Already a candidate of its own only when it is the first result.
    if (!entry || entry.id === first.chunk.id || promoted.has(entry.id)) continue;
    promoted.add(entry.id);
    seen.add(entry.id);
    found.push({ result: { ...first, chunk: entry }, parsed: parsedChunk(entry), rank: 0 });
  }
  // Then the sections the book heads with X alone, anywhere in it: each opens on what X is.
  for (const section of headedSections.slice(0, MAX_HEADED_SECTIONS)) {
    if (!first || found.length >= MAX_DEFINING_CHUNKS || seen.has(section.id)) continue;
    seen.add(section.id);
    found.push({ result: { ...first, chunk: section }, parsed: parsedChunk(section), rank: 0 });
  }
  for (const [rank, result] of results.entries()) {
    const { chunk } = result;
    const wanted: (ChunkRecord | undefined)[] = [];
    if (namesSubject(query, chunk.title)) wanted.push(pageOf(chunk.filePath)[0]);
    const heading = chunk.headingPath.length > 1 ? chunk.headingPath.at(-1) : undefined;
    if (heading && namesSubject(query, heading))
      wanted.push(sectionStart(pageOf(chunk.filePath), chunk));
    if (GLOSSARY_TITLE.test(chunk.title)) wanted.push(glossaryEntry(query, pageOf(chunk.filePath)));
    // A section of the page headed by X ("Transforms in a nutshell") is where the page explains it.
    else wanted.push(sectionHeadedBy(query, pageOf(chunk.filePath)));
    for (const extra of wanted) {
      if (!extra || seen.has(extra.id) || found.length >= MAX_DEFINING_CHUNKS) continue;
      seen.add(extra.id);
      found.push({ result: { ...result, chunk: extra }, parsed: parsedChunk(extra), rank });
    }
  }
  return found;
}

/** Whether a title or heading names the question's subject (all of it, or its acronym spelled out). */
export function namesSubject(query: WeightedQuestion, text: string): boolean {
  if (!query.subject) return false;
  if (query.acronym?.test(text)) return true;
  const terms = termsOfTitle(text);
  return (
    [...query.subjectIdentifiers].every((identifier) => terms.has(identifier)) &&
    shareOf(query.subject, query.subjectTotal, terms) >= 0.5
  );
}

/**
 * Whether a title or heading is about the subject: it opens with it ("Transforms in a nutshell",
 * "Launch Files", "The zero moment point" for ZMP) rather than only mentioning it ("Looking up a
 * transform").
 */
export function headedBy(query: WeightedQuestion, text: string): boolean {
  if (!query.subject) return false;
  const bare = text.trim().replace(/^(?:the|an?)\s+/i, "");
  if (query.acronym?.exec(bare)?.index === 0) return true;
  // All of X: "createStore" shares a word with "createSlice" but is another thing.
  const terms = termsOfTitle(text);
  if (shareOf(query.subject, query.subjectTotal, terms) < 1) return false;
  // "Dispatching Function" is not about useDispatch.
  if (![...query.subjectIdentifiers].every((identifier) => terms.has(identifier))) return false;
  // Its first word is a word of X, all of it: "`createSlice.reducers` callback syntax" is about a
  // part of createSlice.
  const words = bare.split(/\s+/);
  const first = analyze(words[0] ?? "");
  if (first.length === 0 || !first.every((term) => query.subjectWords.has(term))) return false;
  // X is what the heading is about, not a word qualifying another noun ("Entity adapter type
  // updates"): after X's words the heading ends, or goes on with a joining word or an "about"
  // word ("Transforms in a nutshell", "Executors and callback groups", "RTK Query Overview").
  let index = 0;
  while (index < words.length) {
    const word = words[index] ?? "";
    const terms = analyze(word);
    // A generic head noun belongs to X: "Launch Files" for a launch file.
    const ofX = (term: string) => query.subjectWords.has(term) || GENERIC_HEADS.has(term);
    if (terms.length === 0 || !terms.every(ofX) || otherForm(query, word)) break;
    index++;
    if (/[,:;—–)]$/.test(word)) return true;
  }
  const next = words[index];
  return next === undefined || AFTER_HEAD.test(next);
}

/** Words that may follow X in a heading about X. */
const AFTER_HEAD =
  /^(?:and|or|in|with|for|of|vs\.?|versus|as|at|from|on|overview|introduction|basics|fundamentals|concepts?|explained|essentials|[—–(:-])/i;

/** The first chunk of a page holding a section headed by the subject, if one does. */
function sectionHeadedBy(query: WeightedQuestion, page: ChunkRecord[]): ChunkRecord | undefined {
  return page.find((chunk) =>
    parsedChunk(chunk).headings.some(
      (heading, index) =>
        (index > 0 || chunk.headingPath.length > 1) &&
        heading !== undefined &&
        headedBy(query, heading),
    ),
  );
}

// The titles and headings of the results' pages (and of the glossary) come back question after
// question: each is analysed once.
const titleTerms = new Map<string, Set<string>>();

function termsOfTitle(text: string): Set<string> {
  return cachedIn(titleTerms, text, 5_000, (title) => new Set(analyze(title)));
}

/** The first of the consecutive chunks of a page that share `chunk`'s heading path. */
function sectionStart(page: ChunkRecord[], chunk: ChunkRecord): ChunkRecord {
  const path = chunk.headingPath.join("\n");
  let start = chunk;
  for (let index = page.findIndex((other) => other.id === chunk.id) - 1; index >= 0; index--) {
    const previous = page[index];
    if (!previous || previous.headingPath.join("\n") !== path) break;
    start = previous;
  }
  return start;
}

/** The chunk of a glossary page whose entry defines the subject, if one does. */
function glossaryEntry(query: WeightedQuestion, page: ChunkRecord[]): ChunkRecord | undefined {
  let best: ChunkRecord | undefined;
  let bestStrength = 0;
  for (const chunk of page) {
    const heading = chunk.headingPath.length > 1 ? chunk.headingPath.at(-1) : undefined;
    let strength = heading && namesSubject(query, heading) ? 0.8 : 0;
    for (const unit of parsedChunk(chunk).units)
      strength = Math.max(strength, definitionStrength(query, unit));
    if (strength > bestStrength) {
      best = chunk;
      bestStrength = strength;
    }
  }
  return bestStrength >= 0.8 ? best : undefined;
}
