import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { percentile } from "../src/eval/evaluate.ts";
import { openLectern } from "../src/lectern.ts";
import { LexicalIndex } from "../src/search/lexical-index.ts";
import { Retriever } from "../src/search/retriever.ts";
import type { ChunkRecord } from "../src/store/document-store.ts";
import { createRandom, TextGenerator } from "./corpus.ts";
import { benchHttp } from "./http.ts";
import { benchEmbeddingIngest, benchTimeToFirstToken } from "./model.ts";
import { benchRerank } from "./rerank.ts";
import { benchWidget } from "./widget.ts";

/**
 * `npm run bench`: ingest throughput on a generated book, retrieval latency at several index
 * sizes, reranking latency, HTTP, model and widget timings. Prints Markdown tables (pasted into docs/benchmarks.md) and writes .bench/results.json.
 */

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "1000" },
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "500" },
    only: { type: "string" },
    seconds: { type: "string", default: "10" },
    "rerank-model": { type: "string" }, // a real cross-encoder directory for --only rerank
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

function generateChunks(count: number, generator: TextGenerator): ChunkRecord[] {
  return Array.from({ length: count }, (_, index) => {
    // ~350 tokens (~1,400 characters), the chunker's target size.
    const text = [generator.paragraph(7), generator.paragraph(7)].join("\n\n");
    const page = Math.floor(index / 6);
    return {
      id: `chunk-${index}`,
      collection: "default",
      version: "",
      filePath: `part/${page}.md`,
      chunkIndex: index % 6,
      totalChunks: 6,
      title: `${generator.word()} ${generator.word()}`,
      section: generator.word(),
      headingPath: [`page ${page}`, generator.word()],
      url: `/docs/part/${page}#${index % 6}`,
      tags: [],
      text,
      contentHash: String(index),
      tokenCount: Math.ceil(text.length / 4),
    };
  });
}

function benchRetrieval(size: number): Record<string, number> {
  const random = createRandom(size);
  const generator = new TextGenerator(random);
  const chunks = generateChunks(size, generator);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let started = performance.now();
  const index = LexicalIndex.build(chunks);
  const buildSeconds = (performance.now() - started) / 1000;
  const heapIndex = process.memoryUsage().heapUsed - heapBefore;
  const retriever = new Retriever(index, { topK: 5, maxChunksPerPage: 2 });

  // Queries made of words of a random chunk, plus a few common words, like a reader's question.
  const queries = Array.from({ length: queryCount }, () => {
    const words = (chunks[Math.floor(random() * chunks.length)]?.text ?? "")
      .split(/\W+/)
      .filter((word) => word.length > 3);
    const picked = Array.from(
      { length: 4 },
      () => words[Math.floor(random() * words.length)] ?? "robot",
    );
    return `how does the ${picked.join(" ")} work`;
  });
  for (const query of queries.slice(0, 50)) retriever.retrieve(query); // warm-up
  const latencies: number[] = [];
  for (const query of queries) {
    started = performance.now();
    retriever.retrieve(query);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return {
    chunks: size,
    buildSeconds,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    heapMb: heapIndex / 2 ** 20,
  };
}

console.log(`Machine: ${results.machine}`);
if (values.only === undefined || values.only === "ingest") await benchIngest();
if (values.only === undefined || values.only === "retrieval") {
  console.log(`\n## Retrieval (BM25 + calibration + diversity, top-5, ${queryCount} queries)\n`);
  console.log(
    "| chunks | index build (s) | p50 (ms) | p95 (ms) | heap for corpus+index |\n|---:|---:|---:|---:|---:|",
  );
  const retrieval: Record<string, number>[] = [];
  for (const size of sizes) {
    const row = benchRetrieval(size);
    retrieval.push(row);
    console.log(
      `| ${size.toLocaleString("en")} | ${row.buildSeconds?.toFixed(2)} | ${row.p50Ms?.toFixed(2)} | ${row.p95Ms?.toFixed(2)} | ${Math.round(row.heapMb ?? 0)} MB |`,
    );
  }
  results.retrieval = retrieval;
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
  const rows = await benchHttp(dataDir, Number(values.seconds));
  console.log(
    `\n## POST /chat (sample book, retrieval-only, autocannon ${values.seconds} s per row)\n`,
  );
  console.log(
    "| history | connections | requests/s | p50 (ms) | p95 (ms) | p99 (ms) | errors |\n|---|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of rows) {
    console.log(
      `| ${row.history} | ${row.connections} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50Ms.toFixed(1)} | ${row.p95Ms.toFixed(1)} | ${row.p99Ms.toFixed(1)} | ${row.errors} |`,
    );
  }
  results.http = rows;
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
await mkdir(".bench", { recursive: true });
await writeFile(path.join(".bench", "results.json"), JSON.stringify(results, null, 2));
