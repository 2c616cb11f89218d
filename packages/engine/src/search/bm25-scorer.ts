import type MiniSearch from "minisearch";

/**
 * BM25 search over MiniSearch's inverted index without its search path. MiniSearch builds an
 * object (with an array of terms and a table of matches) for every document a query term
 * matches and merges them in maps, then sorts every match; on a large book that was most of a
 * question's CPU and of its garbage. This scorer reads the same index and gives the same
 * results — the same documents in the same order, the same scores to the last bit, the same
 * matched terms — from arrays kept between searches, and orders only the hits asked for.
 *
 * What MiniSearch's search does, and this does the same way (see `scoreQuery`):
 * - the query is split on spaces and empty terms dropped; each term (a repeated one again) is
 *   scored on its own, field by field in the order of `boosts`, each field's postings in their
 *   order, summing the document's weighted BM25+ scores;
 * - the terms' results are merged in query order (OR): a document first matched by a later term
 *   comes after those matched earlier, and its total is the running sum of its terms' sums;
 * - the total is multiplied by the number of distinct query terms the document holds, and the
 *   documents sorted by it, highest first, ties in the merged order.
 * A posting of a document that is no longer in the index (MiniSearch cleans those as it meets
 * them) makes the search go through MiniSearch's own path instead.
 */

/** A term's postings in MiniSearch's index: field id → document short id → term frequency. */
type Postings = Map<number, Map<number, number>>;

/** MiniSearch's fields the scorer reads (protected: MiniSearch is made to be extended). */
interface IndexState {
  _index: { get(term: string): Postings | undefined };
  _documentIds: Map<number, unknown>;
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  /** Every document's short id is below it. */
  _nextId: number;
}

export interface ScoredHit {
  /** The document's id (MiniSearch's `id` field). */
  id: string;
  score: number;
  /** The distinct query terms the document holds, in the order of the query. */
  queryTerms: string[];
}

export interface ScoreOptions {
  /** Field boosts, in the order fields are scored. */
  boosts: Record<string, number>;
  bm25: { k: number; b: number; d: number };
  /** A term's weight (MiniSearch's `boostTerm`); 1 when absent. */
  termBoost?: (term: string) => number;
  /** Whether a hit is kept (applied in score order until `limit` are kept). */
  keep?: (id: string) => boolean;
  limit: number;
}

/** A field's postings of a term: document short ids and term frequencies, in MiniSearch's order. */
interface FlatPostings {
  docs: Int32Array;
  counts: Float64Array;
}

/** Most terms' postings a scorer keeps found (a book's questions ask for far fewer). */
const MAX_KEPT_TERMS = 50_000;

/** Postings of a document not in the index: only MiniSearch's own search handles them. */
class StalePosting extends Error {}

/** Scratch arrays by document short id, grown as the index grows, reused by every search. */
export class Bm25Scorer {
  private total = new Float64Array(0);
  private termSum = new Float64Array(0);
  private distinct = new Uint32Array(0);
  private held = new Uint32Array(0);
  /** The search (and term) that last touched each document: entries of others are stale. */
  private searchStamp = new Uint32Array(0);
  private termStamp = new Uint32Array(0);
  private stamp = 0;
  private termCounter = 0;
  /**
   * Each field's length in each document, read from MiniSearch's maps the first time a posting
   * names the document (a book opened in a browser reads only its question's documents).
   * `known`: 0 not read yet, 1 read, 2 not in the index.
   */
  private lengths: Float64Array[] = [];
  private known = new Uint8Array(0);
  /** The index these tables were read from: its next short id and its number of documents. */
  private readFrom = { nextId: -1, documents: -1 };
  /** Terms' postings as found in MiniSearch's tree (`postingsOf`). */
  private postings = new Map<string, Postings>();
  /** Postings read as arrays (`flat`), by MiniSearch's own map of them. */
  private flattened = new WeakMap<Map<number, number>, FlatPostings>();

  constructor(private readonly miniSearch: MiniSearch) {}

  search(query: string, options: ScoreOptions): ScoredHit[] {
    try {
      return this.scoreQuery(query, options);
    } catch (error) {
      if (!(error instanceof StalePosting)) throw error;
      return this.viaMiniSearch(query, options);
    }
  }

  private scoreQuery(query: string, options: ScoreOptions): ScoredHit[] {
    const state = this.miniSearch as unknown as IndexState;
    const terms = query.split(" ").filter((term) => !!term);
    this.grow(state);
    const stamp = this.nextStamp();
    /** Documents in the order MiniSearch's merged results hold them. */
    const order: number[] = [];
    /** The query's distinct terms the book has, in query order, with their postings. */
    const distinct = new Map<string, Postings>();
    for (const term of terms) {
      const data = distinct.get(term) ?? this.postingsOf(state, term);
      if (!data) continue;
      const termBoost = options.termBoost ? options.termBoost(term) : 1;
      const touched = this.scoreTerm(state, data, termBoost, options);
      const firstTime = !distinct.has(term);
      // The first 32 distinct terms each have a bit of `held`: which of them a document holds.
      const bit = firstTime && distinct.size < 32 ? (1 << distinct.size) >>> 0 : 0;
      distinct.set(term, data);
      for (const doc of touched) {
        if (this.searchStamp[doc] !== stamp) {
          this.searchStamp[doc] = stamp;
          this.total[doc] = this.termSum[doc] as number;
          this.distinct[doc] = 1;
          this.held[doc] = bit;
          order.push(doc);
        } else {
          this.total[doc] = (this.total[doc] as number) + (this.termSum[doc] as number);
          if (firstTime) {
            this.distinct[doc] = (this.distinct[doc] as number) + 1;
            this.held[doc] = ((this.held[doc] as number) | bit) >>> 0;
          }
        }
      }
    }
    return this.best(state, order, [...distinct], options);
  }

  /** One query term's score in each document it is in (`termSum`), those documents in order. */
  private scoreTerm(
    state: IndexState,
    data: Postings,
    termBoost: number,
    options: ScoreOptions,
  ): number[] {
    const { k, b, d } = options.bm25;
    const count = state._documentCount;
    const termStamp = ++this.termCounter;
    const touched: number[] = [];
    for (const field of Object.keys(options.boosts)) {
      const fieldId = state._fieldIds[field] as number;
      const frequencies = data.get(fieldId);
      if (!frequencies) continue;
      // As MiniSearch multiplies: term weight (1) × term boost × field boost × document boost (1).
      const weight = termBoost * (options.boosts[field] as number);
      const matching = frequencies.size;
      const idf = Math.log(1 + (count - matching + 0.5) / (matching + 0.5));
      const average = state._avgFieldLength[fieldId] as number;
      const lengths = this.lengths[fieldId] as Float64Array;
      const { docs, counts } = this.flat(frequencies);
      for (let at = 0; at < docs.length; at++) {
        const doc = docs[at] as number;
        const frequency = counts[at] as number;
        if (this.known[doc] !== 1 && !this.read(state, doc)) throw new StalePosting();
        const length = lengths[doc] as number;
        const raw =
          idf * (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * length) / average)));
        if (this.termStamp[doc] !== termStamp) {
          this.termStamp[doc] = termStamp;
          this.termSum[doc] = weight * raw;
          touched.push(doc);
        } else this.termSum[doc] = (this.termSum[doc] as number) + weight * raw;
      }
    }
    return touched;
  }

  /** The `limit` best documents kept by `keep`, best first, ties in merged order. */
  private best(
    state: IndexState,
    order: number[],
    distinctTerms: [string, Postings][],
    options: ScoreOptions,
  ): ScoredHit[] {
    const scores = new Float64Array(order.length);
    for (let at = 0; at < order.length; at++) {
      const doc = order[at] as number;
      scores[at] = (this.total[doc] as number) * (this.distinct[doc] as number);
    }
    const heap = new RankHeap(scores);
    const hits: ScoredHit[] = [];
    while (hits.length < options.limit) {
      const at = heap.pop();
      if (at === undefined) break;
      const doc = order[at] as number;
      const id = state._documentIds.get(doc) as string;
      if (options.keep && !options.keep(id)) continue;
      hits.push({
        id,
        score: scores[at] as number,
        queryTerms: termsIn(doc, this.held[doc] as number, distinctTerms),
      });
    }
    return hits;
  }

  private viaMiniSearch(query: string, options: ScoreOptions): ScoredHit[] {
    const termBoost = options.termBoost;
    const keep = options.keep;
    const results = this.miniSearch.search(query, {
      boost: options.boosts,
      bm25: options.bm25,
      ...(keep ? { filter: (result) => keep(result.id as string) } : {}),
      ...(termBoost ? { boostTerm: (term: string) => termBoost(term) } : {}),
    });
    return results.slice(0, options.limit).map((result) => ({
      id: result.id as string,
      score: result.score,
      queryTerms: result.queryTerms,
    }));
  }

  /**
   * Sizes the arrays to the index; the field lengths read so far are forgotten whenever
   * documents were added (the next short id moves on) or removed (fewer).
   */
  private grow(state: IndexState): void {
    const size = state._nextId;
    if (size === this.readFrom.nextId && state._documentCount === this.readFrom.documents) return;
    this.readFrom = { nextId: size, documents: state._documentCount };
    this.flattened = new WeakMap();
    this.postings.clear();
    if (size <= this.total.length) {
      this.known.fill(0);
      return;
    }
    const capacity = Math.max(size, this.total.length * 2, 64);
    const fields = Object.keys(state._fieldIds).length;
    this.lengths = Array.from({ length: fields }, () => new Float64Array(capacity));
    this.known = new Uint8Array(capacity);
    this.total = new Float64Array(capacity);
    this.termSum = new Float64Array(capacity);
    this.distinct = new Uint32Array(capacity);
    this.held = new Uint32Array(capacity);
    this.searchStamp = new Uint32Array(capacity);
    this.termStamp = new Uint32Array(capacity);
    this.stamp = 0;
    this.termCounter = 0;
  }

  /** Forgets the postings kept: MiniSearch's tree was given terms' postings of its own. */
  forgetPostings(): void {
    this.postings.clear();
    this.flattened = new WeakMap();
  }

  /**
   * A term's postings, looked up in MiniSearch's tree once and kept (terms the book has only, at
   * most MAX_KEPT_TERMS): forgotten whenever documents are added or removed (`grow`).
   */
  private postingsOf(state: IndexState, term: string): Postings | undefined {
    let data = this.postings.get(term);
    if (data === undefined) {
      data = state._index.get(term);
      if (data === undefined) return undefined;
      if (this.postings.size >= MAX_KEPT_TERMS) this.postings.clear();
      this.postings.set(term, data);
    }
    return data;
  }

  /**
   * A field's postings of a term as two arrays in the map's order, made the first time the term
   * is searched: reading arrays costs a fraction of iterating the map. Made again when the map
   * has changed size, and forgotten whenever documents are added or removed (`grow`).
   */
  private flat(frequencies: Map<number, number>): FlatPostings {
    let flat = this.flattened.get(frequencies);
    if (!flat || flat.docs.length !== frequencies.size) {
      flat = { docs: new Int32Array(frequencies.size), counts: new Float64Array(frequencies.size) };
      let at = 0;
      for (const [doc, count] of frequencies) {
        flat.docs[at] = doc;
        flat.counts[at++] = count;
      }
      this.flattened.set(frequencies, flat);
    }
    return flat;
  }

  /** Reads a document's field lengths into the tables: whether it is in the index. */
  private read(state: IndexState, doc: number): boolean {
    const lengths = state._fieldLength.get(doc);
    if (this.known[doc] === 2 || !lengths || !state._documentIds.has(doc)) {
      this.known[doc] = 2;
      return false;
    }
    this.lengths.forEach((table, field) => {
      table[doc] = lengths[field] as number;
    });
    this.known[doc] = 1;
    return true;
  }

  private nextStamp(): number {
    // Stamps wrap after 2³² − 1 searches: start the arrays afresh then.
    if (this.stamp === 0xffffffff || this.termCounter > 0xfffffff0) {
      this.searchStamp.fill(0);
      this.termStamp.fill(0);
      this.stamp = 0;
      this.termCounter = 0;
    }
    return ++this.stamp;
  }
}

/**
 * The query's distinct terms whose postings hold the document, in query order: the first 32 read
 * from the document's bits (`held`), any others from their postings.
 */
function termsIn(doc: number, held: number, distinctTerms: [string, Postings][]): string[] {
  const terms: string[] = [];
  for (let at = 0; at < distinctTerms.length; at++) {
    const [term, data] = distinctTerms[at] as [string, Postings];
    if (at < 32 ? (held >>> at) & 1 : [...data.values()].some((field) => field.has(doc)))
      terms.push(term);
  }
  return terms;
}

/**
 * Positions into `scores`, popped highest score first and, among equal scores, lowest position
 * first: the order a stable sort by descending score gives, for the few positions popped.
 */
class RankHeap {
  private readonly heap: Int32Array;
  private size: number;

  constructor(private readonly scores: Float64Array) {
    this.size = scores.length;
    this.heap = new Int32Array(this.size);
    for (let at = 0; at < this.size; at++) this.heap[at] = at;
    for (let at = (this.size >> 1) - 1; at >= 0; at--) this.sink(at);
  }

  pop(): number | undefined {
    if (this.size === 0) return undefined;
    const top = this.heap[0] as number;
    this.size--;
    this.heap[0] = this.heap[this.size] as number;
    this.sink(0);
    return top;
  }

  /** Whether position `a` comes before position `b`. */
  private before(a: number, b: number): boolean {
    const left = this.scores[a] as number;
    const right = this.scores[b] as number;
    return left > right || (left === right && a < b);
  }

  private sink(from: number): void {
    const heap = this.heap;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) return;
      const right = left + 1;
      let child = left;
      if (right < this.size && this.before(heap[right] as number, heap[left] as number))
        child = right;
      if (!this.before(heap[child] as number, heap[at] as number)) return;
      const swap = heap[at] as number;
      heap[at] = heap[child] as number;
      heap[child] = swap;
      at = child;
    }
  }
}
