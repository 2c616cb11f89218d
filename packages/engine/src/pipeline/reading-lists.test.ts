import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../book/records.ts";
import { chunkRecord } from "../search/test-builders.ts";
import type { RetrievedChunk } from "../search/types.ts";
import { withListedSections } from "./reading-lists.ts";

const ENTRY = ["Design Decisions", "Why doesn't combineReducers pass the entire state?"];

function pageChunk(
  index: number,
  headingPath: string[],
  text: string,
  extra: Partial<ChunkRecord> = {},
): ChunkRecord {
  return {
    ...chunkRecord(`faq-${index}`, text, headingPath.at(-1) ?? ""),
    filePath: "faq/DesignDecisions.md",
    chunkIndex: index,
    totalChunks: 4,
    headingPath,
    url: `/docs/faq/design-decisions#part-${index}`,
    ...extra,
  };
}

const intro = pageChunk(0, ["Design Decisions"], "The FAQ answers questions about the design.");
const answer = pageChunk(
  1,
  ENTRY,
  "combineReducers is deliberately limited to one common use case. Write your own function when you need more.",
);
const links = pageChunk(
  2,
  [...ENTRY, "Further information"],
  "Discussions\n\n- #1768 Allow reducers to consult global state",
);
const page = [intro, answer, links];

const result = (chunk: ChunkRecord, score = 10): RetrievedChunk => ({
  chunk,
  score,
  similarityScore: score / 20,
  coverage: 0.5,
});

describe("withListedSections", () => {
  it("shows a reading list's section in its place, keeping the result's score", () => {
    const [shown] = withListedSections([result(links, 12)], () => page);
    expect(shown?.chunk).toBe(answer);
    expect(shown?.score).toBe(12);
    expect(shown?.similarityScore).toBe(0.6);
  });

  it("finds the section inside a chunk that merged it after another section", () => {
    const merged = pageChunk(1, ["Design Decisions", "Earlier entry"], "Earlier text.", {
      sectionAnchors: [{ heading: ENTRY[1] as string, anchor: "why", headingPath: ENTRY }],
    });
    const [shown] = withListedSections([result(links)], () => [intro, merged, links]);
    expect(shown?.chunk).toBe(merged);
  });

  it("leaves other results, a list holding prose, and a list whose section is shown alone", () => {
    const withProse = pageChunk(
      2,
      [...ENTRY, "Further information"],
      "- #1768 Allow reducers to consult global state\n\n### Why use currying?\n\nCurrying lets middleware be composed.",
    );
    const otherPage = chunkRecord("guide", "Reducers take state and an action.", "Guide");
    const results = [result(answer, 15), result(links), result(otherPage, 8)];
    expect(withListedSections(results, () => page).map((shown) => shown.chunk)).toEqual([
      answer,
      links,
      otherPage,
    ]);
    expect(
      withListedSections([result(withProse)], () => [intro, answer, withProse])[0]?.chunk,
    ).toBe(withProse);
    // A page's own reading list stands for no section.
    const pageList = pageChunk(3, ["Design Decisions", "See also"], "- Beyond combineReducers");
    expect(withListedSections([result(pageList)], () => [...page, pageList])[0]?.chunk).toBe(
      pageList,
    );
  });
});
