import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { percentile } from "../src/eval/evaluate.ts";
import { answeringAt } from "./answering-at.ts";
import { type RowUsage, rowUsage, sampleUsage } from "./server-usage.ts";

/**
 * /chat throughput and latency with autocannon against `lectern serve` on the sample book, in a
 * separate process, retrieval-only answers, rate limits off, history on (PGlite) and off; with a
 * PostgreSQL URL, the book and history in PostgreSQL too; with a Redis URL, answers from the
 * Redis answer cache (every question asked in the warm-up, so the timed rows are cache hits).
 */

const require = createRequire(import.meta.url);
export const tsxCli = require.resolve("tsx/cli");
const sourceConditions = "--conditions=lectern-source";
const cliEntry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const gcProbe = fileURLToPath(new URL("./gc-probe.ts", import.meta.url));
/** The sample book's questions, one JSON object with a `question` a line. */
export const questionsFile = fileURLToPath(
  new URL("../../../examples/robotics-primer/questions.jsonl", import.meta.url),
);

export interface HttpBenchRow {
  history: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  /**
   * CPU time of the server process per request (user + system, from /proc): what a request costs
   * the server, which a machine shared with other work does not inflate the way it does latency.
   */
  serverCpuMsPerRequest: number | undefined;
  /** Where the row's time went (GC, the main thread's wait for a core, the load generator). */
  usage?: RowUsage;
}

/** How a benchmarked server is started beyond its environment. */
interface ServeOptions {
  /** Node and V8 flags for the server process (not tsx's launcher), e.g. `--max-semi-space-size=32`. */
  nodeFlags?: string[];
  /** Where the server's GC pause totals go (gc-probe.ts); no probe without it. */
  gcFile?: string;
  /** The CLI's entry point (src/cli/main.ts of another checkout, to compare with); this one's by default. */
  entry?: string;
  /**
   * Run the compiled CLI (dist/cli/main.js of `entry`'s checkout, or of this one) with node itself,
   * as an installed `lectern` does, instead of the TypeScript sources through tsx.
   */
  compiled?: boolean;
}

/** The compiled CLI of the checkout whose `src/cli/main.ts` is `entry`; `npm run build` makes it. */
function compiledCli(entry: string): string {
  const compiled = path.join(path.dirname(entry), "..", "..", "dist", "cli", "main.js");
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run npm run build`);
  return compiled;
}

async function startServe(
  dataDir: string,
  env: Record<string, string>,
  options: ServeOptions = {},
): Promise<{ url: string; child: ChildProcess }> {
  // tsx passes the flags before the entry point on to the node process that runs the CLI.
  // The GC probe is TypeScript: the compiled CLI loads it through tsx's loader (which leaves the
  // compiled JavaScript as it is).
  const probe = options.compiled
    ? ["--import=tsx", `--import=${gcProbe}`]
    : [`--import=${gcProbe}`];
  const flags = [...(options.gcFile ? probe : []), ...(options.nodeFlags ?? [])];
  const entry = options.entry ?? cliEntry;
  const program = options.compiled
    ? [...flags, compiledCli(entry)]
    : [tsxCli, sourceConditions, ...flags, entry];
  const child = spawn(
    process.execPath,
    [...program, "serve", "--data-dir", dataDir, "--port", "0"],
    {
      env: {
        ...process.env,
        RATE_LIMIT_ENABLED: "false",
        LOG_LEVEL: "warn",
        INIT_CWD: "",
        ...(options.gcFile ? { BENCH_GC_FILE: options.gcFile } : {}),
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await answeringAt(child);
  return { url, child };
}

async function run(
  url: string,
  connections: number,
  bodies: string[],
  seconds: number,
  server?: { pid: number | undefined; gcFile?: string },
): Promise<Omit<HttpBenchRow, "history">> {
  const before = await sampleUsage(server?.pid, server?.gcFile);
  let next = 0;
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/chat`,
        connections,
        duration: seconds,
        requests: [
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            setupRequest: (request) => ({
              ...request,
              body: bodies[next++ % bodies.length] ?? "{}",
            }),
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) =>
      latencies.push(responseTime),
    );
  });
  const after = await sampleUsage(server?.pid, server?.gcFile);
  latencies.sort((left, right) => left - right);
  const answered = result.requests.total;
  const cpuBefore = before.serverCpuSeconds;
  const cpuAfter = after.serverCpuSeconds;
  return {
    connections,
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors + result.timeouts + result.non2xx,
    requests: answered,
    serverCpuMsPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
        ? ((cpuAfter - cpuBefore) * 1000) / answered
        : undefined,
    ...(server ? { usage: rowUsage(before, after) } : {}),
  };
}

/**
 * Questions asked before a server is measured: V8 goes on optimising the answer path on its
 * background threads over a server's first 3,000 or so questions (`npm run bench -- --only
 * pipeline`: the first passes cost several times the later ones), so a measured row starts after
 * several thousand answers (4 s at 50 connections), not in the middle of that work.
 */
async function warmUp(url: string, bodies: string[]): Promise<void> {
  await run(url, 50, bodies, 4);
}

async function questionBodies(): Promise<string[]> {
  const questions = (await readFile(questionsFile, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { question: string }).question);
  return questions.map((question) => JSON.stringify({ query: question }));
}

/** One server configuration measured: its label, its environment, the connection counts. */
interface HttpVariant {
  history: string;
  env: Record<string, string>;
  connections: number[];
  /** Its own data directory (a book in PostgreSQL keeps only the BM25 snapshot there). */
  dataDir?: string;
}

export async function benchHttp(
  dataDir: string,
  seconds = 10,
  options: {
    /** A PostgreSQL database whose `search_path` schema holds the ingested sample book. */
    postgres?: { url: string; dataDir: string };
    redisUrl?: string;
  } = {},
): Promise<HttpBenchRow[]> {
  const bodies = await questionBodies();
  const variants: HttpVariant[] = [
    { history: "on (PGlite)", env: { HISTORY: "postgres" }, connections: [1, 10, 50] },
    // The question log for authors (on by default) writes each answer too: measured apart.
    {
      history: "on (PGlite), question log off",
      env: { HISTORY: "postgres", INSIGHTS: "off" },
      connections: [10, 50],
    },
    { history: "off", env: { HISTORY: "off", INSIGHTS: "off" }, connections: [1, 10, 50] },
  ];
  if (options.postgres) {
    variants.push({
      history: "on (PostgreSQL)",
      env: { HISTORY: "postgres", DATABASE_URL: options.postgres.url },
      connections: [50],
      dataDir: options.postgres.dataDir,
    });
  }
  if (options.redisUrl) {
    const cache = {
      REDIS_URL: options.redisUrl,
      REDIS_KEY_PREFIX: `lectern-bench:${process.pid}:`,
      ANSWER_CACHE: "redis",
      ANSWER_CACHE_TTL_S: "3600",
    };
    variants.push(
      {
        history: "on (PGlite), Redis answer cache hits",
        env: { HISTORY: "postgres", ...cache },
        connections: [50],
      },
      {
        history: "off, Redis answer cache hits",
        env: { HISTORY: "off", ...cache },
        connections: [50],
      },
    );
  }
  const rows: HttpBenchRow[] = [];
  for (const variant of variants) {
    const { url, child } = await startServe(variant.dataDir ?? dataDir, variant.env);
    try {
      await warmUp(url, bodies); // and, with the cache, every question cached
      for (const connections of variant.connections) {
        rows.push({
          history: variant.history,
          ...(await run(url, connections, bodies, seconds, { pid: child.pid })),
        });
      }
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  return rows;
}

/** One round of the interleaved history bench: each configuration's row, measured in turn. */
export interface HistoryRound {
  round: number;
  rows: HttpBenchRow[];
}

interface RoundVariant {
  history: string;
  env: Record<string, string>;
  nodeFlags: string[];
  /** The CLI entry point of another checkout. */
  entry?: string;
}

/** The servers of the history rounds: see benchHistoryRounds. */
function roundVariants(
  nodeFlags: string[],
  compareFlags: string[] | undefined,
  compareTree: string | undefined,
): RoundVariant[] {
  const on = { history: "on (PGlite)", env: { HISTORY: "postgres" } };
  const off = { history: "off", env: { HISTORY: "off", INSIGHTS: "off" } };
  const otherEntry = compareTree && path.join(compareTree, "packages/server/src/cli/main.ts");
  if (otherEntry) {
    // Another checkout's servers first, then this one's, in each round.
    return [
      { ...on, history: `${on.history}, ${compareTree}`, entry: otherEntry },
      { ...off, history: `${off.history}, ${compareTree}`, entry: otherEntry },
      on,
      off,
    ].map((variant) => ({ ...variant, nodeFlags }));
  }
  return compareFlags
    ? [on, off].flatMap((variant) => [
        { ...variant, nodeFlags },
        {
          history: `${variant.history}, ${compareFlags.join(" ")}`,
          env: variant.env,
          nodeFlags: [...nodeFlags, ...compareFlags],
        },
      ])
    : [
        on,
        {
          history: "on (PGlite), question log off",
          env: { HISTORY: "postgres", INSIGHTS: "off" },
        },
        off,
        // A server's default puts PGlite on a worker thread; this one keeps it on the main thread.
        {
          history: "on (PGlite on the main thread)",
          env: { HISTORY: "postgres", LECTERN_PGLITE_THREAD: "main" },
        },
        // History off with the question log kept (on PGlite): history's own cost, log on both sides.
        { history: "off, question log on", env: { HISTORY: "off", INSIGHTS: "on" } },
      ].map((variant) => ({ ...variant, nodeFlags }));
}

/**
 * History on (PGlite, question log on as by default), history on with the question log off, and
 * history off, each in a server of its own (the compiled CLI, `npm run build`), all started at
 * once and measured in turn at `connections` for `seconds`, `rounds` times (every other round in
 * the reverse order). A machine whose speed drifts (other work, a shared host) then shifts the
 * three rows of a round alike, so each round's ratio compares like with like. `nodeFlags` go to
 * every server; with `compareFlags` the servers are instead history on (PGlite) and off, each
 * without and with those flags.
 */
export async function benchHistoryRounds(
  dataDir: string,
  options: {
    seconds: number;
    rounds: number;
    connections: number;
    nodeFlags?: string[];
    compareFlags?: string[];
    /** Another checkout: its history on and off servers are measured in turn with this one's. */
    compareTree?: string;
  },
): Promise<HistoryRound[]> {
  const { seconds, connections, nodeFlags = [], compareFlags, compareTree } = options;
  const bodies = await questionBodies();
  const variants = roundVariants(nodeFlags, compareFlags, compareTree);
  const servers: { history: string; url: string; child: ChildProcess; gcFile: string }[] = [];
  try {
    // Each PGlite server has its own copy of the data directory: one process owns a directory.
    for (const [index, variant] of variants.entries()) {
      const own = `${dataDir}-${index}`;
      await cp(dataDir, own, { recursive: true });
      const gcFile = `${own}.gc.json`;
      const started = await startServe(own, variant.env, {
        nodeFlags: variant.nodeFlags,
        gcFile,
        compiled: true,
        ...(variant.entry ? { entry: variant.entry } : {}),
      });
      servers.push({ history: variant.history, gcFile, ...started });
    }
    for (const server of servers) await warmUp(server.url, bodies);
    const rounds: HistoryRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      // Every other round in the reverse order, so a steady drift favours no configuration.
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      const measured = new Map<string, HttpBenchRow>();
      for (const server of order) {
        const row = await run(server.url, connections, bodies, seconds, {
          pid: server.child.pid,
          gcFile: server.gcFile,
        });
        measured.set(server.history, { history: server.history, ...row });
      }
      rounds.push({ round, rows: servers.flatMap((server) => measured.get(server.history) ?? []) });
    }
    return rounds;
  } finally {
    for (const server of servers) {
      server.child.kill("SIGTERM");
      await new Promise((resolve) => server.child.once("exit", resolve));
    }
    for (const index of variants.keys()) {
      await rm(`${dataDir}-${index}`, { recursive: true, force: true });
      await rm(`${dataDir}-${index}.gc.json`, { force: true });
    }
  }
}

/** One server of the CPU bench: CPU per request in each round, and the median of them. */
export interface CpuBenchRow {
  server: string;
  /** Bytes of the `/chat` response body. */
  bodyBytes: number;
  cpuMsPerRequest: number[];
  medianCpuMs: number;
  requestsPerSecond: number;
  /** Each round's CPU per request over the bare route's in the same round. */
  roundRatios: number[];
  /** The median of `roundRatios`: the machine's drift between rounds cancels out of it. */
  ratio: number;
}

/** The median of the numbers that are numbers (NaN when none is). */
export function median(values: number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((left, right) => left - right);
  return sorted.length === 0 ? Number.NaN : percentile(sorted, 0.5);
}

const bareHono = fileURLToPath(new URL("./bare-hono.ts", import.meta.url));

/**
 * CPU per request of `POST /chat` (retrieval-only answers on the sample book, history and the
 * question log off, then with the defaults) against a bare Hono route answering the same-sized
 * body, and Lectern's app with its answers made beforehand (bench/app-floor.ts: what serving an
 * answer costs without working it out), in interleaved rounds so that all see the same machine,
 * each round's order reversed in the next; a server's ratio to the bare route is the median of its
 * rounds' ratios. The server's CPU time comes from /proc, so a busy machine inflates it far less
 * than it does latency.
 */
export async function benchCpu(
  dataDir: string,
  seconds = 5,
  rounds = 3,
  connections = 50,
  /** Another checkout, whose `/chat` (history and question log off) joins the rounds. */
  compareTree?: string,
): Promise<CpuBenchRow[]> {
  const bodies = await questionBodies();
  // One process per data directory: the second server reads a copy of the book.
  const defaultsDir = `${dataDir}-defaults`;
  await cp(dataDir, defaultsDir, { recursive: true });
  const otherDir = `${dataDir}-other`;
  if (compareTree) await cp(dataDir, otherDir, { recursive: true });
  const floorDir = `${dataDir}-floor`;
  await cp(dataDir, floorDir, { recursive: true });
  const sourcesDir = `${dataDir}-sources`;
  await cp(dataDir, sourcesDir, { recursive: true });
  const bodyFile = path.join(dataDir, "..", `bench-cpu-body-${process.pid}.json`);
  const started: ChildProcess[] = [];
  try {
    // Lectern's servers run the compiled CLI, as an installed `lectern serve` does; the sources
    // through tsx (`npm start`) have a row of their own.
    const off = { HISTORY: "off", INSIGHTS: "off" };
    const lectern = await startServe(dataDir, off, { compiled: true });
    started.push(lectern.child);
    const defaults = await startServe(defaultsDir, {}, { compiled: true });
    started.push(defaults.child);
    const sources = await startServe(sourcesDir, off);
    started.push(sources.child);
    const sample = await fetch(`${lectern.url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bodies[0] ?? "{}",
    });
    const sampleBody = await sample.text();
    await writeFile(bodyFile, sampleBody);
    const bare = await startBare(bodyFile);
    started.push(bare.child);
    const appOnly = await startAppFloor(floorDir);
    started.push(appOnly.child);
    const servers = [
      { name: "bare Hono route, same-sized body", ...bare },
      { name: "Lectern /chat, history and question log off", ...lectern },
      { name: "Lectern /chat, defaults (history and question log on PGlite)", ...defaults },
      { name: "Lectern's app, each answer worked out beforehand", ...appOnly },
      { name: "Lectern /chat, history and question log off, sources through tsx", ...sources },
    ];
    if (compareTree) {
      const entry = path.join(compareTree, "packages/server/src/cli/main.ts");
      const other = await startServe(otherDir, off, { entry, compiled: true });
      started.push(other.child);
      servers.push({ name: `${compareTree} /chat, history and question log off`, ...other });
    }
    for (const server of servers) await warmUp(server.url, bodies);
    const cpu = servers.map(() => [] as number[]);
    const rates = servers.map(() => [] as number[]);
    // Each round's order reversed in the next, so no server always follows the same one.
    for (let round = 0; round < rounds; round++) {
      const order = [...servers.keys()];
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const server = servers[index] as (typeof servers)[number];
        const row = await run(server.url, connections, bodies, seconds, { pid: server.child.pid });
        cpu[index]?.push(row.serverCpuMsPerRequest ?? Number.NaN);
        rates[index]?.push(row.requestsPerSecond);
      }
    }
    const floor = cpu[0] ?? [];
    return servers.map((server, index) => {
      const own = cpu[index] ?? [];
      const roundRatios = own.map((ms, round) => ms / (floor[round] ?? Number.NaN));
      return {
        server: server.name,
        bodyBytes: Buffer.byteLength(sampleBody),
        cpuMsPerRequest: own,
        medianCpuMs: median(own),
        requestsPerSecond: median(rates[index] ?? []),
        roundRatios,
        ratio: median(roundRatios),
      };
    });
  } finally {
    for (const child of started) {
      if (child.exitCode !== null) continue;
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    await rm(bodyFile, { force: true });
    await rm(defaultsDir, { recursive: true, force: true });
    await rm(otherDir, { recursive: true, force: true });
    await rm(floorDir, { recursive: true, force: true });
    await rm(sourcesDir, { recursive: true, force: true });
  }
}

const appFloor = fileURLToPath(new URL("./app-floor.ts", import.meta.url));

/** bench/app-floor.ts over a copy of the book: Lectern's app with its answers made beforehand. */
async function startAppFloor(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [tsxCli, appFloor], {
    env: {
      ...process.env,
      BENCH_DATA_DIR: dataDir,
      BENCH_QUESTIONS: questionsFile,
      RATE_LIMIT_ENABLED: "false",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await answeringAt(child, "app floor server");
  return { url, child };
}

async function startBare(bodyFile: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [tsxCli, bareHono], {
    env: { ...process.env, BENCH_BODY_FILE: bodyFile },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await answeringAt(child, "bare server");
  return { url, child };
}
