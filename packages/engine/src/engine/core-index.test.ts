import { describe, expect, it } from "vitest";
import { LexicalIndex } from "../search/lexical-index.ts";
import { chunkRecord } from "../search/test-builders.ts";
import { type CoreIndex, readCoreIndex, writeCoreIndex } from "./core-index.ts";

const chunks = [
  chunkRecord("c-1", "Spur gears mesh on parallel shafts.", "Spur gears"),
  chunkRecord("c-2", "Helical gears run quieter than spur gears.", "Helical gears"),
  chunkRecord("c-3", "A worm drive turns the axis by ninety degrees.", "Worm drives"),
  chunkRecord("c-4", "Bevel gears meet at an angle.", "Bevel gears"),
];

/** The index's core written for a static book, as JSON, and read back. */
function roundTrip(index: LexicalIndex, order: string[]) {
  const core = index.core(7);
  const written = JSON.parse(
    JSON.stringify(writeCoreIndex(core, (id) => order.indexOf(id))),
  ) as CoreIndex;
  return { core, written, read: readCoreIndex(written, (place) => order[place] ?? "") };
}

describe("the index's core in a static book", () => {
  it("reads back as it was written, its tables in their dense forms", () => {
    const index = LexicalIndex.build(chunks);
    const { core, written, read } = roundTrip(
      index,
      chunks.map((chunk) => chunk.id),
    );
    expect(JSON.stringify(read)).toBe(JSON.stringify(core));
    // Each chunk's short id is its place: the ids are their count; tables keyed 0… are lists.
    expect(written.miniSearch.documentIds).toBe(chunks.length);
    expect(Array.isArray(written.miniSearch.fieldLength)).toBe(true);
    expect(written.documentFrequency).toMatchObject({ terms: expect.any(String) });
    expect(LexicalIndex.fromCore(read, chunks)?.size).toBe(chunks.length);
  });

  it("keeps tables with gaps, places out of order and terms across lines as they are", () => {
    const index = LexicalIndex.build(chunks);
    index.remove(["c-2"]);
    const kept = chunks.filter((chunk) => chunk.id !== "c-2");
    // The book lists the chunks in another order than the index took them in.
    const { core, written, read } = roundTrip(index, kept.map((chunk) => chunk.id).reverse());
    expect(JSON.stringify(read)).toBe(JSON.stringify(core));
    expect(Array.isArray(written.miniSearch.documentIds)).toBe(false);

    const lines: typeof core = {
      ...core,
      documentFrequency: [
        ["one\ntwo", 1],
        ["gear", 2],
      ],
    };
    const again = readCoreIndex(
      JSON.parse(JSON.stringify(writeCoreIndex(lines, (id) => kept.findIndex((c) => c.id === id)))),
      (place) => kept[place]?.id ?? "",
    );
    expect(again.documentFrequency).toEqual(lines.documentFrequency);
  });

  it("searches a term's postings as last given, after searching it before", () => {
    const index = LexicalIndex.build(chunks);
    const { read } = roundTrip(
      index,
      chunks.map((chunk) => chunk.id),
    );
    const opened = LexicalIndex.fromCore(read, chunks);
    if (!opened) throw new Error("the core did not open");
    const [term, fields] = [...index.postings()].find(([name]) => name === "gear") ?? [];
    if (!term || !fields) throw new Error("no postings for gear");
    const options = { limit: 10 };
    const found = () => opened.search([term], options).map((hit) => hit.chunk.id);
    // A term's postings given first in part (its first document only), then whole.
    const first = fields.map(([field, flat]): [number, number[]] => [field, flat.slice(0, 2)]);
    opened.addPostings([[term, first]]);
    expect(found().length).toBe(1);
    opened.addPostings([[term, fields]]);
    expect(found().sort()).toEqual(
      index
        .search([term], options)
        .map((hit) => hit.chunk.id)
        .sort(),
    );
    expect(found().length).toBeGreaterThan(1);
  });

  it("reads an empty index", () => {
    const { core, read } = roundTrip(LexicalIndex.build([]), []);
    expect(JSON.stringify(read)).toBe(JSON.stringify(core));
  });
});
