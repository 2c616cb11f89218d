import type { ChunkRecord, PageSummary } from "../book/records.ts";
import { cachedIn } from "../util/bounded-cache.ts";

/**
 * Questions a reader can click instead of typing: starters for an empty conversation (the book as
 * a whole, then the opening page of each of its main parts) and follow-ups under an answer (the
 * sections that come after the one the answer quotes). Without a model they are made from the
 * book's own titles and headings, so each one is answered by the section it names.
 */

export const OVERVIEW_QUESTION = "What is this book about?";

/** How a suggestion asks about a heading ("Topics and Messages" → "…about topics and messages?"). */
export const ABOUT_PREFIX = "What should I know about";
export function questionAbout(title: string): string {
  const clean = title.replace(/\s+/g, " ").trim();
  if (/\?$/.test(clean)) return clean;
  if (ASKING.test(clean)) return `${clean.replace(/[.:!]+$/, "")}?`;
  // Title Case words go lower case ("Topics and Messages"), a sentence-case heading's first capital
  // only ("A first Python launch file"); acronyms, names with inner capitals and code stay.
  const words = clean.replace(/[.:!]+$/, "").split(" ");
  const capitalised = (word: string) => /^[A-Z][a-z]*(?:[-'’][a-z]+)*$/.test(word);
  const long = words.filter(
    (word) => /^[A-Za-z][a-z-]{2,}$/.test(word) && !SMALL_WORDS.has(word.toLowerCase()),
  );
  const titleCase = long.length >= 2 && long.every(capitalised);
  const phrase = words
    .map((word, index) =>
      capitalised(word) && (titleCase || index === 0) && !isToolName(words, index)
        ? word.toLowerCase()
        : word,
    )
    .join(" ");
  return `${ABOUT_PREFIX} ${phrase}?`;
}

/** A heading worded as a question, asked as it is ("What a simulator does" is none). */
const ASKING =
  /^(?:(?:how|what|why|when|where|which|who)(?!\s+(?:an?|the|this|each)\s)|can|should|do|does|is|are)\b/i;

/** Words Title Case leaves in lower case. */
const SMALL_WORDS = new Set(
  "a an the and or but nor for of on in at to by up as via vs with from into onto over than".split(
    " ",
  ),
);

/** A capitalised word after "with", "in" or "using" names a tool ("in Gazebo"): kept as it is. */
function isToolName(words: string[], index: number): boolean {
  const previous = words[index - 1]?.toLowerCase();
  const word = words[index] ?? "";
  return (previous === "with" || previous === "in" || previous === "using") && word.length > 2;
}

/**
 * Up to `max` starter questions: what the book is about, then the first page of each top-level
 * part in the book's order (the introduction page aside).
 */
export function starterQuestions(pages: PageSummary[], introPath: string, max = 4): string[] {
  const questions = [OVERVIEW_QUESTION];
  const firstOfPart = new Map<string, PageSummary>();
  for (const page of pages) {
    if (page.filePath === introPath) continue;
    const part = page.categories[0] ?? "";
    const known = firstOfPart.get(part);
    if (!known || (page.position ?? Infinity) < (known.position ?? Infinity)) {
      firstOfPart.set(part, page);
    }
  }
  for (const page of firstOfPart.values()) {
    if (questions.length >= max) break;
    const question = questionAbout(page.title);
    if (!questions.includes(question)) questions.push(question);
  }
  return questions;
}

/**
 * Up to `max` follow-ups to an answer quoting `cited`: the headings of the sections after it on
 * its page (what its reader would read next), then those before it; none the answer `shown`.
 */
export function followUpQuestions(
  cited: ChunkRecord,
  pageChunks: ChunkRecord[],
  max = 3,
  shown: string[] = [],
): string[] {
  const ordered = [...pageChunks].sort((left, right) => left.chunkIndex - right.chunkIndex);
  const after = ordered.filter((chunk) => chunk.chunkIndex > cited.chunkIndex);
  const before = ordered.filter((chunk) => chunk.chunkIndex < cited.chunkIndex).reverse();
  const seen = new Set([cited.section, ...innerHeadings(cited.text), ...shown]);
  // A heading that stands over several sections of the page ("Arguments" under each function)
  // names none of them: a question about it is answered by whichever comes first.
  const repeated = repeatedHeadings(ordered);
  const questions: string[] = [];
  for (const chunk of [...after, ...before]) {
    for (const heading of [chunk.section, ...innerHeadings(chunk.text)]) {
      if (questions.length >= max) return questions;
      if (!heading || seen.has(heading) || heading === chunk.title) continue;
      if (repeated.has(heading.toLowerCase())) continue;
      seen.add(heading);
      questions.push(cachedQuestionAbout(heading));
    }
  }
  return questions;
}

/**
 * The headings of more than one section of a page, told apart by their anchors, lower-cased: a
 * reader asks about "Further Information" as about "Further information".
 */
function repeatedHeadings(pageChunks: ChunkRecord[]): Set<string> {
  const anchors = new Map<string, Set<string>>();
  const place = (heading: string, anchor: string) => {
    const key = heading.toLowerCase();
    const known = anchors.get(key);
    if (known) known.add(anchor);
    else anchors.set(key, new Set([anchor]));
  };
  for (const chunk of pageChunks) {
    place(chunk.section, chunk.url.split("#")[1] ?? "");
    for (const merged of chunk.sectionAnchors ?? []) place(merged.heading, merged.anchor);
  }
  return new Set([...anchors].filter(([, places]) => places.size > 1).map(([heading]) => heading));
}

// The same few pages' headings and questions come back answer after answer: worked out once.
const headingsOfText = new Map<string, string[]>();
const questionsAbout = new Map<string, string>();
const CACHE_LIMIT = 5_000;

function innerHeadings(text: string): string[] {
  return cachedIn(headingsOfText, text, CACHE_LIMIT, (chunkText) =>
    Array.from(chunkText.matchAll(/^#{2,6} +(.+?)\s*$/gm), (match) => match[1] ?? ""),
  );
}

function cachedQuestionAbout(heading: string): string {
  return cachedIn(questionsAbout, heading, CACHE_LIMIT, questionAbout);
}
