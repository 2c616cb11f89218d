import { createError } from "@lectern/engine/errors";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import type { Retriever } from "@lectern/engine/search/retriever";
import type { Synonyms } from "@lectern/engine/search/synonyms";
import { urlPath } from "@lectern/engine/util/url-path";
import type { PageSummary } from "../store/document-store.ts";
import type { LoggedQuestion } from "../store/question-log-store.ts";
import { groupTopics, type TopicsMethod, type TopicsOptions } from "./embedding-topics.ts";
import { type AskedQuestion, countQuestions, questionKey, type Topic } from "./topics.ts";
import { synonymsProposal, type VocabularyGap, vocabularyGaps } from "./vocabulary-gaps.ts";

/**
 * What readers asked over a period, for the book's authors: `lectern insights` prints it and
 * GET /admin draws it. Everything comes from the question log (questions redacted when logged),
 * the feedback joined to it, and the book as it is now.
 */

export interface UnansweredQuestion {
  text: string;
  count: number;
  /** ISO time of the last time it was asked. */
  lastAsked: string;
  /** `no_results`: the book was not found to cover it; `low_confidence`: a loose match. */
  kind: "no_results" | "low_confidence";
}

export interface PageRef {
  title: string;
  url: string;
}

export interface StaleAnswer {
  question: string;
  askedAt: string;
  /** The cited pages whose passages changed (or went away) since the answer. */
  pages: (PageRef & { change: "changed" | "removed" })[];
}

export interface InsightsReport {
  /** The book's title, when it has one. */
  title: string | null;
  period: { since: string; until: string };
  totals: {
    questions: number;
    answered: number;
    lowConfidence: number;
    unanswered: number;
    thumbsUp: number;
    thumbsDown: number;
  };
  /** One entry per UTC day of the period, oldest first. */
  perDay: { day: string; answered: number; lowConfidence: number; unanswered: number }[];
  topics: Topic[];
  /** How the topics were grouped: by the questions' embeddings, or by their shared terms. */
  topicsMethod: TopicsMethod;
  /** Questions in no topic. */
  otherQuestions: AskedQuestion[];
  /** Most frequent first, then newest. */
  unanswered: UnansweredQuestion[];
  /** Newest first. */
  thumbsDown: { question: string; comment: string | null; askedAt: string; pages: PageRef[] }[];
  pages: { mostCited: (PageRef & { count: number })[]; neverCited: PageRef[] };
  vocabularyGaps: VocabularyGap[];
  /** Newest first. */
  staleAnswers: StaleAnswer[];
  /** The vocabulary gaps as lines of lectern.synonyms.yml. */
  synonymsProposal: string;
  /**
   * On a book with more than one docs version or locale: the questions of each version and locale
   * they were answered in, with their own unanswered questions and vocabulary gaps, most asked
   * first. Absent for a book with one of each.
   */
  slices?: SliceInsights[];
}

/** The questions answered in one docs version and locale (null: the book has no such slices). */
export interface SliceInsights {
  version: string | null;
  locale: string | null;
  questions: number;
  unanswered: UnansweredQuestion[];
  vocabularyGaps: VocabularyGap[];
}

export interface BookNow {
  index: LexicalIndex;
  retriever: Retriever;
  synonyms: Synonyms;
  pages: PageSummary[];
  title?: string | undefined;
  /** The book has more than one docs version or locale: the report is also split by them. */
  sliced?: boolean;
}

const LIST_LIMIT = 50;
const MAX_CHART_DAYS = 366;

/** `7d`, `12h`, `2w`, `30m` → milliseconds; a bad value is VALIDATION_ERROR. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(m|h|d|w)$/i.exec(text.trim());
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !(amount > 0)) {
    throw createError(
      "VALIDATION_ERROR",
      `Invalid period "${text}": use a number and a unit, such as 30m, 12h, 7d or 2w.`,
      { details: { field: "since" } },
    );
  }
  const unit = (match[2] ?? "d").toLowerCase();
  const minutes = { m: 1, h: 60, d: 1_440, w: 10_080 }[unit as "m" | "h" | "d" | "w"];
  return amount * minutes * 60_000;
}

export async function buildInsights(
  questions: readonly LoggedQuestion[],
  book: BookNow,
  period: { since: Date; until: Date },
  topicsOptions: TopicsOptions = {},
): Promise<InsightsReport> {
  const unanswered = questions.filter((entry) => entry.mode === "no_results");
  const lowConfidence = questions.filter(
    (entry) => entry.mode !== "no_results" && entry.lowConfidence,
  );
  const weight = (term: string) =>
    book.index.documentFrequencyOf(term) > 0 ? book.index.idf(term) : undefined;
  const { topics, other, method } = await groupTopics(
    countQuestions(questions.map((entry) => entry.question)),
    weight,
    topicsOptions,
  );
  const gaps = vocabularyGaps(
    questions.map((entry) => ({
      question: entry.question,
      unknownWords: entry.unknownWords,
      refused: entry.mode === "no_results",
    })),
    book,
  );
  return {
    title: book.title ?? null,
    period: { since: period.since.toISOString(), until: period.until.toISOString() },
    totals: {
      questions: questions.length,
      answered: questions.length - unanswered.length - lowConfidence.length,
      lowConfidence: lowConfidence.length,
      unanswered: unanswered.length,
      thumbsUp: questions.filter((entry) => entry.rating === "up").length,
      thumbsDown: questions.filter((entry) => entry.rating === "down").length,
    },
    perDay: perDay(questions, period),
    topics,
    topicsMethod: method,
    otherQuestions: other.slice(0, LIST_LIMIT),
    unanswered: unansweredQuestions([...unanswered, ...lowConfidence]),
    thumbsDown: questions
      .filter((entry) => entry.rating === "down")
      .reverse()
      .slice(0, LIST_LIMIT)
      .map((entry) => ({
        question: entry.question,
        comment: entry.comment,
        askedAt: entry.askedAt.toISOString(),
        pages: citedPages(entry),
      })),
    pages: pageCitations(questions, book.pages),
    vocabularyGaps: gaps.slice(0, LIST_LIMIT),
    staleAnswers: staleAnswers(questions, book.index),
    synonymsProposal: synonymsProposal(gaps.slice(0, LIST_LIMIT)),
    ...(book.sliced ? { slices: sliceInsights(questions, book) } : {}),
  };
}

/** The report's unanswered questions and vocabulary gaps for each version and locale asked in. */
function sliceInsights(questions: readonly LoggedQuestion[], book: BookNow): SliceInsights[] {
  const bySlice = new Map<string, LoggedQuestion[]>();
  for (const entry of questions) {
    const key = JSON.stringify([entry.version ?? null, entry.locale ?? null]);
    bySlice.set(key, [...(bySlice.get(key) ?? []), entry]);
  }
  return [...bySlice.entries()]
    .map(([key, entries]) => {
      const [version, locale] = JSON.parse(key) as [string | null, string | null];
      const gaps = vocabularyGaps(
        entries.map((entry) => ({
          question: entry.question,
          unknownWords: entry.unknownWords,
          refused: entry.mode === "no_results",
        })),
        book,
      );
      return {
        version,
        locale,
        questions: entries.length,
        unanswered: unansweredQuestions(
          entries.filter((entry) => entry.mode === "no_results" || entry.lowConfidence),
        ),
        vocabularyGaps: gaps.slice(0, LIST_LIMIT),
      };
    })
    .sort((left, right) => right.questions - left.questions);
}

function perDay(
  questions: readonly LoggedQuestion[],
  period: { since: Date; until: Date },
): InsightsReport["perDay"] {
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);
  const days = new Map<string, InsightsReport["perDay"][number]>();
  const first = Date.parse(`${dayOf(period.since)}T00:00:00Z`);
  const last = Date.parse(`${dayOf(period.until)}T00:00:00Z`);
  for (
    let time = Math.max(first, last - (MAX_CHART_DAYS - 1) * 86_400_000);
    time <= last;
    time += 86_400_000
  ) {
    const day = dayOf(new Date(time));
    days.set(day, { day, answered: 0, lowConfidence: 0, unanswered: 0 });
  }
  for (const entry of questions) {
    const tally = days.get(dayOf(entry.askedAt));
    if (!tally) continue;
    if (entry.mode === "no_results") tally.unanswered++;
    else if (entry.lowConfidence) tally.lowConfidence++;
    else tally.answered++;
  }
  return [...days.values()];
}

function unansweredQuestions(entries: readonly LoggedQuestion[]): UnansweredQuestion[] {
  const byKey = new Map<string, UnansweredQuestion>();
  for (const entry of entries) {
    const key = questionKey(entry.question);
    const kind = entry.mode === "no_results" ? "no_results" : "low_confidence";
    const found = byKey.get(key);
    if (found) {
      found.count++;
      // The latest answer says where the question stands now.
      if (entry.askedAt.toISOString() >= found.lastAsked) {
        found.lastAsked = entry.askedAt.toISOString();
        found.kind = kind;
      }
    } else {
      byKey.set(key, {
        text: entry.question,
        count: 1,
        lastAsked: entry.askedAt.toISOString(),
        kind,
      });
    }
  }
  return [...byKey.values()]
    .sort(
      (left, right) => right.count - left.count || right.lastAsked.localeCompare(left.lastAsked),
    )
    .slice(0, LIST_LIMIT);
}

function pagePath(url: string): string {
  return urlPath(url).split("#")[0] ?? url;
}

function citedPages(entry: LoggedQuestion): PageRef[] {
  const pages = new Map<string, PageRef>();
  for (const chunk of entry.cited) {
    const url = pagePath(chunk.url);
    if (!pages.has(url)) pages.set(url, { title: chunk.title, url });
  }
  return [...pages.values()];
}

function pageCitations(
  questions: readonly LoggedQuestion[],
  pages: readonly PageSummary[],
): InsightsReport["pages"] {
  const counts = new Map<string, number>();
  const titles = new Map<string, PageRef>();
  for (const entry of questions) {
    // A page counts once per answer, however many of its passages the answer cites.
    for (const chunk of new Map(entry.cited.map((cited) => [cited.filePath, cited])).values()) {
      counts.set(chunk.filePath, (counts.get(chunk.filePath) ?? 0) + 1);
      titles.set(chunk.filePath, { title: chunk.title, url: pagePath(chunk.url) });
    }
  }
  const current = new Map(pages.map((page) => [page.filePath, page]));
  const mostCited = [...counts.entries()]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .slice(0, 20)
    .map(([filePath, count]) => {
      const page = current.get(filePath);
      const ref = page ? { title: page.title, url: pagePath(page.url) } : titles.get(filePath);
      return { title: ref?.title ?? filePath, url: ref?.url ?? "", count };
    });
  const neverCited = pages
    .filter((page) => !counts.has(page.filePath))
    .sort((left, right) => left.url.localeCompare(right.url))
    .map((page) => ({ title: page.title, url: pagePath(page.url) }));
  return { mostCited, neverCited };
}

/**
 * Answers whose cited passages are no longer in the book as they were: a chunk's content hash is
 * gone from its page (the passage was edited) or the page has no chunks left (it was removed).
 */
function staleAnswers(questions: readonly LoggedQuestion[], index: LexicalIndex): StaleAnswer[] {
  const hashesOfPage = new Map<string, Set<string>>();
  for (const chunk of index.allChunks()) {
    const hashes = hashesOfPage.get(chunk.filePath) ?? new Set<string>();
    hashes.add(chunk.contentHash);
    hashesOfPage.set(chunk.filePath, hashes);
  }
  const byKey = new Map<string, StaleAnswer>();
  for (const entry of [...questions].reverse()) {
    if (entry.mode === "no_results" || entry.cited.length === 0) continue;
    const key = questionKey(entry.question);
    if (byKey.has(key)) continue; // the newest answer to a question is the one that matters
    const changed = new Map<string, StaleAnswer["pages"][number]>();
    for (const chunk of entry.cited) {
      const now = hashesOfPage.get(chunk.filePath);
      const change = !now ? "removed" : now.has(chunk.contentHash) ? undefined : "changed";
      if (!change) continue;
      const url = pagePath(chunk.url);
      if (!changed.has(url)) changed.set(url, { title: chunk.title, url, change });
    }
    if (changed.size > 0) {
      byKey.set(key, {
        question: entry.question,
        askedAt: entry.askedAt.toISOString(),
        pages: [...changed.values()],
      });
    } else byKey.set(key, { question: entry.question, askedAt: "", pages: [] });
  }
  return [...byKey.values()].filter((answer) => answer.pages.length > 0).slice(0, LIST_LIMIT);
}
