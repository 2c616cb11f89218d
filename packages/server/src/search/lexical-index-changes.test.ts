import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { headingKey } from "@lectern/engine/search/analyzer";
import { innerHeadings, titleIdentifier } from "@lectern/engine/search/chunk-fields";
import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { chunkRecord } from "@lectern/engine/search/test-builders";
import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../store/document-store.ts";
import { readLexicalSnapshot, writeLexicalSnapshot } from "./index-store.ts";

/**
 * The index keeps every page's chunks and the sections headed by each key up to date as pages are
 * added and removed, so that a lookup never waits for a pass over the whole book.
 */

function section(
  filePath: string,
  chunkIndex: number,
  headingPath: string[],
  text: string,
): ChunkRecord {
  return {
    ...chunkRecord(`${filePath}#${chunkIndex}`, text, headingPath[0] ?? filePath),
    filePath,
    chunkIndex,
    headingPath,
  };
}

/** The chunk with a count of the reads of its heading path and text. */
function counted(chunk: ChunkRecord, reads: { count: number }): ChunkRecord {
  const { headingPath, text, title } = chunk;
  return Object.defineProperties(
    { ...chunk },
    {
      headingPath: {
        get: () => {
          reads.count++;
          return headingPath;
        },
        enumerable: true,
      },
      text: {
        get: () => {
          reads.count++;
          return text;
        },
        enumerable: true,
      },
      title: {
        get: () => {
          reads.count++;
          return title;
        },
        enumerable: true,
      },
    },
  );
}

describe("a lookup after the index changes", () => {
  it("reads no chunk: the sections headed by each key are listed when the index is built", () => {
    const reads = { count: 0 };
    const index = LexicalIndex.build(
      [
        section("concepts.md", 0, ["Concepts"], "The state lives in one store."),
        section("concepts.md", 1, ["Concepts", "Immutability"], "Immutable data never changes."),
        section("reducers.md", 0, ["Reducers"], "A reducer returns the next state."),
      ].map((chunk) => counted(chunk, reads)),
    );
    reads.count = 0;
    expect(index.sectionsHeaded("immutability").map((chunk) => chunk.id)).toEqual([
      "concepts.md#1",
    ]);
    expect(index.chunksOfPage("concepts.md")).toHaveLength(2);
    expect(reads.count).toBe(0);
  });

  it("reads only the changed page's chunks when a page is added or removed", () => {
    const reads = { count: 0 };
    const index = LexicalIndex.build(
      [
        section("concepts.md", 0, ["Concepts"], "The state lives in one store."),
        section("concepts.md", 1, ["Concepts", "Immutability"], "Immutable data never changes."),
      ].map((chunk) => counted(chunk, reads)),
    );
    const added = [
      section("faq.md", 0, ["createStore"], "Answers."),
      section("faq.md", 1, ["createStore", "Immutability"], "Why copy objects?"),
    ];
    reads.count = 0;
    index.add(added);
    expect(
      index.sectionsHeaded("immutability").map((chunk) => `${chunk.filePath}#${chunk.chunkIndex}`),
    ).toEqual(["concepts.md#1", "faq.md#1"]);
    expect(index.pagesTitled("createstor")).toEqual(["faq.md"]);
    index.remove(["faq.md#0", "faq.md#1"]);
    expect(index.sectionsHeaded("immutability").map((chunk) => chunk.id)).toEqual([
      "concepts.md#1",
    ]);
    expect(index.pagesTitled("createstor")).toEqual([]);
    expect(reads.count).toBe(0);
  });

  it.each([
    ["createStore", "createstor"],
    ["compose", "compos"],
    ["Getting started", undefined],
  ])("finds the page titled %s by the identifier %s", (title, identifier) => {
    const index = LexicalIndex.build([section("api.md", 0, [title], "Answers.")]);
    expect(titleIdentifier(title)).toBe(identifier);
    if (identifier) expect(index.pagesTitled(identifier)).toEqual(["api.md"]);
  });
});

/**
 * The sections headed by `heading` as grouping the whole book afresh finds them: pages in path
 * order, each page's chunks in page order, the chunk opening a page by its title, the first chunk
 * of a section by its heading, and a section merged into a chunk by its heading line.
 */
function sectionsHeadedAfresh(chunks: ChunkRecord[], heading: string): string[] {
  const wanted = headingKey(heading);
  const found: string[] = [];
  const filePaths = [...new Set(chunks.map((chunk) => chunk.filePath))].sort();
  for (const filePath of filePaths) {
    const page = chunks
      .filter((chunk) => chunk.filePath === filePath)
      .sort((left, right) => left.chunkIndex - right.chunkIndex);
    let previous = "";
    for (const chunk of page) {
      const path = chunk.headingPath.join("\n");
      const own = chunk.headingPath.at(-1);
      const keys = [
        ...(chunk.chunkIndex === 0 ? [chunk.title] : []),
        ...(chunk.headingPath.length > 1 && path !== previous && own ? [own] : []),
        ...innerHeadings(chunk.text),
      ].map(headingKey);
      if (keys.includes(wanted)) found.push(chunk.id);
      previous = path;
    }
  }
  return found;
}

/** A seeded generator, so that a failure can be replayed. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("the sections headed by a key, as pages come and go", () => {
  const HEADINGS = [
    "Immutability",
    "Reducers",
    "the Store",
    "Selectors",
    "Immutable Data",
    "createStore",
    "combineReducers",
  ];
  // Paths whose order by name is not the order they are added in.
  const FILE_PATHS = ["b.md", "a.md", "a/b.md", "a-b.md", "B.md", "guide/z.md", "guide/a.md"];

  /** A page of one to four chunks; sections run over several chunks and some hold a heading line. */
  function page(filePath: string, version: number, random: () => number): ChunkRecord[] {
    const pick = () => HEADINGS[Math.floor(random() * HEADINGS.length)] as string;
    const title = pick();
    let sectionHeading = pick();
    return Array.from({ length: 1 + Math.floor(random() * 4) }, (_, chunkIndex) => {
      if (random() < 0.5) sectionHeading = pick();
      const headingPath = chunkIndex === 0 ? [title] : [title, sectionHeading];
      const text = random() < 0.3 ? `Some text.\n\n## ${pick()}\n\nMore text.` : "Some text.";
      return {
        ...section(filePath, chunkIndex, headingPath, text),
        id: `${filePath}#${chunkIndex}@${version}`,
      };
    });
  }

  it("are those the whole book grouped afresh gives, after every change", () => {
    const random = createRandom(7);
    const index = LexicalIndex.build([]);
    const current = new Map<string, ChunkRecord[]>();
    for (let step = 0; step < 200; step++) {
      const filePath = FILE_PATHS[Math.floor(random() * FILE_PATHS.length)] as string;
      const old = current.get(filePath) ?? [];
      // An ingest removes a changed page's chunks and adds its new ones; some pages just go.
      index.remove(old.map((chunk) => chunk.id));
      current.delete(filePath);
      if (random() < 0.75) {
        const next = page(filePath, step, random);
        // Chunks may arrive out of page order.
        index.add([...next].sort(() => random() - 0.5));
        current.set(filePath, next);
      }
      const chunks = [...index.allChunks()];
      for (const heading of [...HEADINGS, "immutable", "data"]) {
        expect(index.sectionsHeaded(heading).map((chunk) => chunk.id)).toEqual(
          sectionsHeadedAfresh(chunks, heading),
        );
      }
      for (const path of FILE_PATHS) {
        expect(index.chunksOfPage(path).map((chunk) => chunk.id)).toEqual(
          (current.get(path) ?? []).map((chunk) => chunk.id),
        );
      }
      const titles = new Map([...current].map(([path, page]) => [path, page[0]?.title ?? ""]));
      for (const identifier of ["createstor", "combinereduc", "reducers"]) {
        expect(index.pagesTitled(identifier)).toEqual(
          [...titles]
            .filter(([, title]) => titleIdentifier(title) === identifier)
            .map(([path]) => path)
            .sort(),
        );
      }
      const pattern = /^(immutab|the )/i;
      expect(index.pagesTitledLike(pattern)).toEqual(
        [...titles]
          .filter(([, title]) => pattern.test(title))
          .map(([path]) => path)
          .sort(),
      );
    }
  });

  it("are listed when an index is loaded from its snapshot", async () => {
    const random = createRandom(11);
    const chunks = FILE_PATHS.flatMap((filePath) => page(filePath, 0, random));
    const directory = await mkdtemp(path.join(tmpdir(), "lectern-headed-"));
    try {
      const file = path.join(directory, "book.bm25.json");
      await writeLexicalSnapshot(LexicalIndex.build(chunks), file, 1);
      const loaded = await readLexicalSnapshot(file, 1, chunks);
      for (const heading of HEADINGS) {
        expect(loaded?.sectionsHeaded(heading).map((chunk) => chunk.id)).toEqual(
          sectionsHeadedAfresh(chunks, heading),
        );
      }
      expect(loaded?.chunksOfPage("a.md").map((chunk) => chunk.chunkIndex)).toEqual(
        chunks.filter((chunk) => chunk.filePath === "a.md").map((chunk) => chunk.chunkIndex),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
