import { analyze } from "./analyzer.ts";

/**
 * Author-approved synonyms (`lectern.synonyms.yml`, or the `synonyms` key of lectern.config.json):
 * a reader's word or phrase and the book's word(s) for the same thing, applied when a question is
 * analysed. "banner: announcement bar" makes "How do I hide the banner?" search for "announcement
 * bar", and "banner" no longer counts as a word the book never uses (which would push the question
 * towards no answer). Phrases match as consecutive analysed terms, so inflections and stopwords
 * do not matter ("banners" matches "banner").
 */

/** As written by the author: reader phrase → the book's phrase, or several. */
export type SynonymEntries = Readonly<Record<string, string | readonly string[]>>;

interface SynonymRule {
  /** The reader's phrase, analysed. */
  from: string[];
  /** Each of the book's phrases, analysed, in the author's order. */
  to: string[][];
  /** The book's phrases as written, aligned with `to`. */
  written: string[];
}

/** What a question's analysis becomes once synonyms apply. */
export interface SynonymExpansion {
  /** Reader terms the book never uses, matched by a rule: dropped from the question. */
  dropped: Set<string>;
  /** Book terms that count as words of the question (the first alternative the book uses). */
  words: string[];
  /** Every alternative's terms, searched. */
  terms: string[];
  /** Each added term as the author wrote the phrase it comes from. */
  spelled: Map<string, string>;
}

export class Synonyms {
  private readonly rules: SynonymRule[];

  constructor(entries: SynonymEntries) {
    this.rules = [];
    for (const [phrase, targets] of Object.entries(entries)) {
      const from = analyze(phrase);
      const written = (typeof targets === "string" ? [targets] : [...targets]).filter(
        (target) => analyze(target).length > 0,
      );
      if (from.length === 0 || written.length === 0) continue;
      this.rules.push({ from, to: written.map((target) => analyze(target)), written });
    }
    // Longer phrases first, so "status bar" applies before "bar" would.
    this.rules.sort((left, right) => right.from.length - left.from.length);
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * The rules the question's text matches, applied: `known` says whether the book uses a term.
   * Undefined when no rule matches.
   */
  expand(query: string, known: (term: string) => boolean): SynonymExpansion | undefined {
    if (this.rules.length === 0) return undefined;
    const sequence = analyze(query);
    const expansion: SynonymExpansion = {
      dropped: new Set(),
      words: [],
      terms: [],
      spelled: new Map(),
    };
    // Positions a longer phrase has taken: "top banner" leaves no "banner" for a shorter rule.
    const taken = new Set<number>();
    let matched = false;
    for (const rule of this.rules) {
      const start = findRun(sequence, rule.from, taken);
      if (start < 0) continue;
      for (let offset = 0; offset < rule.from.length; offset++) taken.add(start + offset);
      matched = true;
      for (const term of rule.from) if (!known(term)) expansion.dropped.add(term);
      // The first alternative the book uses in full weighs as the question's words; the others
      // are searched too, so a passage using any of them ranks.
      const chosen = rule.to.findIndex((terms) => terms.every(known));
      rule.to.forEach((terms, index) => {
        for (const term of terms) {
          expansion.terms.push(term);
          if (!expansion.spelled.has(term))
            expansion.spelled.set(term, rule.written[index] ?? term);
        }
        if (index === Math.max(chosen, 0)) expansion.words.push(...terms);
      });
    }
    return matched ? expansion : undefined;
  }
}

/** Where `run` first occurs in `sequence` as consecutive items none of which is taken; -1 if nowhere. */
function findRun(
  sequence: readonly string[],
  run: readonly string[],
  taken: ReadonlySet<number>,
): number {
  outer: for (let start = 0; start + run.length <= sequence.length; start++) {
    for (let offset = 0; offset < run.length; offset++) {
      if (taken.has(start + offset) || sequence[start + offset] !== run[offset]) continue outer;
    }
    return start;
  }
  return -1;
}

/** No synonyms at all. */
export const NO_SYNONYMS = new Synonyms({});
