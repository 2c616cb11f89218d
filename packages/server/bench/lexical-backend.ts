import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { percentile } from "../src/eval/evaluate.ts";
import { openLectern } from "../src/lectern.ts";
import { snapshotPath, termStatisticsPath } from "../src/search/index-store.ts";
import { startFakeModelServer } from "../test/doubles/fake-model-server.ts";
import { startQdrantStandIn } from "../test/doubles/qdrant-stand-in.ts";
import { answeringAt } from "./answering-at.ts";
import { createRandom, foreignWord, TextGenerator } from "./corpus.ts";

/**
 * `lectern serve` with the BM25 index in process (LEXICAL_BACKEND=memory) against Qdrant alone
 * (LEXICAL_BACKEND=qdrant: sparse vectors in Qdrant, a term-statistics table in process), on a
 * generated book in the Qdrant stand-in with the fake embedding server:
 *
 *   npx tsx --conditions=lectern-source packages/server/bench/lexical-backend.ts [--pages 3000] [--queries 200]
 *
 * Reports the server's RSS after start-up and after the queries (and its peak), the size of the
 * files each mode loads, and the latency of `Retriever.search` in each mode (the stand-in runs in
 * this process: its latency is not Qdrant's). The stand-in is a test double written for these
 * tests, not Qdrant: the RSS of the server is real, the latency only compares the two paths.
 */

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "3000" },
    queries: { type: "string", default: "200" },
  },
});

const require = createRequire(import.meta.url);
const tsxCli = require.resolve("tsx/cli");
const cliEntry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

async function processStatus(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
}

/** The node process running the CLI (tsx starts it as a child of its own). */
async function serverPid(child: ChildProcess): Promise<number> {
  const children = await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").catch(
    () => "",
  );
  return Number(children.trim().split(/\s+/)[0]) || (child.pid ?? 0);
}

async function writeBook(root: string, pages: number): Promise<void> {
  const generator = new TextGenerator(createRandom(42));
  for (let index = 0; index < pages; index++) {
    const page = generator.page(index);
    await mkdir(path.dirname(path.join(root, page.path)), { recursive: true });
    await writeFile(path.join(root, page.path), page.content);
  }
}

/** Four words of the book's vocabulary; one in five with two words the book never uses. */
function benchQueries(count: number): string[] {
  const random = createRandom(7);
  const generator = new TextGenerator(createRandom(11));
  return Array.from({ length: count }, (_, index) => {
    const words = generator.sentence(4).replace(/[.!?]$/, "");
    return index % 5 === 4 ? `${words} ${foreignWord(random)} ${foreignWord(random)}` : words;
  });
}

async function main(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-lexical-backend-"));
  const standIn = await startQdrantStandIn();
  const models = await startFakeModelServer();
  const env = {
    LOG_LEVEL: "silent",
    VECTOR_BACKEND: "qdrant",
    QDRANT_URL: standIn.url,
    EMBEDDINGS_PROVIDER: "openai-compatible",
    EMBEDDINGS_BASE_URL: models.baseUrl,
    EMBEDDINGS_MODEL: "fake-embeddings",
  };
  const dataDir = path.join(workDir, "data");
  const configOf = (lexical: string) =>
    loadConfig({ env: { ...env, LEXICAL_BACKEND: lexical }, overrides: { dataDir } });
  try {
    const docsDir = path.join(workDir, "docs");
    await writeBook(docsDir, Number(values.pages));
    const ingested = await openLectern(configOf("memory"));
    const report = await ingested.ingest(docsDir);
    await ingested.close();
    // Opening with the qdrant lexical backend counts and saves the term-statistics table.
    await (await openLectern(configOf("qdrant"))).close();
    const files = {
      memory: (await stat(snapshotPath(dataDir, "default"))).size,
      qdrant: (await stat(termStatisticsPath(dataDir, "default"))).size,
    };
    const queries = benchQueries(Number(values.queries));
    console.log(
      `${values.pages} generated pages, ${report.totalChunks} chunks; ${queries.length} queries (one in five with two words the book never uses)\n`,
    );
    console.log(
      "| LEXICAL_BACKEND | file loaded at start | RSS after start | RSS after the queries | peak RSS | search p50 | search p95 | refused |",
    );
    console.log("|---|---|---|---|---|---|---|---|");
    for (const lexical of ["memory", "qdrant"] as const) {
      const server = await serveRss(lexical, env, dataDir, queries);
      const latency = await searchLatency(configOf(lexical), queries);
      console.log(
        `| ${lexical} | ${mb(files[lexical])} MB (${lexical === "memory" ? "BM25 snapshot" : "term statistics"}) | ${server.started} MB | ${server.after} MB | ${server.peak} MB | ${latency.p50.toFixed(2)} ms | ${latency.p95.toFixed(2)} ms | ${latency.refused} |`,
      );
    }
  } finally {
    await models.close();
    await standIn.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Starts `lectern serve`, asks every query through /chat, and reads the server's RSS. */
async function serveRss(
  lexical: string,
  env: Record<string, string>,
  dataDir: string,
  queries: string[],
): Promise<{ started: number; after: number; peak: number }> {
  const child = spawn(
    process.execPath,
    [
      tsxCli,
      "--conditions=lectern-source",
      cliEntry,
      "serve",
      "--data-dir",
      dataDir,
      "--port",
      "0",
    ],
    {
      env: {
        ...process.env,
        ...env,
        LOG_LEVEL: "warn",
        LEXICAL_BACKEND: lexical,
        RATE_LIMIT_ENABLED: "false",
        INIT_CWD: "",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const url = await answeringAt(child);
    const pid = await serverPid(child);
    const started = (await processStatus(pid)).rssMb;
    for (const query of queries) {
      const response = await fetch(`${url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      if (!response.ok) throw new Error(`/chat answered ${response.status}`);
      await response.arrayBuffer();
    }
    const after = await processStatus(pid);
    return { started, after: after.rssMb, peak: after.peakMb };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

/** `Retriever.search` timed in this process (the stand-in's work included). */
async function searchLatency(
  config: ReturnType<typeof loadConfig>,
  queries: string[],
): Promise<{ p50: number; p95: number; refused: number }> {
  const lectern = await openLectern(config);
  try {
    for (const query of queries.slice(0, 20)) await lectern.served.retriever.search(query);
    const times: number[] = [];
    let refused = 0;
    for (const query of queries) {
      const started = performance.now();
      const found = await lectern.served.retriever.search(query);
      times.push(performance.now() - started);
      if (found.decision === "no_results") refused++;
    }
    times.sort((left, right) => left - right);
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), refused };
  } finally {
    await lectern.close();
  }
}

await main();
