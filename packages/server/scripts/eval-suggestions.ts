/**
 * `npm run eval:suggestions [-- --misses]`: whether the questions the book suggests are answered
 * by the sections they name. For every section heading of the sample book and of each dev-set
 * book (../shared/devsets, or LECTERN_DEVSETS), the question a suggestion asks about it
 * (`questionAbout`, "What should I know about …?") goes through the `/chat` pipeline; it counts
 * when the answer's first citation is a section with that heading. `--misses` lists the others.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { questionAbout } from "../src/answer/suggestions.ts";
import { loadConfig } from "../src/config/config.ts";
import { openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import { headingKey } from "../src/search/analyzer.ts";
import type { LexicalIndex } from "../src/search/lexical-index.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const devsets = process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets");
const books: [string, string][] = [
  ["sample", path.join(repoRoot, "examples/robotics-primer/docs")],
  ...["redux", "jest", "pnpm"].map((name): [string, string] => [
    name,
    path.join(devsets, name, "docs"),
  ]),
];
const showMisses = process.argv.includes("--misses");

/** Every heading below a page's title, once. */
function headingsOf(index: LexicalIndex): string[] {
  const headings = new Set<string>();
  for (const chunk of index.allChunks()) {
    if (chunk.headingPath.length >= 2 && chunk.section) headings.add(chunk.section);
    for (const merged of chunk.sectionAnchors ?? [])
      if (merged.headingPath.length >= 2) headings.add(merged.heading);
  }
  return [...headings];
}

console.log("| book | headings | answered by the section named (first citation) |");
console.log("|---|---:|---:|");
let pooled = 0;
let pooledHits = 0;
for (const [name, docs] of books) {
  if (!existsSync(docs)) {
    console.log(`| ${name} | — | not found: ${docs} |`);
    continue;
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-eval-suggestions-"));
  const config = loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir } });
  const lectern = await openLectern(config, { workload: "ingest" });
  try {
    await lectern.ingest(docs);
    const { pipeline } = createChatPipeline(lectern, pino({ level: "warn" }));
    const index = lectern.served.index;
    if (!index) throw new Error("the book has no in-process index");
    const headings = headingsOf(index);
    let hits = 0;
    for (const [position, heading] of headings.entries()) {
      const query = questionAbout(heading);
      const outcome = await pipeline.run({
        requestId: `suggestion-${position}`,
        sessionId: "eval-suggestions",
        query,
        selectedText: null,
        sourceUrl: null,
        filters: undefined,
        topK: undefined,
        history: [],
      });
      const number = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1] ?? 0);
      const first = outcome.sources[number - 1];
      const led = first && "section" in first && headingKey(first.section) === headingKey(heading);
      if (led) hits++;
      else if (showMisses)
        console.error(`${name}: ${query} → ${first?.source_url ?? outcome.mode}`);
    }
    pooled += headings.length;
    pooledHits += hits;
    console.log(
      `| ${name} | ${headings.length} | ${hits} (${(hits / headings.length).toFixed(3)}) |`,
    );
  } finally {
    await lectern.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.log(`| pooled | ${pooled} | ${pooledHits} (${(pooledHits / pooled).toFixed(3)}) |`);
