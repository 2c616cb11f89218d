import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadConfig } from "../src/config/config.ts";
import { openLectern } from "../src/lectern.ts";
import { createRandom, TextGenerator } from "./corpus.ts";
import {
  benchCpu,
  benchHistoryRounds,
  benchHttp,
  type HistoryRound,
  type HttpBenchRow,
  median,
} from "./http.ts";
import { benchIngestMemory } from "./ingest-memory.ts";
import { benchEmbeddingTopics, benchInsights } from "./insights.ts";
import { benchEmbeddingIngest, benchTimeToFirstToken } from "./model.ts";
import { benchPipeline } from "./pipeline.ts";
import { benchRerank } from "./rerank.ts";
import { benchRetrieval, benchSearch, QUERY_KINDS, type RetrievalRow } from "./retrieval.ts";
import type { RowUsage } from "./server-usage.ts";
import { benchStartup } from "./startup.ts";
import { benchStatic, type StaticRow } from "./static.ts";
import { benchWidget } from "./widget.ts";

/**
 * `npm run bench`: ingest throughput on a generated book, retrieval latency through the chat
 * pipeline at several index sizes, reranking latency, HTTP, model and widget timings. Prints
 * Markdown tables (pasted into docs/benchmarks.md) and writes .bench/results.json.
 */

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "1000" },
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "500" },
    only: { type: "string" },
    seconds: { type: "string", default: "10" },
    "rerank-model": { type: "string" }, // a real cross-encoder directory for --only rerank
    runs: { type: "string", default: "20" }, // processes per start-up row
    "database-url": { type: "string" }, // --only http: also history and the book in PostgreSQL
    "redis-url": { type: "string" }, // --only http: also answers from the Redis answer cache
    rounds: { type: "string", default: "5" }, // --only history-rounds / cpu: interleaved rounds
    "node-flags": { type: "string" }, // --only history-rounds: Node/V8 flags for every server
    "compare-flags": { type: "string" }, // --only history-rounds: on and off, without and with these flags
    throttle: { type: "string", default: "4" }, // --only static: Chromium's CPU slowed this many times
    "static-runs": { type: "string", default: "15" }, // --only static: fresh browser contexts per book
    "compare-tree": { type: "string" }, // --only history-rounds / cpu: another checkout's servers, in turn
    "compare-cli": { type: "string" }, // --only ingest-memory: another build's bin/lectern.js, in turn
    passes: { type: "string", default: "60" }, // --only pipeline: passes over the sample questions
    "touch-mb": { type: "string", default: "8" }, // --only pipeline: memory written between questions
  },
});
const pages = Number(values.pages);
const sizes = (values.sizes ?? "").split(",").map(Number).filter(Boolean);
const queryCount = Number(values.queries);

const results: Record<string, unknown> = {
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  date: new Date().toISOString(),
};

/** The sample book ingested into a fresh data directory, for the benchmarks that serve it. */
async function ingestSampleBook(dataDir: string): Promise<void> {
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  try {
    await lectern.ingest(
      fileURLToPath(new URL("../../../examples/robotics-primer/docs", import.meta.url)),
    );
  } finally {
    await lectern.close();
  }
}

/** The sample book ingested into a schema of its own in this PostgreSQL database. */
async function sampleBookInPostgres(
  databaseUrl: string,
): Promise<{ url: string; dataDir: string; drop: () => Promise<void> }> {
  const schema = `lectern_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-pg-"));
  const lectern = await openLectern(
    loadConfig({ env: { DATABASE_URL: url.toString() }, overrides: { dataDir } }),
  );
  try {
    await lectern.ingest(
      fileURLToPath(new URL("../../../examples/robotics-primer/docs", import.meta.url)),
    );
  } finally {
    await lectern.close();
  }
  return {
    url: url.toString(),
    dataDir,
    async drop() {
      const cleanup = new pg.Client({ connectionString: databaseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleanup.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function ms(value: number): string {
  return value.toFixed(2);
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(", ");
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MB`;
}

async function benchIngest(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-"));
  const docsDir = path.join(workDir, "docs");
  const generator = new TextGenerator(createRandom(42));
  const generated = Array.from({ length: pages }, (_, index) => generator.page(index));
  for (const page of generated) {
    await mkdir(path.dirname(path.join(docsDir, page.path)), { recursive: true });
    await writeFile(path.join(docsDir, page.path), page.content);
  }
  const config = loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "data") } });
  let started = performance.now();
  const lectern = await openLectern(config);
  const openSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const first = await lectern.ingest(docsDir);
  const firstSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const noop = await lectern.ingest(docsDir);
  const noopSeconds = (performance.now() - started) / 1000;

  const changed = generated[Math.floor(pages / 2)];
  if (!changed) throw new Error("no page to change");
  await writeFile(
    path.join(docsDir, changed.path),
    `${changed.content}\n\nA new closing paragraph about gearboxes.\n`,
  );
  started = performance.now();
  const oneChanged = await lectern.ingest(docsDir);
  const oneChangedSeconds = (performance.now() - started) / 1000;
  await lectern.close();
  await rm(workDir, { recursive: true, force: true });

  if (first.failures.length || oneChanged.updated.length !== 1 || noop.changed) {
    throw new Error("ingest benchmark did not behave as expected");
  }
  results.ingest = {
    pages,
    chunks: first.totalChunks,
    openDatabaseSeconds: openSeconds,
    firstIngestSeconds: firstSeconds,
    pagesPerSecond: pages / firstSeconds,
    noChangeSeconds: noopSeconds,
    oneChangedSeconds,
    rss: process.memoryUsage().rss,
  };
  console.log(
    `\n## Ingest (${pages} generated pages → ${first.totalChunks} chunks, PGlite on disk, no embeddings)\n`,
  );
  console.log("| step | seconds | note |\n|---|---:|---|");
  console.log(
    `| open database (create) | ${openSeconds.toFixed(2)} | PGlite initdb of a new data dir |`,
  );
  console.log(
    `| first ingest | ${firstSeconds.toFixed(2)} | ${(pages / firstSeconds).toFixed(0)} pages/s |`,
  );
  console.log(
    `| re-ingest, nothing changed | ${noopSeconds.toFixed(2)} | all pages skipped by hash |`,
  );
  console.log(
    `| re-ingest, one page changed | ${oneChangedSeconds.toFixed(2)} | 1 updated, index patched |`,
  );
  console.log(`\nRSS after ingest: ${mb(process.memoryUsage().rss)}`);
}

/**
 * The static build of the sample book and of the generated book (`--pages`), answered in Chromium
 * from plain files with the CPU throttled (compiled CLI and engine: `npm run build` first).
 */
async function benchStaticRows(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-static-"));
  const generator = new TextGenerator(createRandom(42));
  const generated = Array.from({ length: pages }, (_, index) => generator.page(index));
  const docsDir = path.join(workDir, "generated-docs");
  for (const page of generated) {
    await mkdir(path.dirname(path.join(docsDir, page.path)), { recursive: true });
    await writeFile(path.join(docsDir, page.path), page.content);
  }
  // Questions in the generated book's words: a page's title, then another's.
  const titleOf = (index: number) =>
    /^title: (.+)$/m.exec(generated[index]?.content ?? "")?.[1] ?? "robot";
  const options = { runs: Number(values["static-runs"]), throttle: Number(values.throttle) };
  const sampleDocs = fileURLToPath(
    new URL("../../../examples/robotics-primer/docs", import.meta.url),
  );
  const rows: StaticRow[] = [];
  try {
    rows.push(
      await benchStatic("sample book", sampleDocs, path.join(workDir, "sample"), {
        ...options,
        question: "How do I publish messages on a topic?",
        next: "What is a URDF file?",
      }),
      // A question the book cannot answer: its refusal names the question's words the book
      // never uses, read by the word-class list, which the engine loads for it.
      await benchStatic(
        "sample book, a question it cannot answer",
        sampleDocs,
        path.join(workDir, "refusal"),
        {
          ...options,
          question: "What is a good recipe for sourdough bread?",
          next: "How do I brew a good pour-over coffee?",
        },
      ),
      await benchStatic(`${pages} generated pages`, docsDir, path.join(workDir, "generated"), {
        ...options,
        question: `How does ${titleOf(7)} work?`,
        next: `What is ${titleOf(400)}?`,
      }),
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  results.static = rows;
  console.log(
    `\n## Static build: answers in the browser (Chromium, CPU throttled ${options.throttle}×, engine and book cold, ${options.runs} runs)\n`,
  );
  console.log(
    "| book | pages | engine (gzip) | book files (gzip) | core (gzip) | first question fetches (gzip) | shards fetched | first answer p50 | max | engine fetched at the question: first answer p50 | next answer p50 | panel opened (book opened, engine warmed) p50 | then the first answer p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  for (const row of rows)
    console.log(
      `| ${row.book} | ${row.pages} | ${kb(row.engineGzip)} | ${kb(row.bookGzip)} | ${kb(row.coreGzip)} | ${kb(row.firstQuestionGzip)} | ${row.firstQuestionShards} of ${row.shards} | ${row.firstAnswerP50Ms.toFixed(0)} ms | ${row.firstAnswerMaxMs.toFixed(0)} ms | ${row.engineAtQuestionP50Ms.toFixed(0)} ms | ${row.nextAnswerP50Ms.toFixed(0)} ms | ${row.panelOpenP50Ms.toFixed(0)} ms | ${row.panelFirstAnswerP50Ms.toFixed(0)} ms |`,
    );
}

function percent(share: number | undefined): string {
  return share === undefined ? "n/a" : (share * 100).toFixed(1);
}

function cores(value: number | undefined): string {
  return value === undefined ? "n/a" : value.toFixed(2);
}

/** Pearson's correlation of two equally long series; undefined when either does not vary. */
function correlation(left: number[], right: number[]): number | undefined {
  const mean = (values: number[]) =>
    values.reduce((total, value) => total + value, 0) / values.length;
  const leftMean = mean(left);
  const rightMean = mean(right);
  let product = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  for (const [index, value] of left.entries()) {
    const other = right[index] ?? rightMean;
    product += (value - leftMean) * (other - rightMean);
    leftSquares += (value - leftMean) ** 2;
    rightSquares += (other - rightMean) ** 2;
  }
  return leftSquares && rightSquares ? product / Math.sqrt(leftSquares * rightSquares) : undefined;
}

/**
 * Where each server's time went in each round: its GC pauses, its main thread on a core and
 * waiting for one, and the cores the load generator and the rest of the machine took; then, per
 * server, how its rate across rounds follows each of them.
 */
function printRoundUsage(rounds: HistoryRound[]): void {
  console.log(
    "\n### Where the time went, per server and round (shares of the row's wall time)\n\n| round | server | req/s | CPU ms/request | GC pauses % | of which full/incremental % | GCs/s | main thread on a core % | main thread waiting for a core % | server's other threads (cores) | load generator (cores) | rest of machine (cores) |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const { round, rows } of rounds) {
    for (const row of rows) {
      const usage = row.usage;
      console.log(
        `| ${round} | ${row.history} | ${row.requestsPerSecond.toFixed(0)} | ${row.serverCpuMsPerRequest?.toFixed(2) ?? "n/a"} | ${percent(usage?.gcPauseShare)} | ${percent(usage?.gcMajorShare)} | ${usage?.gcPerSecond?.toFixed(0) ?? "n/a"} | ${percent(usage?.mainThreadRunShare)} | ${percent(usage?.mainThreadWaitShare)} | ${cores(usage?.serverOtherThreadsCores)} | ${cores(usage?.loadGeneratorCores)} | ${cores(usage?.restOfMachineCores)} |`,
      );
    }
  }
  const labels = rounds[0]?.rows.map((row) => row.history) ?? [];
  console.log("\nCorrelation across rounds of each server's req/s with:\n");
  for (const label of labels) {
    const rows = rounds.flatMap(({ rows }) => rows.filter((row) => row.history === label));
    const rate = rows.map((row) => row.requestsPerSecond);
    const against = (pick: (usage: RowUsage) => number | undefined) => {
      const values = rows.map((row) => (row.usage ? pick(row.usage) : undefined));
      if (values.some((value) => value === undefined)) return "n/a";
      return correlation(rate, values as number[])?.toFixed(2) ?? "n/a";
    };
    console.log(
      `- ${label}: GC pauses ${against((usage) => usage.gcPauseShare)}, main thread waiting for a core ${against((usage) => usage.mainThreadWaitShare)}, load generator ${against((usage) => usage.loadGeneratorCores)}, rest of machine ${against((usage) => usage.restOfMachineCores)}`,
    );
  }
}

/** History on ÷ off of another checkout and of this one, round by round (`--compare-tree`). */
function printTreeRounds(rounds: HistoryRound[], tree: string): void {
  console.log(
    `\n## POST /chat, history on (PGlite) and off, ${tree} and this checkout in turn (sample book, 50 connections, ${values.seconds} s per row)\n`,
  );
  console.log(
    "| round | other: on req/s, CPU ms/request | other: off | this: on | this: off | other: on ÷ off (req/s, CPU/request) | this: on ÷ off (req/s, CPU/request) |\n|---:|---|---|---|---|---|---|",
  );
  const ratios: { other: number[]; self: number[] } = { other: [], self: [] };
  const cell = (row: HttpBenchRow) =>
    `${row.requestsPerSecond.toFixed(0)}, ${row.serverCpuMsPerRequest?.toFixed(2) ?? "n/a"}`;
  const ratio = (on: HttpBenchRow, off: HttpBenchRow, into: number[]) => {
    const cpu =
      (on.serverCpuMsPerRequest ?? Number.NaN) / (off.serverCpuMsPerRequest ?? Number.NaN);
    into.push(cpu);
    return `${(on.requestsPerSecond / off.requestsPerSecond).toFixed(2)}, ${cpu.toFixed(2)}`;
  };
  for (const { round, rows } of rounds) {
    const [otherOn, otherOff, on, off] = rows;
    if (!otherOn || !otherOff || !on || !off) continue;
    console.log(
      `| ${round} | ${cell(otherOn)} | ${cell(otherOff)} | ${cell(on)} | ${cell(off)} | ${ratio(otherOn, otherOff, ratios.other)} | ${ratio(on, off, ratios.self)} |`,
    );
  }
  const median = (values: number[]) =>
    [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]?.toFixed(2);
  console.log(
    `\nCPU per request, on ÷ off, median: ${tree} ${median(ratios.other)}, this checkout ${median(ratios.self)}`,
  );
}

console.log(`Machine: ${results.machine}; load average at start: ${loadAverage()}`);
if (values.only === undefined || values.only === "ingest") await benchIngest();
if (values.only === "ingest-memory") {
  const cli = fileURLToPath(new URL("../bin/lectern.js", import.meta.url));
  const clis = values["compare-cli"] ? [values["compare-cli"], cli] : [cli];
  const rows = await benchIngestMemory({ pages, rounds: Number(values.rounds), clis });
  console.log(
    `\n## \`lectern ingest\` of ${pages} generated pages, peak RSS counting child processes (compiled CLI, ${values.rounds} rounds in turn)\n`,
  );
  console.log(
    "| round | command | seconds | peak RSS, process and children summed | the command's process | its children |\n|---:|---|---:|---:|---:|---:|",
  );
  for (const row of rows) {
    console.log(
      `| ${row.round} | ${row.cli} | ${row.seconds.toFixed(1)} | ${row.peakTreeMb} MB | ${row.peakMainMb} MB | ${row.peakChildrenMb} MB |`,
    );
  }
  results.ingestMemory = rows;
}
if (values.only === undefined || values.only === "retrieval") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-retrieval-"));
  const lectern = await openLectern(
    loadConfig({ env: { LOG_LEVEL: "silent" }, overrides: { dataDir } }),
  );
  const { topK, maxChunksPerPage } = lectern.config.search;
  console.log(
    `\n## Retrieval through the chat pipeline (BM25 + calibration + diversity, top-${topK}, ${maxChunksPerPage} chunk per page, ${queryCount} queries)\n`,
  );
  const retrieval: RetrievalRow[] = [];
  const loads: string[] = [];
  for (const size of sizes) {
    retrieval.push(await benchRetrieval(lectern, size, queryCount));
    loads.push(`${size.toLocaleString("en")} chunks: ${loadAverage()}`);
  }
  await lectern.close();
  await rm(dataDir, { recursive: true, force: true });
  console.log(
    "| chunks | queries | retrieve p50 (ms) | retrieve p95 (ms) | retrieve p99 (ms) | turn p50 (ms) | turn p95 (ms) | refused |\n|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of retrieval) {
    for (const kind of ["all", ...QUERY_KINDS] as const) {
      const summary = row.byKind[kind];
      console.log(
        `| ${row.chunks.toLocaleString("en")} ${kind} | ${summary.queries} | ${ms(summary.retrieveP50Ms)} | ${ms(summary.retrieveP95Ms)} | ${ms(summary.retrieveP99Ms)} | ${ms(summary.totalP50Ms)} | ${ms(summary.totalP95Ms)} | ${summary.noResults} |`,
      );
    }
  }
  console.log(
    "\n| chunks | index build (s) | heap for corpus + index | typos corrected | unknown words matched |\n|---:|---:|---:|---:|---:|",
  );
  for (const row of retrieval) {
    console.log(
      `| ${row.chunks.toLocaleString("en")} | ${row.buildSeconds.toFixed(2)} | ${Math.round(row.heapMb)} MB | ${row.typosCorrected}/${row.byKind.typo.queries} | ${row.unknownCorrected}/${2 * row.byKind.unknown.queries} |`,
    );
  }
  console.log(
    "\n### Sections headed by X (what a definition question looks up)\n\n| chunks | first chunksOfPage (ms) | heap for pages | first sectionsHeaded (ms) | heap for headings | lookups | later p50 (ms) | later p95 (ms) | later p99 (ms) | page changes | page change p50 (ms) | page change p95 (ms) | titled lookups after a change p50 (ms) | p95 (ms) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of retrieval) {
    const headed = row.headed;
    console.log(
      `| ${row.chunks.toLocaleString("en")} | ${ms(headed.pagesFirstMs)} | ${headed.pagesHeapMb.toFixed(1)} MB | ${ms(headed.firstMs)} | ${headed.heapMb.toFixed(1)} MB | ${headed.lookups} | ${ms(headed.laterP50Ms)} | ${ms(headed.laterP95Ms)} | ${ms(headed.laterP99Ms)} | ${headed.pageChanges} | ${ms(headed.pageChangeP50Ms)} | ${ms(headed.pageChangeP95Ms)} | ${ms(headed.titledAfterChangeP50Ms)} | ${ms(headed.titledAfterChangeP95Ms)} |`,
    );
  }
  console.log(
    "\n### GET /search (keyword search as the reader types, each query cut inside its last word)\n\n| chunks | searches | p50 (ms) | p95 (ms) | p99 (ms) | CPU p50 (ms) | CPU p95 (ms) |\n|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of retrieval) {
    console.log(
      `| ${row.chunks.toLocaleString("en")} | ${row.search.queries} | ${ms(row.search.p50Ms)} | ${ms(row.search.p95Ms)} | ${ms(row.search.p99Ms)} | ${ms(row.search.cpuP50Ms)} | ${ms(row.search.cpuP95Ms)} |`,
    );
  }
  console.log(`\nLoad average (1, 5, 15 min) after each size: ${loads.join("; ")}`);
  results.retrieval = retrieval;
}
if (values.only === "search") {
  console.log(
    `\n### GET /search alone (keyword search as the reader types, each query cut inside its last word; ${queryCount} searches)\n\n| chunks | index build (s) | searches | p50 (ms) | p95 (ms) | p99 (ms) | CPU p50 (ms) | CPU p95 (ms) |\n|---:|---:|---:|---:|---:|---:|---:|---:|`,
  );
  const rows = [];
  const loads: string[] = [];
  for (const size of sizes) {
    const row = benchSearch(size, queryCount);
    rows.push(row);
    loads.push(`${size.toLocaleString("en")} chunks: ${loadAverage()}`);
    console.log(
      `| ${row.chunks.toLocaleString("en")} | ${row.buildSeconds.toFixed(2)} | ${row.search.queries} | ${ms(row.search.p50Ms)} | ${ms(row.search.p95Ms)} | ${ms(row.search.p99Ms)} | ${ms(row.search.cpuP50Ms)} | ${ms(row.search.cpuP95Ms)} |`,
    );
  }
  console.log(`\nLoad average (1, 5, 15 min) after each size: ${loads.join("; ")}`);
  results.search = rows;
}
if (values.only === undefined || values.only === "rerank") {
  const rerank = await benchRerank(
    values["rerank-model"] === undefined ? {} : { modelDir: values["rerank-model"] },
  );
  console.log(
    `\n## Reranking (${rerank.model}, ${rerank.candidates} candidates, ${rerank.meanPairTokens.toFixed(0)} tokens per question + passage, ${rerank.runs} runs)\n`,
  );
  console.log(
    "| batch size | model calls | p50 (ms) | p95 (ms) | mean (ms) |\n|---:|---:|---:|---:|---:|",
  );
  for (const row of rerank.rows) {
    console.log(
      `| ${row.batchSize} | ${row.modelCalls} | ${row.p50Ms.toFixed(2)} | ${row.p95Ms.toFixed(2)} | ${row.meanMs.toFixed(2)} |`,
    );
  }
  console.log(
    `\nTokenizing the ${rerank.candidates} pairs alone: p50 ${rerank.tokenizeP50Ms.toFixed(2)} ms, p95 ${rerank.tokenizeP95Ms.toFixed(2)} ms`,
  );
  results.rerank = rerank;
}
if (values.only === undefined || values.only === "http") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-http-"));
  await ingestSampleBook(dataDir);
  const databaseUrl = values["database-url"];
  const postgres = databaseUrl ? await sampleBookInPostgres(databaseUrl) : undefined;
  const rows = await benchHttp(dataDir, Number(values.seconds), {
    ...(postgres ? { postgres } : {}),
    ...(values["redis-url"] ? { redisUrl: values["redis-url"] } : {}),
  });
  await postgres?.drop();
  console.log(
    `\n## POST /chat (sample book, retrieval-only, autocannon ${values.seconds} s per row)\n`,
  );
  console.log(
    "| history | connections | requests/s | p50 (ms) | p95 (ms) | p99 (ms) | errors | server CPU ms/request |\n|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of rows) {
    console.log(
      `| ${row.history} | ${row.connections} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50Ms.toFixed(1)} | ${row.p95Ms.toFixed(1)} | ${row.p99Ms.toFixed(1)} | ${row.errors} | ${row.serverCpuMsPerRequest?.toFixed(2) ?? "n/a"} |`,
    );
  }
  results.http = rows;
  await rm(dataDir, { recursive: true, force: true });
}
if (values.only === "cpu") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-cpu-"));
  await ingestSampleBook(dataDir);
  const rounds = Number(values.rounds);
  const rows = await benchCpu(dataDir, Number(values.seconds), rounds, 50, values["compare-tree"]);
  console.log(
    `\n## CPU per request (sample book, retrieval-only, 50 connections, ${rounds} interleaved rounds of ${values.seconds} s)\n`,
  );
  console.log(
    "| server | response bytes | CPU ms/request (median) | each round | requests/s (median) | × the bare route (median of rounds; each round) |\n|---|---:|---:|---|---:|---:|",
  );
  const each = (values: number[], digits: number) =>
    values.map((v) => v.toFixed(digits)).join(", ");
  for (const row of rows)
    console.log(
      `| ${row.server} | ${row.bodyBytes} | ${row.medianCpuMs.toFixed(2)} | ${each(row.cpuMsPerRequest, 2)} | ${row.requestsPerSecond.toFixed(0)} | ${row.ratio.toFixed(1)} (${each(row.roundRatios, 1)}) |`,
    );
  const own = rows[1];
  const other = values["compare-tree"] ? rows.at(-1) : undefined;
  if (own && other) {
    const paired = own.cpuMsPerRequest.map(
      (ms, round) => ms / (other.cpuMsPerRequest[round] ?? NaN),
    );
    console.log(
      `\nThis checkout's /chat ÷ ${values["compare-tree"]}'s, round by round: median ${median(paired).toFixed(2)} (${each(paired, 2)})`,
    );
  }
  results.cpu = rows;
  await rm(dataDir, { recursive: true, force: true });
}
if (values.only === "pipeline") {
  const passes = Number(values.passes);
  if (!Number.isInteger(passes) || passes < 10) throw new Error("--passes must be 10 or more");
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-pipeline-"));
  await ingestSampleBook(dataDir);
  const rows = await benchPipeline(dataDir, passes, [0, Number(values["touch-mb"])]);
  await rm(dataDir, { recursive: true, force: true });
  const ms = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(3));
  const seconds = (value: number | undefined) =>
    value === undefined ? "n/a" : (value / 1000).toFixed(2);
  console.log(
    `\n## The chat pipeline in process (sample book, ${rows[0]?.questions} questions, ${passes} passes, compiled modules, no HTTP)\n`,
  );
  console.log(
    "| memory written before each question | CPU ms/question, passes 1–5 | second half (median pass) | the main thread (mean pass) | other threads' CPU, first half / second half (s) | the pipeline's own clock per question, second half (ms) |\n|---:|---:|---:|---:|---|---|",
  );
  for (const row of rows) {
    // The pipeline's own total last: the stages it is made of first.
    const stages = Object.entries(row.stageMs)
      .sort(([left], [right]) => Number(left === "total") - Number(right === "total"))
      .map(([stage, value]) => `${stage} ${value.toFixed(3)}`)
      .join(", ");
    console.log(
      `| ${row.touchMb} MB | ${ms(row.firstPassesMs)} | **${ms(row.steadyMs)}** | ${ms(row.steadyMainMs)} | ${seconds(row.othersFirstHalfMs)} / ${seconds(row.othersSecondHalfMs)} | ${stages} |`,
    );
  }
  results.pipeline = rows;
}
if (values.only === "history-rounds") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-rounds-"));
  await ingestSampleBook(dataDir);
  const flags = (option: string | undefined) => option?.split(/\s+/).filter(Boolean);
  const nodeFlags = flags(values["node-flags"]) ?? [];
  const compareFlags = flags(values["compare-flags"]);
  const rounds = await benchHistoryRounds(dataDir, {
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    connections: 50,
    nodeFlags,
    ...(compareFlags ? { compareFlags } : {}),
    ...(values["compare-tree"] ? { compareTree: values["compare-tree"] } : {}),
  });
  const flagNote = nodeFlags.length ? `, every server started with \`${nodeFlags.join(" ")}\`` : "";
  if (values["compare-tree"]) {
    printTreeRounds(rounds, values["compare-tree"]);
  } else if (!compareFlags) {
    console.log(
      `\n## POST /chat, history on (PGlite) and off measured in turn (sample book, 50 connections, ${values.seconds} s per row${flagNote})\n`,
    );
    console.log(
      "| round | on (PGlite): req/s | CPU ms/request | on, question log off: req/s | CPU ms/request | off: req/s | CPU ms/request | on, PGlite on the main thread: req/s | CPU ms/request | off, question log on: req/s | CPU ms/request | on ÷ off | on, log off ÷ off | on, main thread ÷ off | on ÷ off, log on both | errors |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    const ratios: number[] = [];
    const mainThreadRatios: number[] = [];
    const cpuRatios: number[] = [];
    const logOnRatios: number[] = [];
    const logOnCpuRatios: number[] = [];
    for (const { round, rows } of rounds) {
      const [on, logOff, off, mainThread, offLogOn] = rows;
      if (!on || !logOff || !off || !mainThread || !offLogOn) continue;
      ratios.push(on.requestsPerSecond / off.requestsPerSecond);
      logOnRatios.push(on.requestsPerSecond / offLogOn.requestsPerSecond);
      if (on.serverCpuMsPerRequest && off.serverCpuMsPerRequest)
        cpuRatios.push(on.serverCpuMsPerRequest / off.serverCpuMsPerRequest);
      if (on.serverCpuMsPerRequest && offLogOn.serverCpuMsPerRequest)
        logOnCpuRatios.push(on.serverCpuMsPerRequest / offLogOn.serverCpuMsPerRequest);
      mainThreadRatios.push(mainThread.requestsPerSecond / off.requestsPerSecond);
      const cpu = (row: typeof on) => row.serverCpuMsPerRequest?.toFixed(2) ?? "n/a";
      const rate = (row: typeof on) => row.requestsPerSecond.toFixed(0);
      const ratio = (row: typeof on, to: typeof on) =>
        (row.requestsPerSecond / to.requestsPerSecond).toFixed(2);
      const errors = rows.reduce((sum, row) => sum + row.errors, 0);
      console.log(
        `| ${round} | ${rate(on)} | ${cpu(on)} | ${rate(logOff)} | ${cpu(logOff)} | ${rate(off)} | ${cpu(off)} | ${rate(mainThread)} | ${cpu(mainThread)} | ${rate(offLogOn)} | ${cpu(offLogOn)} | ${ratio(on, off)} | ${ratio(logOff, off)} | ${ratio(mainThread, off)} | ${ratio(on, offLogOn)} | ${errors} |`,
      );
    }
    const summary = (label: string, values: number[]) => {
      const sorted = [...values].sort((left, right) => left - right);
      console.log(
        `${label}, req/s: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)}, lowest ${sorted[0]?.toFixed(2)}, highest ${sorted.at(-1)?.toFixed(2)}, ${sorted.filter((ratio) => ratio >= 0.7).length} of ${sorted.length} rounds at 0.7 or more.`,
      );
    };
    console.log("");
    summary("History on ÷ off", ratios);
    summary("History on with PGlite on the main thread ÷ off", mainThreadRatios);
    summary("History on ÷ off, the question log on for both", logOnRatios);
    const cpuSummary = (label: string, values: number[]) => {
      const sorted = [...values].sort((left, right) => left - right);
      console.log(
        `${label}, CPU per request (every thread of the server): median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} (each round ${values.map((ratio) => ratio.toFixed(2)).join(", ")}; target ≤ 1.3).`,
      );
    };
    cpuSummary("History on ÷ off", cpuRatios);
    cpuSummary("History on ÷ off, the question log on for both", logOnCpuRatios);
  } else {
    console.log(
      `\n## POST /chat, each server without and with \`${compareFlags.join(" ")}\`, measured in turn (sample book, 50 connections, ${values.seconds} s per row${flagNote})\n`,
    );
    const labels = rounds[0]?.rows.map((row) => row.history) ?? [];
    for (let index = 0; index + 1 < labels.length; index += 2) {
      const ratios = rounds
        .map(({ rows }) => {
          const without = rows[index];
          const withFlags = rows[index + 1];
          return without && withFlags
            ? withFlags.requestsPerSecond / without.requestsPerSecond
            : undefined;
        })
        .filter((ratio) => ratio !== undefined);
      const sorted = [...ratios].sort((left, right) => left - right);
      console.log(
        `- ${labels[index + 1]} ÷ ${labels[index]}, req/s per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(" ")}; median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)}`,
      );
    }
  }
  printRoundUsage(rounds);
  results.historyRounds = { nodeFlags, compareFlags, rounds };
  await rm(dataDir, { recursive: true, force: true });
}
if (values.only === undefined || values.only === "insights") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-insights-"));
  await ingestSampleBook(dataDir);
  const rows = await benchInsights(dataDir, [1_000, 10_000, 50_000]);
  console.log("\n## Question log and insights report (sample book, a week of questions)\n");
  console.log(
    "| logged questions | written per second (batches of 200) | report (ms) |\n|---:|---:|---:|",
  );
  for (const row of rows) {
    console.log(
      `| ${row.questions.toLocaleString("en")} | ${row.writeEntriesPerSecond.toFixed(0)} | ${row.reportMs.toFixed(0)} |`,
    );
  }
  const topicRows = [
    ...(await benchEmbeddingTopics([250, 1_000], 384)),
    ...(await benchEmbeddingTopics([250, 1_000], 1_536)),
  ];
  console.log(
    "\n## Insights topics by embeddings (distinct questions, a bag-of-words test embedder; no model time)\n",
  );
  console.log(
    "| distinct questions | dimensions | topics | grouping, median of 3 (ms) |\n|---:|---:|---:|---:|",
  );
  for (const row of topicRows) {
    console.log(
      `| ${row.questions.toLocaleString("en")} | ${row.dimensions} | ${row.topics} | ${row.medianMs.toFixed(0)} |`,
    );
  }
  results.insights = { report: rows, embeddingTopics: topicRows };
  await rm(dataDir, { recursive: true, force: true });
}
if (values.only === undefined || values.only === "model") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-model-"));
  await ingestSampleBook(dataDir);
  const ttft = await benchTimeToFirstToken(dataDir);
  await rm(dataDir, { recursive: true, force: true });
  console.log(
    `\n## Time to first token (local OpenAI-compatible server, first token after ${ttft.modelFirstTokenDelayMs} ms, ${ttft.requests} requests)\n`,
  );
  console.log("| path | p50 (ms) | p95 (ms) |\n|---|---:|---:|");
  console.log(
    `| model server directly | ${ttft.directP50Ms.toFixed(1)} | ${ttft.directP95Ms.toFixed(1)} |`,
  );
  console.log(
    `| Lectern /chat/stream (retrieval + prompt + model) | ${ttft.lecternP50Ms.toFixed(1)} | ${ttft.lecternP95Ms.toFixed(1)} |`,
  );
  console.log(`\nAdded by Lectern at p50: ${ttft.addedP50Ms.toFixed(1)} ms`);
  const embedding = await benchEmbeddingIngest();
  console.log(
    `\n## Embedding at ingest (local /v1/embeddings server, ${embedding.dimensions} dimensions, batches of ${embedding.batchSize})\n\n${embedding.pages} pages → ${embedding.chunks} chunks embedded and stored in ${embedding.seconds.toFixed(2)} s: ${embedding.chunksPerSecond.toFixed(0)} chunks/s`,
  );
  results.model = { ttft, embedding };
}
if (values.only === undefined || values.only === "widget") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-widget-"));
  const config = loadConfig({ env: { LOG_LEVEL: "silent", PORT: "0" }, overrides: { dataDir } });
  await ingestSampleBook(dataDir);
  const widget = await benchWidget(config);
  await rm(dataDir, { recursive: true, force: true });
  console.log("\n## Widget\n\n| build | raw | gzip |\n|---|---:|---:|");
  for (const [file, size] of Object.entries(widget.sizes)) {
    console.log(
      `| ${file} | ${(size.raw / 1024).toFixed(1)} KB | ${(size.gzip / 1024).toFixed(1)} KB |`,
    );
  }
  console.log(
    `\nTime to interactive (navigation start → launcher button in the shadow root), demo page on localhost, ${widget.loads} loads: p50 ${widget.interactiveP50Ms.toFixed(0)} ms, p95 ${widget.interactiveP95Ms.toFixed(0)} ms`,
  );
  results.widget = widget;
}
if (values.only === undefined || values.only === "startup") {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-startup-"));
  await ingestSampleBook(dataDir);
  const rows = benchStartup(dataDir, Number(values.runs));
  await rm(dataDir, { recursive: true, force: true });
  console.log(
    `\n## Start-up of the lectern command (compiled CLI, a new process per run, ${values.runs} runs; ask on the sample book's existing index)\n`,
  );
  console.log("| command | p50 (s) | p95 (s) | max (s) |\n|---|---:|---:|---:|");
  for (const row of rows) {
    console.log(
      `| \`${row.command}\` | ${(row.p50Ms / 1000).toFixed(2)} | ${(row.p95Ms / 1000).toFixed(2)} | ${(row.maxMs / 1000).toFixed(2)} |`,
    );
  }
  console.log(`\nLoad average (1, 5, 15 min) after: ${loadAverage()}`);
  results.startup = rows;
}
if (values.only === undefined || values.only === "static") await benchStaticRows();
await mkdir(".bench", { recursive: true });
await writeFile(path.join(".bench", "results.json"), JSON.stringify(results, null, 2));
