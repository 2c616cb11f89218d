import { type ChildProcess, spawn } from "node:child_process";
import { cp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { percentile } from "../src/eval/evaluate.ts";

/**
 * /chat throughput and latency with autocannon against `lectern serve` on the sample book, in a
 * separate process, retrieval-only answers, rate limits off, history on (PGlite) and off; with a
 * PostgreSQL URL, the book and history in PostgreSQL too; with a Redis URL, answers from the
 * Redis answer cache (every question asked in the warm-up, so the timed rows are cache hits).
 */

const require = createRequire(import.meta.url);
const tsxCli = require.resolve("tsx/cli");
const sourceConditions = "--conditions=lectern-source";
const cliEntry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const questionsFile = fileURLToPath(
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
}

/**
 * CPU seconds (user + system) the process and its descendants (tsx runs the CLI in a child of its
 * own) have used so far; undefined off Linux.
 */
async function cpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stats = new Map<number, { parent: number; seconds: number }>();
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
      if (!stat) continue;
      // Fields after the command name (which may hold spaces): ppid is the 2nd, utime and stime
      // the 12th and 13th, in clock ticks (USER_HZ = 100).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), {
        parent: Number(fields[1]),
        seconds: (Number(fields[11]) + Number(fields[12])) / 100,
      });
    }
    let total = 0;
    const family = new Set([pid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [id, stat] of stats) {
        if (!family.has(id) && family.has(stat.parent)) {
          family.add(id);
          grew = true;
        }
      }
    }
    for (const id of family) total += stats.get(id)?.seconds ?? 0;
    return stats.has(pid) ? total : undefined;
  } catch {
    return undefined;
  }
}

async function startServe(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [tsxCli, sourceConditions, cliEntry, "serve", "--data-dir", dataDir, "--port", "0"],
    {
      env: {
        ...process.env,
        RATE_LIMIT_ENABLED: "false",
        LOG_LEVEL: "warn",
        INIT_CWD: "",
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /answering at (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

async function run(
  url: string,
  connections: number,
  bodies: string[],
  seconds: number,
  serverPid?: number,
): Promise<Omit<HttpBenchRow, "history">> {
  const cpuBefore = await cpuSeconds(serverPid);
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
  latencies.sort((left, right) => left - right);
  const cpuAfter = await cpuSeconds(serverPid);
  const answered = result.requests.total;
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
  };
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
      await run(url, 10, bodies, 2); // warm-up (and, with the cache, every question cached)
      for (const connections of variant.connections) {
        rows.push({
          history: variant.history,
          ...(await run(url, connections, bodies, seconds, child.pid)),
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

/**
 * History on (PGlite, question log on as by default), history on with the question log off, and
 * history off, each in a server of its own, all started at once and measured in turn at
 * `connections` for `seconds`, `rounds` times (every other round in the reverse order). A machine
 * whose speed drifts (other work, a shared host) then shifts the three rows of a round alike, so
 * each round's ratio compares like with like.
 */
export async function benchHistoryRounds(
  dataDir: string,
  options: { seconds: number; rounds: number; connections: number },
): Promise<HistoryRound[]> {
  const { seconds, connections } = options;
  const bodies = await questionBodies();
  const variants = [
    { history: "on (PGlite)", env: { HISTORY: "postgres" } },
    { history: "on (PGlite), question log off", env: { HISTORY: "postgres", INSIGHTS: "off" } },
    { history: "off", env: { HISTORY: "off", INSIGHTS: "off" } },
  ];
  const servers: { history: string; url: string; child: ChildProcess }[] = [];
  try {
    // Each PGlite server has its own copy of the data directory: one process owns a directory.
    for (const [index, variant] of variants.entries()) {
      const own = `${dataDir}-${index}`;
      await cp(dataDir, own, { recursive: true });
      servers.push({ history: variant.history, ...(await startServe(own, variant.env)) });
    }
    for (const server of servers) await run(server.url, 10, bodies, 2);
    const rounds: HistoryRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      // Every other round in the reverse order, so a steady drift favours no configuration.
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      const measured = new Map<string, HttpBenchRow>();
      for (const server of order) {
        const row = await run(server.url, connections, bodies, seconds, server.child.pid);
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
    }
  }
}
