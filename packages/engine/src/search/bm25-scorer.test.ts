import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { Bm25Scorer, type ScoreOptions } from "./bm25-scorer.ts";
import {
  BM25_PARAMS,
  FIELD_BOOSTS,
  type IndexedFields,
  miniSearchOptions,
} from "./lexical-index.ts";
import { seededRandom as random } from "./test-builders.ts";

type Doc = IndexedFields;

function words(next: () => number, vocabulary: string[], count: number): string {
  // Squared: a few words are common, most rare, as in a book.
  return Array.from(
    { length: count },
    () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)],
  ).join(" ");
}

/** An index with the options the book's index has. */
function index(docs: Doc[]): MiniSearch<Doc> {
  const search = new MiniSearch<Doc>(miniSearchOptions());
  search.addAll(docs);
  return search;
}

const boosts = FIELD_BOOSTS;

/** MiniSearch's own search with the same options: what the scorer must give. */
function expected(search: MiniSearch<Doc>, query: string, options: ScoreOptions) {
  const { keep, termBoost } = options;
  return search
    .search(query, {
      boost: options.boosts,
      bm25: options.bm25,
      ...(keep ? { filter: (result) => keep(result.id as string) } : {}),
      ...(termBoost ? { boostTerm: (term: string) => termBoost(term) } : {}),
    })
    .slice(0, options.limit)
    .map((result) => ({ id: result.id, score: result.score, queryTerms: result.queryTerms }));
}

function corpus(seed: number, size: number, vocabularySize: number) {
  const next = random(seed);
  const vocabulary = Array.from({ length: vocabularySize }, (_, at) => `w${at}`);
  const docs = Array.from({ length: size }, (_, at) => ({
    id: `d${at}`,
    title: words(next, vocabulary, 1 + Math.floor(next() * 3)),
    // Some documents have no heading: a field without a length.
    headings: next() < 0.2 ? "" : words(next, vocabulary, Math.floor(next() * 5)),
    text: words(next, vocabulary, 5 + Math.floor(next() * 60)),
  }));
  return { next, vocabulary, docs };
}

function questions(next: () => number, vocabulary: string[], count: number): string[] {
  return Array.from({ length: count }, () => {
    const terms = words(next, vocabulary, 1 + Math.floor(next() * 8)).split(" ");
    // A term the book never uses, a repeated term, an empty term (two spaces).
    if (next() < 0.3) terms.push("unknownterm");
    if (next() < 0.3) terms.push(terms[0] as string);
    if (next() < 0.2) terms.splice(1, 0, "");
    return terms.join(" ");
  });
}

const cases: { name: string; seed: number; size: number; vocabulary: number }[] = [
  // A small vocabulary: many documents tie, so the order of ties is what is tested.
  { name: "many ties", seed: 1, size: 120, vocabulary: 12 },
  { name: "a book-like spread", seed: 2, size: 400, vocabulary: 600 },
  { name: "one document", seed: 3, size: 1, vocabulary: 5 },
];

describe("Bm25Scorer gives MiniSearch's results", () => {
  for (const { name, seed, size, vocabulary: vocabularySize } of cases) {
    // toEqual compares numbers exactly: the scores must agree to the last bit.
    it(`${name}: same hits, order, scores and matched terms`, () => {
      const { next, vocabulary, docs } = corpus(seed, size, vocabularySize);
      const search = index(docs);
      // Removed and added again: short ids with gaps, and a document at the end of the postings.
      for (const doc of docs.slice(0, Math.floor(size / 10))) search.remove(doc);
      for (const doc of docs.slice(0, Math.floor(size / 20))) search.add(doc);
      const scorer = new Bm25Scorer(search as unknown as MiniSearch);
      const weights = new Map([
        ["w0", 0.5],
        ["w1", 0],
        ["w3", 2],
      ]);
      let compared = 0;
      for (const query of questions(next, vocabulary, 150)) {
        for (const options of [
          { boosts, bm25: BM25_PARAMS, limit: 5 },
          { boosts, bm25: BM25_PARAMS, limit: Number.POSITIVE_INFINITY },
          {
            boosts,
            bm25: BM25_PARAMS,
            limit: 8,
            keep: (id: string) => Number(id.slice(1)) % 3 !== 0,
            termBoost: (term: string) => weights.get(term) ?? 1,
          },
        ] satisfies ScoreOptions[]) {
          const got = scorer.search(query, options);
          expect(got).toEqual(expected(search, query, options));
          compared += got.length;
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }

  it("a question of more than 32 distinct terms (a long selection) names each term held", () => {
    const next = random(7);
    const vocabulary = Array.from({ length: 50 }, (_, at) => `w${at}`);
    const uniform = (count: number) =>
      Array.from({ length: count }, () => vocabulary[Math.floor(next() * 50)]).join(" ");
    // Long documents: each holds most of the 50 words.
    const docs = Array.from({ length: 100 }, (_, at) => ({
      id: `d${at}`,
      title: uniform(2),
      headings: uniform(3),
      text: uniform(40 + Math.floor(next() * 120)),
    }));
    const search = index(docs);
    const scorer = new Bm25Scorer(search as unknown as MiniSearch);
    const options = { boosts, bm25: BM25_PARAMS, limit: 20 };
    let most = 0;
    for (let question = 0; question < 20; question++) {
      const query = uniform(60);
      const got = scorer.search(query, options);
      most = Math.max(most, ...got.map((hit) => hit.queryTerms.length));
      expect(got).toEqual(expected(search, query, options));
    }
    expect(most).toBeGreaterThan(32);
  });

  it("goes through MiniSearch's own search when postings name a discarded document", () => {
    const { next, vocabulary, docs } = corpus(5, 80, 30);
    // Two like indexes: MiniSearch's search cleans the postings it meets, so each is searched once.
    const scored = index(docs);
    const reference = index(docs);
    const scorer = new Bm25Scorer(scored as unknown as MiniSearch);
    const query = questions(next, vocabulary, 1)[0] as string;
    const options = { boosts, bm25: BM25_PARAMS, limit: 10 };
    const before = scorer.search(query, options);
    // Discarded: its postings stay until a search meets them.
    for (const doc of before.slice(0, 2)) {
      scored.discard(doc.id);
      reference.discard(doc.id);
    }
    const after = scorer.search(query, options);
    expect(after.map((hit) => hit.id)).not.toContain(before[0]?.id);
    expect(after).toEqual(expected(reference, query, options));
  });

  it("reads a term's postings again once MiniSearch has cleaned them of discarded documents", async () => {
    const { next, vocabulary, docs } = corpus(7, 80, 30);
    const scored = index(docs);
    const reference = index(docs);
    const scorer = new Bm25Scorer(scored as unknown as MiniSearch);
    const query = questions(next, vocabulary, 1)[0] as string;
    const options = { boosts, bm25: BM25_PARAMS, limit: Number.POSITIVE_INFINITY };
    const before = scorer.search(query, options);
    for (const doc of before.slice(0, 3)) {
      scored.discard(doc.id);
      reference.discard(doc.id);
    }
    scorer.search(query, options);
    // Vacuuming removes the discarded documents' postings in place: the maps shrink.
    await scored.vacuum();
    await reference.vacuum();
    const after = scorer.search(query, options);
    expect(after.map((hit) => hit.id)).not.toContain(before[0]?.id);
    expect(after).toEqual(expected(reference, query, options));
  });

  it("grows with the index: documents added after the first search are found", () => {
    const { docs } = corpus(6, 50, 20);
    const search = index(docs.slice(0, 10));
    const scorer = new Bm25Scorer(search as unknown as MiniSearch);
    const options = { boosts, bm25: BM25_PARAMS, limit: Number.POSITIVE_INFINITY };
    scorer.search("w0 w1", options);
    search.addAll(docs.slice(10));
    const got = scorer.search("w0 w1 w2", options);
    expect(got.some((hit) => Number(hit.id.slice(1)) >= 10)).toBe(true);
    expect(got).toEqual(expected(search, "w0 w1 w2", options));
  });
});
