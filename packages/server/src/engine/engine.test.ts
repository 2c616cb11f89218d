import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { LexicalIndex } from "../search/lexical-index.ts";
import { chunkRecord } from "../search/test-builders.ts";
import { openEngine, SnapshotMismatchError } from "./engine.ts";

const ENTRY = fileURLToPath(new URL("./static-book.ts", import.meta.url));

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
    external: ["ai"],
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs);
}

describe("the engine", () => {
  it("bundles for a browser with no Node built-in, database, ingestion, HTTP or CLI code", async () => {
    // A Node built-in anywhere it reaches fails the browser build itself.
    const modules = await bundledModules();
    expect(modules.some((file) => file.endsWith("src/pipeline/chat-pipeline.ts"))).toBe(true);
    const serverOnly = modules.filter((file) =>
      // Ingestion's text helpers (how chunks are cut and fenced) are plain string code.
      /src\/(?:http|cli)\/|src\/ingest\/(?!markdown-text|chunk\.ts)|src\/store\/(?!chunk-blocks)/.test(
        file,
      ),
    );
    expect(serverOnly).toEqual([]);
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
