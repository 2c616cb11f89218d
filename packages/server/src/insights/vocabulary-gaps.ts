import { analyze } from "@lectern/engine/search/analyzer";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import type { Retriever } from "@lectern/engine/search/retriever";
import type { Synonyms } from "@lectern/engine/search/synonyms";
import { urlPath } from "@lectern/engine/util/url-path";
import type { ChunkRecord } from "../store/document-store.ts";

/**
 * Vocabulary gaps: words readers use that the book never does (the retriever reports them as
 * `unknownWords`). For each, the question is searched again without its unknown words, and the
 * pages the other words point to say where the reader was heading. When they point somewhere, the
 * word most characteristic of those passages is proposed as the book's word for it, an entry for
 * lectern.synonyms.yml; when they point nowhere, the book may lack the subject: a glossary entry.
 */

export interface GapPage {
  title: string;
  url: string;
  /** Questions with this word that pointed to the page. */
  count: number;
}

export interface VocabularyGap {
  /** As readers wrote it (lower-cased). */
  word: string;
  /** Times it was asked. */
  count: number;
  /** Distinct questions using it, most asked first (at most 5). */
  questions: string[];
  pages: GapPage[];
  proposal: { kind: "synonym"; phrase: string } | { kind: "glossary" };
}

export interface GapQuestion {
  question: string;
  unknownWords: string[];
  /** Whether it was refused as not covered by the book: its words name no book subject. */
  refused?: boolean;
}

const QUESTIONS_SEARCHED = 5;

export function vocabularyGaps(
  questions: readonly GapQuestion[],
  book: { index: LexicalIndex; retriever: Retriever; synonyms: Synonyms },
): VocabularyGap[] {
  const known = (term: string) => book.index.documentFrequencyOf(term) > 0;
  const byWord = new Map<string, { count: number; questions: Map<string, number> }>();
  const stillUnknown = new Map<string, boolean>();
  // Since it was asked, the book may have come to use the word, or the author approved a synonym.
  const isGap = (written: string) => {
    let gap = stillUnknown.get(written);
    if (gap === undefined) {
      const terms = analyze(written);
      gap = terms.length > 0 && !terms.every(known) && !book.synonyms.expand(written, known);
      stillUnknown.set(written, gap);
    }
    return gap;
  };
  for (const entry of questions) {
    if (entry.unknownWords.length === 0) continue;
    for (const written of new Set(entry.unknownWords.map((word) => word.toLowerCase()))) {
      if (!isGap(written)) continue;
      const gap = byWord.get(written) ?? { count: 0, questions: new Map() };
      gap.count++;
      gap.questions.set(entry.question, (gap.questions.get(entry.question) ?? 0) + 1);
      byWord.set(written, gap);
    }
  }
  const unknownOf = new Map(questions.map((entry) => [entry.question, entry.unknownWords]));
  // A question the book was found not to cover ("pizza toppings?") says nothing about which of
  // its words the book has another name for: only answered ones are searched again.
  const answered = new Set(
    questions.filter((entry) => !entry.refused).map((entry) => entry.question),
  );
  const gaps: VocabularyGap[] = [];
  for (const [word, gap] of byWord) {
    const asked = [...gap.questions.entries()]
      .sort((left, right) => right[1] - left[1])
      .map(([question]) => question);
    const pages = new Map<string, GapPage>();
    const pointedChunks: ChunkRecord[] = [];
    const questionTerms = new Set<string>();
    for (const question of asked
      .filter((asked) => answered.has(asked))
      .slice(0, QUESTIONS_SEARCHED)) {
      const rest = withoutWords(question, unknownOf.get(question) ?? [word]);
      const restTerms = analyze(rest);
      for (const term of restTerms) questionTerms.add(term);
      // One word left says too little about where the reader was heading ("pay by invoice").
      if (new Set(restTerms.filter(known)).size < 2) continue;
      const found = book.retriever.searchLexical(rest, { topK: 3 });
      // Only a confident match says where the reader was heading.
      if (found.decision !== "answer" || found.lowConfidence) continue;
      const seen = new Set<string>();
      for (const result of found.results) {
        pointedChunks.push(result.chunk);
        const url = urlPath(result.chunk.url).split("#")[0] ?? result.chunk.url;
        if (seen.has(url)) continue;
        seen.add(url);
        const page = pages.get(url) ?? { title: result.chunk.title, url, count: 0 };
        page.count++;
        pages.set(url, page);
      }
    }
    const phrase = characteristicWord(book.index, pointedChunks, questionTerms);
    gaps.push({
      word,
      count: gap.count,
      questions: asked.slice(0, 5),
      pages: [...pages.values()].sort((left, right) => right.count - left.count).slice(0, 3),
      proposal: phrase ? { kind: "synonym", phrase } : { kind: "glossary" },
    });
  }
  return gaps.sort(
    (left, right) => right.count - left.count || left.word.localeCompare(right.word),
  );
}

/** The question with these words taken out. */
function withoutWords(question: string, words: readonly string[]): string {
  let rest = question;
  for (const word of words) {
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    rest = rest.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "giu"), " ");
  }
  return rest.replace(/\s+/g, " ").trim();
}

/**
 * The word most characteristic of the passages the question's other words found: named in the
 * page path, title or headings of at least half of them (where a book names its subjects), not
 * one of the question's own words, the rarest in the book weighing most; returned as the book
 * writes it. Undefined when those passages share no such name.
 */
function characteristicWord(
  index: LexicalIndex,
  chunks: readonly ChunkRecord[],
  questionTerms: ReadonlySet<string>,
): string | undefined {
  if (chunks.length === 0) return undefined;
  const presence = new Map<string, number>();
  const written = new Map<string, string>();
  for (const chunk of chunks) {
    const names = `${urlPath(chunk.url)
      .split("#")[0]
      ?.replace(/[/_-]+/g, " ")} ${chunk.title} ${chunk.headingPath.join(" ")}`;
    const terms = new Set<string>();
    for (const match of names.matchAll(/\p{L}{3,}/gu)) {
      const [term] = analyze(match[0]);
      if (!term || questionTerms.has(term) || index.documentFrequencyOf(term) === 0) continue;
      terms.add(term);
      // The form the book writes in its headings, not the URL's.
      if (!written.has(term) || /[A-Z]/.test(match[0])) written.set(term, match[0].toLowerCase());
    }
    for (const term of terms) presence.set(term, (presence.get(term) ?? 0) + 1);
  }
  let best: { term: string; score: number } | undefined;
  for (const [term, count] of presence) {
    if (count * 2 < chunks.length) continue;
    const score = count * index.idf(term);
    if (!best || score > best.score || (score === best.score && term < best.term)) {
      best = { term, score };
    }
  }
  return best && (written.get(best.term) ?? best.term);
}

/** The proposals as lines of lectern.synonyms.yml, each with a comment saying where it came from. */
export function synonymsProposal(gaps: readonly VocabularyGap[]): string {
  if (gaps.length === 0) return "";
  const lines = [
    "# Proposed from readers' questions: check each one, then copy it into lectern.synonyms.yml.",
  ];
  for (const gap of gaps) {
    const asked = `asked ${gap.count} time${gap.count === 1 ? "" : "s"}`;
    if (gap.proposal.kind === "synonym") {
      const where = gap.pages.map((page) => page.url).join(", ");
      lines.push(
        `${yamlScalar(gap.word)}: ${yamlScalar(gap.proposal.phrase)}  # ${asked}${where ? `; points to ${where}` : ""}`,
      );
    } else {
      const where = gap.pages.map((page) => page.url).join(", ");
      lines.push(
        where
          ? `# ${yamlScalar(gap.word)}: ${asked}; its questions point to ${where}: map it to the book's word for it here, or define it in the glossary`
          : `# ${yamlScalar(gap.word)}: ${asked}; nothing in the book matches: define it in the glossary, or map it to the book's word here`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

function yamlScalar(text: string): string {
  return /^[\p{L}\p{N}][\p{L}\p{N} _.'-]*$/u.test(text) &&
    !/^(?:yes|no|true|false|null|on|off|~)$/i.test(text)
    ? text
    : JSON.stringify(text);
}
