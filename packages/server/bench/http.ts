import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { percentile } from "../src/eval/evaluate.ts";

/**
 * /chat throughput and latency with autocannon against `lectern serve` on the sample book, in a
 * separate process, retrieval-only answers, rate limits off, history on (PGlite) and off, and
 * the question log for authors (INSIGHTS) on and off, to show what logging each answer costs.
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
  insights: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
}

async function startServe(
  dataDir: string,
  history: string,
  insights: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [tsxCli, sourceConditions, cliEntry, "serve", "--data-dir", dataDir, "--port", "0"],
    {
      env: {
        ...process.env,
        HISTORY: history,
        INSIGHTS: insights,
        RATE_LIMIT_ENABLED: "false",
        LOG_LEVEL: "warn",
        INIT_CWD: "",
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
): Promise<Omit<HttpBenchRow, "history" | "insights">> {
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
  return {
    connections,
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
  };
}

export async function benchHttp(dataDir: string, seconds = 10): Promise<HttpBenchRow[]> {
  const questions = (await readFile(questionsFile, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { question: string }).question);
  const bodies = questions.map((question) => JSON.stringify({ query: question }));
  const rows: HttpBenchRow[] = [];
  for (const [history, insights] of [
    ["postgres", "on"],
    ["postgres", "off"],
    ["off", "off"],
  ] as const) {
    const { url, child } = await startServe(dataDir, history, insights);
    try {
      await run(url, 10, bodies, 2); // warm-up
      for (const connections of [1, 10, 50]) {
        rows.push({
          history: history === "off" ? "off" : "on (PGlite)",
          insights,
          ...(await run(url, connections, bodies, seconds)),
        });
      }
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  return rows;
}
