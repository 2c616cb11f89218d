import { describe, expect, it } from "vitest";
import { type CoreChunks, readCoreChunks, writeCoreChunks } from "./core-chunks.ts";

type Fields = Record<string, unknown>;

/** A chunk's core fields as ingest gives them, with `changes` over them. */
function chunk(page: string, index: number, path: string[], changes: Fields = {}): Fields {
  const anchor = path.at(-1)?.toLowerCase().replace(/ /g, "-");
  return {
    id: `${page}-${index}`,
    collection: "default",
    version: "",
    filePath: `${page}.md`,
    chunkIndex: index,
    totalChunks: 3,
    title: path[0],
    section: path.at(-1),
    headingPath: path,
    url: index === 0 ? `/docs/${page}` : `/docs/${page}#${anchor}`,
    tags: ["alpha"],
    tokenCount: 40 + index,
    ...changes,
  };
}

/** The chunks written into a core and read back: each chunk's fields and its shard. */
function roundTrip(pages: Fields[][]): { core: CoreChunks; read: Fields[]; shards: number[] } {
  const core = writeCoreChunks(pages, (at) => at % 2);
  const parsed = JSON.parse(JSON.stringify(core)) as CoreChunks;
  const chunks = readCoreChunks(parsed);
  return {
    core: parsed,
    read: chunks.map(({ fields, blocks }) => (blocks ? { ...fields, blocks: 1 } : fields)),
    shards: chunks.map(({ shard }) => shard),
  };
}

const plainRows = (core: CoreChunks) => core.rows.filter((row) => !Array.isArray(row)).length;

const ordinaryPage = [
  chunk("gears", 0, ["Gears"]),
  chunk("gears", 1, ["Gears", "Spur gears"], { blocks: 1 }),
  chunk("gears", 2, ["Gears", "Spur gears", "Pitch"], {
    sectionAnchors: [
      { anchor: "teeth", heading: "Teeth", headingPath: ["Gears", "Spur gears", "Pitch", "Teeth"] },
    ],
  }),
];

describe("the core's chunks", () => {
  const cases: { name: string; pages: Fields[][]; plain: number }[] = [
    { name: "an ordinary page", pages: [ordinaryPage], plain: 0 },
    {
      name: "a page of one chunk (every field shared) and a page with gaps in its chunk indexes",
      pages: [
        [chunk("solo", 0, ["Solo"])],
        [chunk("gaps", 0, ["Gaps"]), chunk("gaps", 4, ["Gaps", "Later"])],
      ],
      plain: 0,
    },
    {
      name: "a section not named as its path ends, anchors of their own, an anchor-less URL",
      pages: [
        [
          chunk("odd", 0, ["Odd"], { section: "Elsewhere" }),
          chunk("odd", 1, ["Odd", "Two words"], { url: "/docs/odd#custom-id" }),
          chunk("odd", 2, ["Odd", "Three"], { url: "/docs/other-page" }),
          chunk("odd", 3, ["Odd", "Four"], {
            sectionAnchors: [
              { anchor: "x-1", heading: "Named", headingPath: ["Odd", "Four", "Five"] },
              { anchor: "six", heading: "Six", headingPath: ["Other", "Six"] },
            ],
          }),
        ],
      ],
      plain: 0,
    },
    {
      name: "values a row cannot tell from a derived one: written as they are",
      pages: [
        [
          chunk("raw", 0, ["Raw"], { searchText: null }),
          chunk("raw", 1, ["Raw", "B"], { url: "#b" }),
          chunk("raw", 2, ["Raw", "C"], { headingPath: [2, "C"] }),
          chunk("raw", 3, ["Raw", "D"], { section: undefined, chunkIndex: undefined }),
          chunk("raw", 4, ["Raw", "E"], { tokenCount: Number.NaN }),
        ],
      ],
      plain: 5,
    },
    {
      name: "fields some chunks lack, a field named as an object's own property",
      pages: [
        [
          chunk("gaps", 0, ["Gaps"], { searchText: "gear teeth" }),
          chunk("gaps", 1, ["Gaps", "B"], { constructor: "kept" }),
        ],
      ],
      plain: 0,
    },
    {
      name: "anchors whose objects hold their fields in another order",
      pages: [
        [
          chunk("order", 0, ["Order"], {
            sectionAnchors: [{ heading: "A", anchor: "a", headingPath: ["Order", "A"] }],
          }),
          chunk("order", 1, ["Order", "B"]),
        ],
      ],
      plain: 1,
    },
  ];

  for (const { name, pages, plain } of cases)
    it(`reads back what was written: ${name}`, () => {
      const { core, read, shards } = roundTrip(pages);
      const written = pages.flat();
      expect(read).toHaveLength(written.length);
      read.forEach((fields, at) => {
        const expected = Object.fromEntries(
          Object.entries(written[at] as Fields).filter(([, value]) => value !== undefined),
        );
        expect(JSON.stringify(fields)).toBe(JSON.stringify(expected));
      });
      expect(shards).toEqual(written.map((_, at) => at % 2));
      expect(plainRows(core)).toBe(plain);
    });

  it("writes what a row can work out as null or not at all, and no field names in rows", () => {
    const { core } = roundTrip([ordinaryPage]);
    expect(core.own.slice(0, 3)).toEqual(["id", "headingPath", "section"]);
    const text = JSON.stringify(core.rows);
    for (const key of ["chunkIndex", "headingPath", "section", "url", "tokenCount"])
      expect(text).not.toContain(key);
    // The second chunk: its heading path adds one heading to the first's, its section and index
    // follow, its URL is the page's with its heading's plain anchor.
    const row = core.rows[1] as unknown[];
    const at = (key: string) => row[2 + core.own.indexOf(key)];
    expect(at("headingPath")).toEqual([1, "Spur gears"]);
    expect(at("section")).toBeNull();
    expect(at("chunkIndex")).toBeNull();
    expect(at("url")).toBe("#");
    expect(at("blocks")).toBe(1);
    // Shared by the page's chunks: written once.
    expect(core.shared[0]).toMatchObject({ filePath: "gears.md", tags: ["alpha"] });
  });

  it("gives each chunk's fields on the object `create` makes, in the keys' order", () => {
    const core = writeCoreChunks([ordinaryPage], () => 0);
    const proto = { kind: "lazy" };
    const made = readCoreChunks(core, (blocks) => Object.create(blocks ? proto : null));
    expect(Object.getPrototypeOf(made[1]?.fields)).toBe(proto);
    expect(Object.getPrototypeOf(made[0]?.fields)).toBeNull();
    expect(Object.keys(made[2]?.fields ?? {})).toEqual(core.keys);
  });
});
