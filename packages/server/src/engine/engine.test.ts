import { fileURLToPath } from "node:url";
import { packedSectionTerms } from "@lectern/engine/answer/section-card";
import { chunkBlocks } from "@lectern/engine/book/chunk-blocks";
import { openEngine, SnapshotMismatchError } from "@lectern/engine/engine/engine";
import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { chunkRecord } from "@lectern/engine/search/test-builders";
import { openStaticBook, STATIC_FORMAT } from "@lectern/engine/static/static-book";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../store/document-store.ts";
import { CORE_FILE, shardsWithCore, staticBookFiles } from "./static-files.ts";

const ENTRY = fileURLToPath(new URL("../../../engine/src/static/static-book.ts", import.meta.url));

/** The modules the browser build of the engine holds, as esbuild bundles it for a browser. */
async function bundledModules(): Promise<string[]> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    splitting: true,
    outdir: "out",
    format: "esm",
    platform: "browser",
    conditions: ["lectern-source"],
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs);
}

describe("the engine", () => {
  it("bundles for a browser with no Node built-in, database, ingestion, HTTP or CLI code", async () => {
    // A Node built-in anywhere it reaches fails the browser build itself.
    const modules = await bundledModules();
    expect(modules.some((file) => file.endsWith("engine/src/pipeline/chat-pipeline.ts"))).toBe(
      true,
    );
    expect(modules.filter((file) => /packages\/server\//.test(file))).toEqual([]);
    expect(modules.filter((file) => /node_modules\/ai\//.test(file))).toEqual([]);
    expect(
      modules.filter((file) =>
        /node_modules\/(?:@electric-sql|pg|pino|hono|unified|micromark|remark-[\w-]+)\//.test(file),
      ),
    ).toEqual([]);
  });

  it("answers from a snapshot of its book, and refuses an index of another book", async () => {
    const chunks = [
      chunkRecord(
        "gears",
        "Helical gears run quietly because their teeth engage gradually.",
        "Gears",
      ),
      chunkRecord("belts", "A timing belt keeps two shafts in step without slipping.", "Belts"),
    ];
    const index = [...LexicalIndex.build(chunks).snapshotPieces(3)].join("");
    const book = { indexVersion: 3, pages: [], chunks };
    const settings = { topK: 5, maxChunksPerPage: 1, routeBasePath: "/docs" };
    const engine = await openEngine({ book, index, settings });
    const answer = await engine.ask({ query: "Why do helical gears run quietly?" });
    expect(answer.mode).toBe("retrieval_only");
    expect(answer.answer).toContain("teeth engage gradually");
    expect(answer.sources[0]).toMatchObject({ file_path: "gears.md" });
    await expect(
      openEngine({ book: { ...book, indexVersion: 4 }, index, settings }),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
  });
});

describe("the engine over a sharded book", () => {
  const chunks = [
    chunkRecord(
      "gears",
      "Helical gears run quietly because their teeth engage gradually.",
      "Gears",
    ),
    chunkRecord("belts", "A timing belt keeps two shafts in step without slipping.", "Belts"),
    chunkRecord("motors", "A stepper motor turns in fixed steps, one pulse each.", "Motors"),
  ];
  const book = { indexVersion: 3, pages: [], chunks };
  const settings = { topK: 5, maxChunksPerPage: 1, routeBasePath: "/docs" };
  const index = LexicalIndex.build(chunks);

  /** The build's files served from memory under http://book.invalid/, each fetch counted. */
  function served(
    files: Map<string, string>,
    manifest: Record<string, unknown> = {},
    delayMs: (name: string) => number = () => 0,
  ) {
    const all = new Map([
      [
        "manifest.json",
        JSON.stringify({
          format: STATIC_FORMAT,
          indexVersion: 3,
          title: "Machines",
          core: `book/${CORE_FILE}`,
          settings,
          ...manifest,
        }),
      ],
      ...[...files].map(([name, text]): [string, string] => [`book/${name}`, text]),
    ]);
    const fetched: string[] = [];
    /** Each request and each response, in the order they happened. */
    const events: string[] = [];
    const fetcher = (async (url: URL | string) => {
      const name = new URL(url).pathname.slice(1);
      fetched.push(name);
      events.push(`asked ${name}`);
      await new Promise((resolve) => setTimeout(resolve, delayMs(name)));
      events.push(`answered ${name}`);
      const text = all.get(name);
      return new Response(text ?? "", { status: text === undefined ? 404 : 200 });
    }) as typeof fetch;
    return {
      fetched,
      events,
      open: () => openStaticBook("http://book.invalid/manifest.json", fetcher),
    };
  }

  it.each([
    ["each shard fetched when a question reads it", { pageShardChars: 1, wholeBookChars: 0 }],
    ["the whole book fetched with the core", {}],
  ])("looks terms up as keys of their own, whatever their name: %s", async (_, sizes) => {
    const named = [
      chunkRecord(
        "classes",
        "The constructor sets fields; toString and valueOf read them; hasOwnProperty checks one.",
        "Classes",
      ),
      chunkRecord("objects", "Every object links to __proto__ and its prototype chain.", "Objects"),
    ];
    const namedIndex = LexicalIndex.build(named);
    const files = staticBookFiles({ ...book, chunks: named }, namedIndex, undefined, sizes);
    const whole = await openEngine({
      book: { ...book, chunks: named },
      index: [...namedIndex.snapshotPieces(3)].join(""),
      settings,
    });
    const engine = await served(files, { withCore: shardsWithCore(files) }).open();
    for (const query of [
      "What does the constructor set?",
      "What do toString and valueOf read?",
      "What links to __proto__?",
    ]) {
      const answer = await engine.ask({ query });
      expect(answer.answer, query).not.toBeNull();
      expect(answer, query).toEqual(await whole.ask({ query }));
    }
    // A book without the word: the name of an object's own property is not a term of it.
    const machines = staticBookFiles(book, index, undefined, sizes);
    const query = "What is the constructor of a timing belt?";
    const wholeMachines = await openEngine({
      book,
      index: [...index.snapshotPieces(3)].join(""),
      settings,
    });
    const shardedMachines = await served(machines, { withCore: shardsWithCore(machines) }).open();
    expect(await shardedMachines.ask({ query })).toEqual(await wholeMachines.ask({ query }));
  });

  it.each([
    ["each shard fetched when a question reads it", { pageShardChars: 1, wholeBookChars: 0 }],
    ["the whole book fetched with the core", {}],
  ])("refuses a term shard whose postings are not postings: %s", async (_, sizes) => {
    const files = staticBookFiles(book, index, undefined, sizes);
    for (const name of [...files.keys()].filter((file) => file.startsWith("terms-"))) {
      const shard = JSON.parse(files.get(name) ?? "{}") as Record<string, string>;
      for (const term of Object.keys(shard)) shard[term] = "{}";
      files.set(name, JSON.stringify(shard));
    }
    const engine = await served(files, { withCore: shardsWithCore(files) }).open();
    await expect(engine.ask({ query: "Why do helical gears run quietly?" })).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
  });

  it("answers as over the whole book, fetching only the shards a question reads", async () => {
    // One chunk per page shard: a question reads one of three.
    const files = staticBookFiles(book, index, undefined, { pageShardChars: 1, wholeBookChars: 0 });
    expect([...files.keys()].filter((name) => name.startsWith("pages-"))).toHaveLength(3);
    const whole = await openEngine({
      book,
      index: [...index.snapshotPieces(3)].join(""),
      settings,
    });
    const { fetched, open } = served(files);
    const engine = await open();
    expect(fetched).toEqual(["manifest.json", `book/${CORE_FILE}`]);
    const query = "Why do helical gears run quietly?";
    expect(await engine.ask({ query })).toEqual(await whole.ask({ query }));
    const shards = fetched.slice(2);
    expect(shards.filter((name) => name.startsWith("book/pages-"))).toEqual([
      `book/pages-${chunks.findIndex((chunk) => chunk.filePath === "gears.md")}.json`,
    ]);
    expect(shards.filter((name) => name.startsWith("book/terms-")).length).toBeGreaterThan(0);
    await engine.ask({ query });
    expect(fetched.length).toBe(2 + shards.length);
  });

  it("writes a small book in one page shard and one term shard, fetched with its core: a question fetches nothing more", async () => {
    const files = staticBookFiles(book, index, undefined);
    expect([...files.keys()].sort()).toEqual([CORE_FILE, "pages-0.json", "terms-0.json"]);
    const withCore = shardsWithCore(files);
    expect(withCore).toEqual(["pages-0.json", "terms-0.json"]);
    const whole = await openEngine({
      book,
      index: [...index.snapshotPieces(3)].join(""),
      settings,
    });
    const { fetched, open } = served(files, { withCore });
    const engine = await open();
    const opened = ["manifest.json", `book/${CORE_FILE}`, "book/pages-0.json", "book/terms-0.json"];
    expect(fetched).toEqual(opened);
    for (const query of ["Why do helical gears run quietly?", "How does a stepper motor turn?"])
      expect(await engine.ask({ query })).toEqual(await whole.ask({ query }));
    expect(fetched).toEqual(opened);
    // The shards are asked for while the core is on its way: no round trip waits for the core.
    const slowCore = served(files, { withCore }, (name) => (name.endsWith(CORE_FILE) ? 20 : 0));
    await slowCore.open();
    expect(slowCore.events.indexOf("asked book/terms-0.json")).toBeLessThan(
      slowCore.events.indexOf(`answered book/${CORE_FILE}`),
    );
    // A book in many shards has none fetched with its core.
    expect(
      shardsWithCore(
        staticBookFiles(book, index, undefined, { pageShardChars: 1, wholeBookChars: 0 }),
      ),
    ).toEqual([]);
  });

  it("refuses shards fetched with the core that are of another build, or named as no shard is", async () => {
    const files = new Map(staticBookFiles(book, index, undefined));
    const withCore = shardsWithCore(files);
    await expect(served(files, { withCore: ["../core.json"] }).open()).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    files.set("pages-0.json", JSON.stringify({ elsewhere: ["text", null, "hash"] }));
    const engine = await served(files, { withCore }).open();
    await expect(engine.ask({ query: "Why do helical gears run quietly?" })).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    files.set("pages-0.json", "not JSON");
    const unparsed = await served(files, { withCore }).open();
    await expect(
      unparsed.ask({ query: "Why do helical gears run quietly?" }),
    ).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
  });

  it("gives a chunk its blocks as stored, whether its shard names them or reads them from its text", async () => {
    const stored = [
      { ...chunks[0], blocks: [{ kind: "heading" as const, text: "Quiet gears" }] },
      { ...chunks[1], blocks: chunkBlocks(chunks[1]?.text ?? "") },
      chunks[2],
    ] as ChunkRecord[];
    const files = staticBookFiles(
      { ...book, chunks: stored },
      LexicalIndex.build(stored),
      undefined,
      {
        pageShardChars: 1,
        wholeBookChars: 0,
      },
    );
    // The blocks reading the text gives are not written again; the sections' terms are.
    expect(JSON.parse(files.get("pages-1.json") ?? "{}")).toEqual({
      belts: [
        chunks[1]?.text,
        0,
        chunks[1]?.contentHash,
        packedSectionTerms(stored[1] as ChunkRecord),
      ],
    });
    const engine = await served(files).open();
    await engine.complete(() => engine.book.chunks.map((chunk) => chunk.text));
    expect(engine.book.chunks.map((chunk) => chunk.blocks)).toEqual(
      stored.map((chunk) => chunk.blocks),
    );
    expect(engine.book.chunks.map((chunk) => "blocks" in chunk)).toEqual([true, true, false]);
    expect(engine.book.chunks.map((chunk) => chunk.sectionTerms)).toEqual(
      stored.map(packedSectionTerms),
    );
  });

  it("answers questions asked at once, each as over the whole book", async () => {
    const files = staticBookFiles(book, index, undefined, { pageShardChars: 1, wholeBookChars: 0 });
    const whole = await openEngine({
      book,
      index: [...index.snapshotPieces(3)].join(""),
      settings,
    });
    // Shards arrive late and out of order, so that the runs interleave.
    const engine = await served(files, {}, (name) => (name.length * 7) % 13).open();
    const queries = [
      "Why do helical gears run quietly?",
      "What keeps two shafts in step?",
      "How does a stepper motor turn?",
      "helical gears and timing belts",
    ];
    const answers = await Promise.all(queries.map((query) => engine.ask({ query })));
    for (const [at, query] of queries.entries())
      expect(answers[at], query).toEqual(await whole.ask({ query }));
  });

  it("refuses a manifest of another format, and a shard of another build", async () => {
    const files = staticBookFiles(book, index, undefined, { pageShardChars: 1, wholeBookChars: 0 });
    await expect(served(files, { format: 1 }).open()).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    await expect(served(files, { indexVersion: 4 }).open()).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    const other = new Map(files);
    for (const name of files.keys())
      if (name.startsWith("pages-")) other.set(name, JSON.stringify({ elsewhere: ["text", null] }));
    const engine = await served(other).open();
    await expect(engine.ask({ query: "Why do helical gears run quietly?" })).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    // A shard without a chunk the core puts there.
    const partial = new Map(files);
    const gears = `pages-${chunks.findIndex((chunk) => chunk.filePath === "gears.md")}.json`;
    partial.set(gears, "{}");
    await expect(
      (await served(partial).open()).ask({ query: "Why do helical gears run quietly?" }),
    ).rejects.toMatchObject({ code: "STATIC_BOOK_INVALID" });
  });
});
