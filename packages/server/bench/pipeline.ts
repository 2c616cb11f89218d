import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, questionsFile, tsxCli } from "./http.ts";

/**
 * `npm run bench -- --only pipeline`: the chat pipeline's CPU per question in process, with no
 * HTTP around it (bench/pipeline-passes.ts, the compiled modules, a process of its own), over
 * the sample book's questions pass after pass: the first passes, while V8 is still optimising the
 * answer path on its background threads, and the second half, once it has. A second run writes
 * `touchMb` of memory before each question, to show what the caches the HTTP work empties in a
 * loaded server cost the answer.
 */

const passesScript = fileURLToPath(new URL("./pipeline-passes.ts", import.meta.url));

interface PassesOutput {
  questions: number;
  passes: { cpuMs: number; mainMs?: number; othersMs?: number }[];
  stageMs: Record<string, number>;
}

export interface PipelineRow {
  touchMb: number;
  questions: number;
  passes: number;
  /** CPU per question, the whole process: the first five passes, then the second half's median. */
  firstPassesMs: number;
  steadyMs: number;
  /** The main thread's CPU per question over the second half, the mean pass (Linux only). */
  steadyMainMs: number | undefined;
  /** The other threads' CPU (V8's optimising compiler and GC helpers) over each half, ms. */
  othersFirstHalfMs: number | undefined;
  othersSecondHalfMs: number | undefined;
  /** The pipeline's stage times per question over the second half (its own clock). */
  stageMs: Record<string, number>;
}

function runPasses(dataDir: string, passes: number, touchMb: number): Promise<PassesOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsxCli, passesScript], {
      env: {
        ...process.env,
        BENCH_DATA_DIR: dataDir,
        BENCH_QUESTIONS: questionsFile,
        BENCH_PASSES: String(passes),
        BENCH_TOUCH_MB: String(touchMb),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`pipeline passes exited with ${code}`));
      const line = output.split("\n").find((text) => text.startsWith("{"));
      if (!line) return reject(new Error(`pipeline passes printed no result: ${output}`));
      resolve(JSON.parse(line) as PassesOutput);
    });
  });
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

export async function benchPipeline(
  dataDir: string,
  passes: number,
  touchMbs: number[],
): Promise<PipelineRow[]> {
  const rows: PipelineRow[] = [];
  for (const touchMb of touchMbs) {
    const output = await runPasses(dataDir, passes, touchMb);
    const half = Math.ceil(passes / 2);
    const first = output.passes.slice(0, half);
    const second = output.passes.slice(half);
    const perQuestion = (ms: number) => ms / output.questions;
    const others = (of: typeof first) =>
      of.every((pass) => pass.othersMs !== undefined)
        ? sum(of.map((pass) => pass.othersMs ?? 0))
        : undefined;
    const main = second.every((pass) => pass.mainMs !== undefined)
      ? perQuestion(sum(second.map((pass) => pass.mainMs ?? 0)) / second.length)
      : undefined;
    rows.push({
      touchMb,
      questions: output.questions,
      passes,
      firstPassesMs: perQuestion(sum(first.slice(0, 5).map((pass) => pass.cpuMs)) / 5),
      steadyMs: perQuestion(median(second.map((pass) => pass.cpuMs))),
      steadyMainMs: main,
      othersFirstHalfMs: others(first),
      othersSecondHalfMs: others(second),
      stageMs: output.stageMs,
    });
  }
  return rows;
}
