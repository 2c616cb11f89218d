import { analyzeQuery } from "@lectern/engine/search/analyzer";

/**
 * Readers' questions grouped into topics by their analysed terms (search/analyzer.ts: stopwords
 * out, stems in, so "topics" and "topic" are one term). Greedy and deterministic: the term worth
 * most — asked in most questions, weighted by how specific it is — names the first topic, which
 * takes every question using it; then the next term among the questions left, until no term is
 * shared by two questions. Questions sharing no term with another stay in "Other questions".
 */

export interface AskedQuestion {
  /** As first written (redacted). */
  text: string;
  /** How many times it was asked (same words, any case or final punctuation). */
  count: number;
}

export interface Topic {
  /** The naming term as readers wrote it. */
  label: string;
  /** The topic's most frequent terms after the label, as written. */
  terms: string[];
  /** Questions asked in all. */
  count: number;
  /** Most asked first. */
  questions: AskedQuestion[];
}

/** How the same question is recognised however it was typed. */
export function questionKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s?!.…]+$/u, "")
    .trim();
}

/** Distinct questions with their counts, most asked first (ties: first asked first). */
export function countQuestions(texts: readonly string[]): AskedQuestion[] {
  const byKey = new Map<string, AskedQuestion>();
  for (const text of texts) {
    const key = questionKey(text);
    const found = byKey.get(key);
    if (found) found.count++;
    else byKey.set(key, { text: text.trim(), count: 1 });
  }
  return [...byKey.values()].sort((left, right) => right.count - left.count);
}

/**
 * Groups questions into topics. `weight` says how specific a term is (the book's idf; a term the
 * book does not use weighs `fallbackWeight`); without it every term weighs 1.
 */
export function clusterQuestions(
  questions: readonly AskedQuestion[],
  options: { weight?: (term: string) => number | undefined; maxTopics?: number } = {},
): { topics: Topic[]; other: AskedQuestion[] } {
  const analysed = questions.map((question) => {
    const { words, spelled } = analyzeQuery(question.text);
    return { question, terms: new Set(words), spelled };
  });
  const weightOf = (term: string) => options.weight?.(term) ?? 1;
  let remaining = analysed;
  const topics: Topic[] = [];
  const maxTopics = options.maxTopics ?? 20;
  while (remaining.length > 1 && topics.length < maxTopics) {
    const asked = new Map<string, { count: number; distinct: number }>();
    for (const entry of remaining) {
      for (const term of entry.terms) {
        const tally = asked.get(term) ?? { count: 0, distinct: 0 };
        tally.count += entry.question.count;
        tally.distinct += 1;
        asked.set(term, tally);
      }
    }
    let best: { term: string; score: number } | undefined;
    for (const [term, tally] of asked) {
      if (tally.distinct < 2) continue;
      const score = tally.count * weightOf(term);
      // Ties go to the term first in alphabetical order, so the result never depends on input order.
      if (!best || score > best.score || (score === best.score && term < best.term)) {
        best = { term, score };
      }
    }
    if (!best) break;
    const term = best.term;
    const members = remaining.filter((entry) => entry.terms.has(term));
    remaining = remaining.filter((entry) => !entry.terms.has(term));
    topics.push(topicOf(term, members));
  }
  const other = remaining.map((entry) => entry.question);
  return { topics: topics.sort((left, right) => right.count - left.count), other };
}

function topicOf(
  term: string,
  members: { question: AskedQuestion; terms: Set<string>; spelled: Map<string, string> }[],
): Topic {
  const spellings = new Map<string, Map<string, number>>();
  const counts = new Map<string, number>();
  for (const member of members) {
    for (const each of member.terms) {
      counts.set(each, (counts.get(each) ?? 0) + member.question.count);
      const written = (member.spelled.get(each) ?? each).toLowerCase();
      const forms = spellings.get(each) ?? new Map<string, number>();
      forms.set(written, (forms.get(written) ?? 0) + member.question.count);
      spellings.set(each, forms);
    }
  }
  const asWritten = (each: string) =>
    [...(spellings.get(each) ?? new Map([[each, 1]])).entries()].sort(
      (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
    )[0]?.[0] ?? each;
  const terms = [...counts.entries()]
    .filter(([each, count]) => each !== term && count >= 2)
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .slice(0, 4)
    .map(([each]) => asWritten(each));
  const questions = members
    .map((member) => member.question)
    .sort((left, right) => right.count - left.count);
  return {
    label: asWritten(term),
    terms,
    count: questions.reduce((total, question) => total + question.count, 0),
    questions,
  };
}
