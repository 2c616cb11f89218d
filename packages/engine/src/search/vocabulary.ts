import { editDistance, slipDistance } from "./edit-distance.ts";

/**
 * The book's terms and their document frequencies, and what is looked up in them: idf, the typo
 * correction of a word the book never uses, and the completions of a word being typed. Shared by
 * the in-process BM25 index and the term-statistics table that stands in for it when the ranking
 * lives in Qdrant; the caller owns the frequency map and calls `invalidate` when it changes.
 */
export class Vocabulary {
  constructor(
    private readonly documentFrequency: ReadonlyMap<string, number>,
    /** How many chunks the frequencies count (BM25's N). */
    private readonly documentCount: () => number,
  ) {}

  private readonly corrections = new Map<string, string | undefined>();
  private buckets: Map<string, string[]> | undefined;
  private sortedVocabulary: string[] | undefined;

  /** Drops what was derived from the frequencies (after chunks were added or removed). */
  invalidate(): void {
    this.corrections.clear();
    this.buckets = undefined;
    this.sortedVocabulary = undefined;
  }

  /** How many chunks contain `term`. */
  documentFrequencyOf(term: string): number {
    return this.documentFrequency.get(term) ?? 0;
  }

  /** BM25's inverse document frequency; a term no chunk contains gets the highest value. */
  idf(term: string): number {
    const total = this.documentCount();
    const frequency = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
  }

  /**
   * The book's term a word the book never uses is most likely a typo of: within edit distance 1
   * (5–7 letters) or 2 (8 or more), transpositions counting as one edit; the most frequent such
   * term wins; the first letter must match, and each edit must be a keyboard slip (a neighbouring
   * key, a swapped, missing or extra letter, never at the term's end: see slipDistance).
   * Undefined for short words, words with digits or symbols, and words with no match.
   */
  closestTerm(term: string): string | undefined {
    if (term.length < 5 || !/^\p{L}+$/u.test(term)) return undefined;
    if (this.corrections.has(term)) return this.corrections.get(term);
    const maxDistance = term.length >= 8 ? 2 : 1;
    let best: string | undefined;
    let bestDistance = maxDistance + 1;
    let bestFrequency = 0;
    // Only terms with the same first letter and a length within reach can match.
    const buckets = this.vocabularyBuckets();
    for (let length = term.length - maxDistance; length <= term.length + maxDistance; length++) {
      if (length < 4) continue;
      for (const candidate of buckets.get(`${term[0]}${length}`) ?? []) {
        if (editDistance(term, candidate, maxDistance) > maxDistance) continue;
        const distance = slipDistance(term, candidate, maxDistance);
        if (distance > maxDistance) continue;
        const frequency = this.documentFrequency.get(candidate) ?? 0;
        if (distance < bestDistance || (distance === bestDistance && frequency > bestFrequency)) {
          best = candidate;
          bestDistance = distance;
          bestFrequency = frequency;
        }
      }
    }
    const found = bestDistance <= maxDistance ? best : undefined;
    if (this.corrections.size >= 10_000) this.corrections.clear();
    this.corrections.set(term, found);
    return found;
  }

  /** Up to `max` terms of the book that start with `prefix`, in alphabetical order. */
  termsStartingWith(prefix: string, max: number): string[] {
    if (!this.sortedVocabulary) {
      this.sortedVocabulary = [...this.documentFrequency.keys()].sort();
    }
    const vocabulary = this.sortedVocabulary;
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((vocabulary[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    const found: string[] = [];
    for (let at = low; at < vocabulary.length && found.length < max; at++) {
      const term = vocabulary[at] as string;
      if (!term.startsWith(prefix)) break;
      found.push(term);
    }
    return found;
  }

  /** The vocabulary's letter-only terms grouped by first letter and length, built on first use. */
  private vocabularyBuckets(): Map<string, string[]> {
    if (this.buckets) return this.buckets;
    const buckets = new Map<string, string[]>();
    for (const candidate of this.documentFrequency.keys()) {
      if (candidate.length < 4 || !/^\p{L}+$/u.test(candidate)) continue;
      const key = `${candidate[0]}${candidate.length}`;
      const bucket = buckets.get(key);
      if (bucket) bucket.push(candidate);
      else buckets.set(key, [candidate]);
    }
    this.buckets = buckets;
    return buckets;
  }
}
