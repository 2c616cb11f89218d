import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";

/**
 * Small sections are packed into one chunk, whose URL is its first section's. A quoted answer links
 * to the section the quote comes from, through ingest, the store and the pipeline `/chat` runs.
 */
let workDir: string;
let lectern: Lectern;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-section-links-"));
  const docs = path.join(workDir, "docs");
  await mkdir(docs);
  await writeFile(
    path.join(docs, "terms.md"),
    [
      "---",
      "title: Office Terms",
      "---",
      "",
      "# Office Terms",
      "",
      "## Broker",
      "",
      "A broker is a server that relays messages between clients on the office network.",
      "",
      "## Print spooler {#spooler}",
      "",
      "A spooler is a queue that holds print jobs until the printer is free.",
      "",
    ].join("\n"),
  );
  await writeFile(
    path.join(docs, "printing.md"),
    "# Printing\n\nPrinting a long report can take a while on the shared printer downstairs.\n",
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

describe("citations of a chunk merged from small sections", () => {
  it("link to the section holding the quoted passage", async () => {
    const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
    const outcome = await pipeline.run({
      requestId: "r",
      sessionId: "s",
      query: "What is a spooler?",
      selectedText: null,
      filters: undefined,
      sourceUrl: null,
      topK: 5,
    });
    expect(outcome.answer).toMatch(/^A spooler is a queue that holds print jobs/);
    const cited = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1]);
    const source = outcome.sources[cited - 1];
    expect(source).toMatchObject({
      file_path: "terms.md",
      source_url: "/docs/terms#spooler",
      section: "Print spooler",
      section_path: ["Office Terms", "Print spooler"],
    });
  });
});
