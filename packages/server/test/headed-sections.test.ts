import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";

/**
 * "What is X?" where the book explains X in a section of its own, while the passages that rank
 * first only use words of the same stem ("immutable" for immutability): through ingest, the index
 * and the pipeline `/chat` runs, the answer quotes that section and links to it.
 */
let workDir: string;
let lectern: Lectern;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-headed-sections-"));
  const docs = path.join(workDir, "docs");
  await mkdir(docs);
  await writeFile(
    path.join(docs, "prior-art.md"),
    "# Prior Art\n\n## Immutable\n\nImmutable is a JavaScript library of immutable collections. Immutable lists and immutable maps share structure, so an immutable update copies little.\n",
  );
  await writeFile(
    path.join(docs, "update-patterns.md"),
    "# Immutable Update Patterns\n\nImmutable updates copy each level of nested data that changes. Immutable updates of arrays use slice and concat; immutable updates of objects use spread.\n",
  );
  await writeFile(
    path.join(docs, "concepts.md"),
    [
      "# Concepts",
      "",
      "## State",
      "",
      "The state of the whole app lives in one object, and the views read what they show from it.",
      "",
      "## Immutability",
      "",
      'If something is "immutable", it can never be changed. JavaScript objects and arrays are mutable by default, so code that must not change them makes copies.',
      "",
    ].join("\n"),
  );
  lectern = await openLectern(
    loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir: path.join(workDir, "data") } }),
  );
  const report = await lectern.ingest(docs);
  expect(report.failures).toEqual([]);
});
afterAll(async () => {
  await lectern?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("a definition question", () => {
  it("quotes the section headed by X alone when the results only use another form of its word", async () => {
    const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
    const outcome = await pipeline.run({
      requestId: "r",
      sessionId: "s",
      query: "What is immutability?",
      selectedText: null,
      filters: undefined,
      sourceUrl: null,
      topK: 2,
    });
    const retrieved = outcome.sources
      .slice(0, 2)
      .map((source) => ("file_path" in source ? source.file_path : undefined));
    expect(retrieved).not.toContain("concepts.md");
    expect(outcome.answer).toMatch(/^If something is "immutable", it can never be changed\./);
    const cited = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1]);
    expect(outcome.sources[cited - 1]).toMatchObject({
      file_path: "concepts.md",
      source_url: "/docs/concepts#immutability",
      section: "Immutability",
    });
  });
});
