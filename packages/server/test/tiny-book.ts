import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SearchFilters } from "@lectern/engine/search/filters";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";

/** A book of a few Markdown pages, ingested into a Lectern of its own in a temporary directory. */
export interface TinyBook {
  lectern: Lectern;
  /** A question through the pipeline `/chat` runs, without history. */
  ask(
    query: string,
    topK: number,
    filters?: SearchFilters,
  ): ReturnType<ReturnType<typeof createChatPipeline>["pipeline"]["run"]>;
  close(): Promise<void>;
}

/** Writes `pages` (file name → Markdown) to a docs folder, ingests it and fails on any page. */
export async function openTinyBook(name: string, pages: Record<string, string>): Promise<TinyBook> {
  const workDir = await mkdtemp(path.join(tmpdir(), `lectern-${name}-`));
  const docs = path.join(workDir, "docs");
  await mkdir(docs);
  for (const [file, text] of Object.entries(pages)) await writeFile(path.join(docs, file), text);
  const lectern = await openLectern(
    loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir: path.join(workDir, "data") } }),
  );
  const report = await lectern.ingest(docs);
  if (report.failures.length > 0) {
    await lectern.close();
    throw new Error(
      `ingest failed: ${report.failures.map((failure) => failure.message).join("; ")}`,
    );
  }
  const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
  return {
    lectern,
    ask: (query, topK, filters) =>
      pipeline.run({
        requestId: "r",
        sessionId: "s",
        query,
        selectedText: null,
        filters,
        sourceUrl: null,
        topK,
      }),
    close: async () => {
      await lectern.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
