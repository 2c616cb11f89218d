import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { analyze } from "@lectern/engine/search/analyzer";
import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { chunkRecord } from "@lectern/engine/search/test-builders";
import type MiniSearch from "minisearch";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLexicalSnapshot, writeLexicalSnapshot } from "./index-store.ts";

const chunks = [
  chunkRecord(
    "gears",
    "A gearbox trades speed for torque between the motor and the wheel.",
    "Gears",
  ),
  chunkRecord("lidar", "The lidar sweeps a laser and times each echo to measure range.", "Lidar"),
  chunkRecord("pid", "A PID loop corrects the motor speed from the measured error.", "Control"),
];

describe("numbers", () => {
  const index = LexicalIndex.build([
    chunkRecord("imu", "Lying still, an accelerometer reads about 9.81 on its z axis.", "IMU"),
    chunkRecord("zmp", "With a height of 0.8 m and 0.8 s per step the pendulum tips.", "ZMP"),
    chunkRecord("release", "Redux 4.2.0 marked the original method as deprecated.", "Release"),
  ]);
  const found = (question: string) =>
    index.search(analyze(question), { limit: 5 }).map((hit) => hit.chunk.id);

  it("meets a number written with fewer digits, never through another's decimals", () => {
    expect(found("9.8")).toEqual(["imu"]);
    const scores = index.search(analyze("9.8 on a height of 0.8"), { limit: 5 });
    // "9.8" is the book's 9.81 written shorter: it counts as more than the whole part "9".
    expect(scores.map((hit) => hit.matchedTerms.sort())).toContainEqual(["9", "9.8"]);
  });

  it("meets a version by its shorter form", () => {
    expect(found("4.2")).toEqual(["release"]);
  });
});

describe("the BM25 snapshot", () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "lectern-snapshot-"));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("holds MiniSearch's own serialisation of the index, written term by term", async () => {
    const index = LexicalIndex.build(chunks);
    index.remove(["lidar"]); // a removal leaves a gap in MiniSearch's short ids
    const file = path.join(directory, "book.bm25.json");
    await writeLexicalSnapshot(index, file, 3);
    const snapshot = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    const { miniSearch } = index as unknown as { miniSearch: MiniSearch };
    expect(snapshot.miniSearch).toEqual(JSON.parse(JSON.stringify(miniSearch.toJSON())));
    expect(snapshot.chunkIds).toEqual(["gears", "pid"]);
  });

  it("loads back into an index that finds the same chunks with the same scores", async () => {
    const index = LexicalIndex.build(chunks);
    const file = path.join(directory, "book.bm25.json");
    await writeLexicalSnapshot(index, file, 7);
    const loaded = await readLexicalSnapshot(file, 7, chunks);
    expect(loaded).toBeDefined();
    const terms = ["motor", "speed"];
    expect(loaded?.search(terms, { limit: 5 })).toEqual(index.search(terms, { limit: 5 }));
    expect(loaded?.search(terms, { limit: 5 }).map((hit) => hit.chunk.id)).toHaveLength(2);
    expect(await readLexicalSnapshot(file, 8, chunks)).toBeUndefined();
  });

  it("writes an empty index that loads", async () => {
    const file = path.join(directory, "empty.bm25.json");
    await writeLexicalSnapshot(LexicalIndex.build([]), file, 0);
    expect(await readLexicalSnapshot(file, 0, [])).toBeDefined();
  });
});

describe("sectionsHeaded", () => {
  const chunk = (
    id: string,
    chunkIndex: number,
    headingPath: string[],
    text: string,
  ): ReturnType<typeof chunkRecord> => ({
    ...chunkRecord(id, text, headingPath[0] ?? id),
    filePath: "concepts.md",
    chunkIndex,
    headingPath,
  });
  const page = [
    chunk("intro", 0, ["Concepts"], "Redux keeps the state of the whole app in one store."),
    chunk(
      "immutability",
      1,
      ["Concepts", "Immutability"],
      "If something is immutable, it can never be changed.",
    ),
    chunk(
      "immutability-2",
      2,
      ["Concepts", "Immutability"],
      "Copies of objects are changed instead.",
    ),
    chunk(
      "libraries",
      3,
      ["Concepts", "Immutable Data"],
      "Immutable is a library of persistent data structures.\n\n## Selectors\n\nSelectors read values from the state.",
    ),
  ];

  it("finds the chunk opening a section headed exactly so, and the page's first by its title", () => {
    const index = LexicalIndex.build(page);
    expect(index.sectionsHeaded("immutability").map((found) => found.id)).toEqual(["immutability"]);
    expect(index.sectionsHeaded("the Immutabilities").map((found) => found.id)).toEqual([
      "immutability",
    ]);
    expect(index.sectionsHeaded("concept").map((found) => found.id)).toEqual(["intro"]);
  });

  it("finds a section merged into a chunk by its heading line", () => {
    const index = LexicalIndex.build(page);
    expect(index.sectionsHeaded("selector").map((found) => found.id)).toEqual(["libraries"]);
  });

  it("opens from its core without reading the chunks' text, postings added as asked for", () => {
    const index = LexicalIndex.build(page);
    index.remove(["intro"]); // a gap in MiniSearch's short ids
    const kept = page.slice(1);
    // Chunks whose text cannot be read: the core alone gives their openings.
    const textless = kept.map((chunk) => {
      const { text: _text, ...rest } = chunk;
      return Object.defineProperty(rest, "text", {
        get: () => {
          throw new Error("text read");
        },
      }) as typeof chunk;
    });
    const asked: string[][] = [];
    const core = JSON.parse(JSON.stringify(index.core(5)));
    const opened = LexicalIndex.fromCore(core, textless, {
      searching: (terms) => asked.push(terms),
      found: () => undefined,
    });
    expect(opened).toBeDefined();
    expect(opened?.sectionsHeaded("selector").map((found) => found.id)).toEqual(["libraries"]);
    const terms = analyze("immutable data structures");
    expect(opened?.search(terms, { limit: 5 })).toEqual([]);
    expect(asked).toEqual([terms]);
    opened?.addPostings(JSON.parse(JSON.stringify([...index.postings()])));
    const ids = (hits: { chunk: { id: string }; score: number }[] = []) =>
      hits.map((hit) => [hit.chunk.id, hit.score]);
    expect(ids(opened?.search(terms, { limit: 5 }))).toEqual(
      ids(index.search(terms, { limit: 5 })),
    );
    expect(ids(index.search(terms, { limit: 5 }))).not.toEqual([]);
    // A core of other chunks is refused.
    expect(LexicalIndex.fromCore(core, page, undefined)).toBeUndefined();
  });

  it("does not take a heading with other words or a derived word for the term", () => {
    const index = LexicalIndex.build(page);
    expect(index.sectionsHeaded("immutable")).toEqual([]);
    expect(index.sectionsHeaded("data")).toEqual([]);
  });

  it("forgets a section once its chunks are removed", () => {
    const index = LexicalIndex.build(page);
    expect(index.sectionsHeaded("immutability")).toHaveLength(1);
    index.remove(["immutability", "immutability-2"]);
    expect(index.sectionsHeaded("immutability")).toEqual([]);
  });
});
