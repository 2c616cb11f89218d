import { describe, expect, it } from "vitest";
import { analyze } from "./analyzer.ts";
import { chunkSparseVector, querySparseVector, termId } from "./sparse-vector.ts";

function weightOf(
  vector: { indices: number[]; values: number[] },
  word: string,
): number | undefined {
  const [term] = analyze(word);
  const position = vector.indices.indexOf(termId(term ?? ""));
  return position < 0 ? undefined : vector.values[position];
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
    expect(vector.indices).toContain(query.indices[0]);
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
    const long = `servo ${"bracket ".repeat(400)}`;
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
    expect(query.indices).toEqual([termId("servo"), termId("torqu")]);
    expect(query.values).toEqual([1, 0.5]);
  });
});
