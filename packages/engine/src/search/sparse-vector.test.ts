import { describe, expect, it } from "vitest";
import { analyze } from "./analyzer.ts";
import {
  bm25Score,
  chunkSparseVector,
  fieldTermId,
  matchedTerms,
  querySparseVector,
  termId,
} from "./sparse-vector.ts";

const FIELDS = ["title", "headings", "text"] as const;

/** A word's value summed over the fields it is stored in; undefined when it is in none. */
function weightOf(
  vector: { indices: number[]; values: number[] },
  word: string,
): number | undefined {
  const [term] = analyze(word);
  let total: number | undefined;
  for (const field of FIELDS) {
    const position = vector.indices.indexOf(fieldTermId(field, term ?? ""));
    if (position >= 0) total = (total ?? 0) + (vector.values[position] ?? 0);
  }
  return total;
}

const chunk = (text: string, headingPath: string[] = ["Page"]) => ({
  title: "Page",
  headingPath,
  text,
});

describe("BM25 sparse vectors", () => {
  it("gives each analyzed term one unsigned 32-bit id, the same for the query and the chunk", () => {
    const id = termId("gearbox");
    expect(Number.isInteger(id) && id >= 0 && id < 2 ** 32).toBe(true);
    expect(termId("gearbox")).toBe(id);
    expect(termId("gearboxes")).not.toBe(id);
    const vector = chunkSparseVector(chunk("The gearboxes whine."));
    const query = querySparseVector({ terms: analyze("gearbox"), boost: new Map() });
    expect(vector.indices).toContain(fieldTermId("text", analyze("gearbox")[0] ?? ""));
    expect(query.indices).toContain(fieldTermId("text", analyze("gearbox")[0] ?? ""));
    expect(new Set(vector.indices).size).toBe(vector.indices.length);
  });

  it("saturates term frequency as BM25 does, and leaves stopwords out", () => {
    const once = weightOf(chunkSparseVector(chunk("servo motor drive")), "servo") ?? 0;
    const thrice = weightOf(chunkSparseVector(chunk("servo servo servo")), "servo") ?? 0;
    expect(thrice).toBeGreaterThan(once);
    expect(thrice).toBeLessThan(3 * once);
    expect(thrice).toBeLessThan(2.7); // k1 + 1 + d (BM25+)
    expect(weightOf(chunkSparseVector(chunk("the servo")), "the")).toBeUndefined();
  });

  it("weighs a heading's words above the text's and a long chunk's words below a short one's", () => {
    const inHeading = weightOf(chunkSparseVector(chunk("motor drive", ["Page", "Servo"])), "servo");
    const inText = weightOf(chunkSparseVector(chunk("servo drive", ["Page", "Motor"])), "servo");
    expect(inHeading).toBeGreaterThan(inText ?? 0);
    // Length is counted in distinct terms, as the in-process index counts it.
    const long = `servo ${Array.from({ length: 400 }, (_, at) => `bracket${at}`).join(" ")}`;
    expect(weightOf(chunkSparseVector(chunk(long)), "servo")).toBeLessThan(inText ?? 0);
  });

  it("indexes the author's search text and tags with the title", () => {
    const vector = chunkSparseVector({
      ...chunk("servo drive"),
      tags: ["hardware"],
      searchText: "odometry wheels",
    });
    expect(weightOf(vector, "odometry")).toBeGreaterThan(0);
    expect(weightOf(vector, "hardware")).toBeGreaterThan(0);
  });

  it("weighs the question's words 1 and the earlier turn's words their boost", () => {
    const query = querySparseVector({
      terms: ["servo", "torqu"],
      boost: new Map([["torqu", 0.5]]),
    });
    expect(query.indices).toEqual([
      ...FIELDS.map((field) => fieldTermId(field, "servo")),
      ...FIELDS.map((field) => fieldTermId(field, "torqu")),
    ]);
    expect(query.values).toEqual([1, 1, 1, 0.5, 0.5, 0.5]);
  });

  it("keeps a term's fields apart, so each field has its own document frequency", () => {
    const vector = chunkSparseVector(chunk("servo drive", ["Page", "Servo"]));
    expect(vector.indices).toContain(fieldTermId("headings", "servo"));
    expect(vector.indices).toContain(fieldTermId("text", "servo"));
    expect(vector.indices).not.toContain(fieldTermId("title", "servo"));
  });

  it("normalises length against the book's averages when they are given", () => {
    const text = "servo drive motor";
    const shortBook = chunkSparseVector(chunk(text), { title: 1, headings: 1, text: 2 });
    const longBook = chunkSparseVector(chunk(text), { title: 1, headings: 1, text: 50 });
    expect(weightOf(longBook, "servo")).toBeGreaterThan(weightOf(shortBook, "servo") ?? 0);
  });

  it("finds the question's terms a chunk holds and multiplies the score by their number", () => {
    const vector = chunkSparseVector(chunk("servo drive", ["Page", "Motor"]));
    expect(matchedTerms(["servo", "motor", "lidar"], vector.indices)).toEqual(["servo", "motor"]);
    expect(bm25Score(2.5, 2)).toBe(5);
    expect(bm25Score(2.5, 0)).toBe(2.5);
  });
});
