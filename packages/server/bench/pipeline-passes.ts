/**
 * The chat pipeline alone, in process (`npm run bench -- --only pipeline`): every question of
 * `BENCH_QUESTIONS` (one JSON object with a `question` a line) answered in turn by the real chat
 * pipeline over the book in `BENCH_DATA_DIR`, history and the question log off, `BENCH_PASSES`
 * times. With `BENCH_TOUCH_MB`, that many megabytes of memory are written before each question,
 * as the HTTP work between two answers does to the processor's caches in a loaded server. Prints
 * one JSON object: each pass's CPU time (the whole process, and its threads apart where Linux's
 * /proc tells them) and the pipeline's own stage times over the second half of the passes.
 * Lectern's modules are the compiled ones: `npm run build` first.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createChatPipeline, createLogger, loadConfig, openLectern } from "./compiled-modules.ts";

const questions = readFileSync(process.env.BENCH_QUESTIONS ?? "", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { question: string }).question);
const passes = Number(process.env.BENCH_PASSES ?? "60");
const touched = new Float64Array((Number(process.env.BENCH_TOUCH_MB ?? "0") * 2 ** 20) / 8);

const config = loadConfig({
  env: { ...process.env, HISTORY: "off", INSIGHTS: "off", LOG_LEVEL: "silent" },
  overrides: { dataDir: process.env.BENCH_DATA_DIR ?? "", port: 0, host: "127.0.0.1" },
});
const lectern = await openLectern(config, { workload: "serve" });
const { pipeline } = createChatPipeline(lectern, createLogger(config));

/** CPU milliseconds of the main thread and of the others, from /proc (undefined elsewhere). */
function threadTimes(): { main: number; others: number } | undefined {
  try {
    const times = { main: 0, others: 0 };
    for (const task of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime and stime, in clock ticks of 10 ms.
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (task === String(process.pid)) times.main += ms;
      else times.others += ms;
    }
    return times;
  } catch {
    return undefined;
  }
}

/** Writes one value in every cache line of the touched memory. */
function touch(): void {
  for (let at = 0; at < touched.length; at += 8) touched[at] = (touched[at] ?? 0) + 1;
}

const rows: { cpuMs: number; mainMs?: number; othersMs?: number }[] = [];
const stages = new Map<string, number>();
for (let pass = 0; pass < passes; pass++) {
  const threads = threadTimes();
  const cpu = process.cpuUsage();
  for (const query of questions) {
    if (touched.length > 0) touch();
    const outcome = await pipeline.run({
      requestId: "bench",
      sessionId: "bench",
      query,
      selectedText: null,
      filters: undefined,
      sourceUrl: null,
      topK: undefined,
    });
    if (pass < passes / 2) continue;
    for (const [stage, ms] of Object.entries(outcome.timings))
      stages.set(stage, (stages.get(stage) ?? 0) + ms);
  }
  const used = process.cpuUsage(cpu);
  const after = threadTimes();
  rows.push({
    cpuMs: (used.user + used.system) / 1000,
    ...(threads && after
      ? { mainMs: after.main - threads.main, othersMs: after.others - threads.others }
      : {}),
  });
}
const timed = (passes - Math.ceil(passes / 2)) * questions.length;
console.log(
  JSON.stringify({
    questions: questions.length,
    passes: rows,
    stageMs: Object.fromEntries([...stages].map(([stage, ms]) => [stage, ms / timed])),
  }),
);
await lectern.close();
