import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/**
 * CPU per exchange of what history and the question log write on PGlite, the way a server writes
 * them (PGlite on its worker thread, exchanges submitted together so that group commit batches
 * them, the question log's batch of the same questions), measured with the process's CPU time
 * (every thread). Exchanges are sized as a real `/chat` turn's: five sources of ~2.3 kB of JSON,
 * ~0.5 kB of metadata, a ~0.35 kB answer, ~1.1 kB cited in the question log.
 * `npx tsx --conditions=lectern-source bench/history-write.ts [--compare-tree <checkout>]
 * [--processes 4]` (from packages/server): this checkout and the other one in turn, a process each.
 */

const { values } = parseArgs({
  options: {
    tree: { type: "string" }, // internal: the checkout one child process measures
    "compare-tree": { type: "string" },
    processes: { type: "string", default: "4" },
    rounds: { type: "string", default: "6" },
  },
});

const GROUP = 25;
const GROUPS_PER_ROUND = 20;
/**
 * Rounds left out first: V8 compiles PGlite's WebAssembly again with its optimising compiler on
 * background threads for seconds after it opens, which the process's CPU time counts.
 */
const WARM_UP_ROUNDS = 4;

function words(count: number, seed: number): string {
  const vocabulary = [
    "motor",
    "controller",
    "tune",
    "the",
    "gain",
    "sensor",
    "loop",
    "it's",
    "—",
    "PID",
  ];
  return Array.from(
    { length: count },
    (_, index) => vocabulary[(index * 7 + seed) % vocabulary.length],
  ).join(" ");
}

function exchange(sessionId: string, seed: number) {
  const sources = Array.from({ length: 5 }, (_, index) => ({
    title: `Tuning ${index}`,
    url: `/docs/control/tuning-${index}#gains`,
    section: "Control › Tuning › Gains",
    snippet: words(60, seed + index),
    score: 0.8 - index * 0.1,
    chunk_id: randomUUID(),
  }));
  const metadata = {
    query_time_ms: 1.23,
    retrieval_count: 5,
    mode: "retrieval_only",
    low_confidence: false,
    request_id: randomUUID(),
    search_query: "how do I tune the motor controller",
    original_query: "How do I tune the motor controller?",
    route: "docs",
    stages: { retrieve_ms: 0.8, synthesize_ms: 0.3 },
    confidence: 0.74,
  };
  return {
    sessionId,
    messageId: randomUUID(),
    requestId: metadata.request_id,
    query: "How do I tune the motor controller?",
    selectedText: null,
    response: words(55, seed),
    sources,
    metadata,
  };
}

async function measure(tree: string): Promise<number[]> {
  const at = (file: string) =>
    pathToFileURL(path.join(tree, "packages/server/src/store", file)).href;
  const { openPgliteThread } = await import(at("pglite-thread.ts"));
  const { migrate } = await import(at("migrations.ts"));
  const { SqlHistoryStore } = await import(at("sql-history-store.ts"));
  const { QuestionLogStore } = await import(at("question-log-store.ts"));
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-history-write-"));
  const db = await openPgliteThread(path.join(dataDir, "db"));
  try {
    await migrate(db);
    const history = new SqlHistoryStore(db);
    const log = new QuestionLogStore(db, "default");
    const perExchange: number[] = [];
    for (let round = 1 - WARM_UP_ROUNDS; round <= Number(values.rounds); round++) {
      const started = process.cpuUsage();
      for (let group = 0; group < GROUPS_PER_ROUND; group++) {
        const exchanges = Array.from({ length: GROUP }, (_, index) =>
          exchange(randomUUID(), index),
        );
        await Promise.all(exchanges.map((item) => history.saveExchange(item)));
        await log.saveMany(
          exchanges.map((item) => ({
            sessionId: item.sessionId,
            messageId: item.messageId,
            askedAt: new Date(),
            question: item.query,
            selectedText: null,
            mode: "retrieval_only",
            lowConfidence: false,
            topScore: 0.8,
            unknownWords: [],
            cited: item.sources.map((source) => ({
              url: source.url,
              filePath: "docs/control/tuning.md",
              title: source.title,
              section: source.section,
              chunkId: source.chunk_id,
              contentHash: "3f2a9c0d5e7b1a4c",
            })),
          })),
        );
      }
      const used = process.cpuUsage(started);
      if (round > 0) perExchange.push((used.user + used.system) / (GROUP * GROUPS_PER_ROUND));
    }
    return perExchange;
  } finally {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const median = (list: number[]) =>
  [...list].sort((left, right) => left - right)[Math.floor(list.length / 2)] ?? Number.NaN;

if (values.tree) {
  process.stdout.write(`${JSON.stringify(await measure(values.tree))}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const here = fileURLToPath(new URL("../../..", import.meta.url));
  const trees = values["compare-tree"] ? [values["compare-tree"], here] : [here];
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  console.log(
    "| process | checkout | CPU µs per exchange, each round | median |\n|---:|---|---|---:|",
  );
  for (let run = 1; run <= Number(values.processes); run++) {
    for (const tree of trees) {
      const child = spawnSync(
        process.execPath,
        [
          tsx,
          "--conditions=lectern-source",
          self,
          "--tree",
          tree,
          "--rounds",
          String(values.rounds),
        ],
        { encoding: "utf8" },
      );
      const rounds = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "[]") as number[];
      console.log(
        `| ${run} | ${tree} | ${rounds.map((value) => value.toFixed(0)).join(", ")} | ${median(rounds).toFixed(0)} |`,
      );
    }
  }
}
