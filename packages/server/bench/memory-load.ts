import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { loadConfig } from "../src/config/config.ts";
import { openLectern } from "../src/lectern.ts";
import { answeringAt } from "./answering-at.ts";

/**
 * RSS of `lectern serve` (PGlite, history on) across rounds of /chat load and after idling:
 * `npx tsx bench/memory-load.ts [--rounds 4] [--seconds 20] [--idle 20]` from packages/server.
 * Each request is a new session, so history rows keep growing as they do in production.
 * Recorded in docs/reliability.md.
 */

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "4" },
    seconds: { type: "string", default: "20" },
    idle: { type: "string", default: "20" },
    connections: { type: "string", default: "20" },
  },
});

const require = createRequire(import.meta.url);
const tsxCli = require.resolve("tsx/cli");
const cliEntry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const sampleDocs = fileURLToPath(
  new URL("../../../examples/robotics-primer/docs", import.meta.url),
);
const questionsFile = fileURLToPath(
  new URL("../../../examples/robotics-primer/questions.jsonl", import.meta.url),
);

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** The node process running the CLI (tsx starts it as a child of its own). */
async function serverPid(child: ChildProcess): Promise<number> {
  const children = await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").catch(
    () => "",
  );
  return Number(children.trim().split(/\s+/)[0]) || (child.pid ?? 0);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-memory-load-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  await lectern.ingest(sampleDocs);
  await lectern.close();
  const child = spawn(
    process.execPath,
    [tsxCli, cliEntry, "serve", "--data-dir", dataDir, "--port", "0"],
    {
      env: { ...process.env, RATE_LIMIT_ENABLED: "false", LOG_LEVEL: "warn", INIT_CWD: "" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const url = await answeringAt(child);
    const pid = await serverPid(child);
    const questions = (await readFile(questionsFile, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) =>
        JSON.stringify({ query: (JSON.parse(line) as { question: string }).question }),
      );
    console.log("| after | requests | RSS |");
    console.log("|---|---|---|");
    console.log(`| start | 0 | ${await rssMb(pid)} MB |`);
    let total = 0;
    for (let round = 1; round <= Number(values.rounds); round++) {
      let next = 0;
      const result = await new Promise<autocannon.Result>((resolve, reject) =>
        autocannon(
          {
            url: `${url}/chat`,
            connections: Number(values.connections),
            duration: Number(values.seconds),
            requests: [
              {
                method: "POST",
                headers: { "content-type": "application/json" },
                setupRequest: (request) => ({
                  ...request,
                  body: questions[next++ % questions.length] ?? "{}",
                }),
              },
            ],
          },
          (error, finished) => (error ? reject(error) : resolve(finished)),
        ),
      );
      total += result.requests.total;
      console.log(
        `| round ${round} | ${total} (${result.non2xx + result.errors} failed) | ${await rssMb(pid)} MB |`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Number(values.idle) * 1000));
    console.log(`| ${values.idle} s idle | ${total} | ${await rssMb(pid)} MB |`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
