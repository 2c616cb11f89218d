import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { percentile } from "../src/eval/evaluate.ts";

/**
 * Start-up of the published command: `lectern --version`, and `lectern ask` on an index that
 * exists, each a fresh `node bin/lectern.js` process (the compiled CLI, as installed), timed from
 * spawn to exit. The targets (issue 10): --version ≤ 0.3 s, ask ≤ 1.5 s on a 2-core machine.
 */

const LECTERN_BIN = fileURLToPath(new URL("../bin/lectern.js", import.meta.url));
const COMPILED_CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface StartupRow {
  command: string;
  runs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

function timeRuns(args: string[], runs: number): StartupRow {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [LECTERN_BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      encoding: "utf8",
    });
    times.push(performance.now() - started);
    if (result.status !== 0) {
      throw new Error(`lectern ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
    }
  }
  times.sort((a, b) => a - b);
  return {
    command: `lectern ${args[0]}`,
    runs,
    p50Ms: percentile(times, 0.5),
    p95Ms: percentile(times, 0.95),
    maxMs: times.at(-1) ?? 0,
  };
}

export function benchStartup(dataDir: string, runs: number): StartupRow[] {
  if (!existsSync(COMPILED_CLI)) throw new Error(`${COMPILED_CLI} is missing: run npm run build`);
  timeRuns(["--version"], 1); // the first run warms the file cache; not counted
  return [
    timeRuns(["--version"], runs),
    timeRuns(["ask", "How do I publish messages on a topic?", "--data-dir", dataDir], runs),
  ];
}
