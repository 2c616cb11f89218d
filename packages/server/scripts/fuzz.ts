/**
 * `npm run fuzz`: malformed requests on every route of the route table, sent over loopback to
 * `lectern serve` on the sample book (test/http-fuzz.ts). Fails (exit code 1) on any answer of 500
 * or more, an error outside the documented shape, or a crashed server.
 *
 *   npm run fuzz [-- --count 10000] [-- --seconds 600] [-- --seed 1] [-- --concurrency 8] [-- --json]
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { type FuzzReport, runFuzz, startFuzzTarget } from "../test/http-fuzz.ts";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "10000" },
    seconds: { type: "string", default: "600" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "8" },
    json: { type: "boolean", default: false },
  },
});

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a whole number of at least 1, got "${text}".\n`);
    process.exit(2);
  }
  return value;
}

const options = {
  count: positive("count", values.count),
  maxSeconds: positive("seconds", values.seconds),
  seed: positive("seed", values.seed),
  concurrency: positive("concurrency", values.concurrency),
};

const target = await startFuzzTarget();
let report: FuzzReport;
try {
  report = await runFuzz(target, {
    ...options,
    onProgress: (sent) => {
      if (!values.json) process.stderr.write(`  ${sent} requests\r`);
    },
  });
} finally {
  await target.cleanup();
}

if (values.json) {
  process.stdout.write(`${JSON.stringify({ options, ...report }, null, 2)}\n`);
} else {
  const cpus = os.cpus();
  process.stdout.write(
    [
      `Fuzzed ${report.sent} malformed requests in ${report.seconds.toFixed(1)} s (seed ${options.seed}, ${options.concurrency} at once${report.stoppedByTime ? ", stopped by the time bound" : ""})`,
      `Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "CPU"}, Node ${process.version}`,
      `Statuses: ${Object.entries(report.byStatus)
        .map(([status, count]) => `${status}: ${count}`)
        .join(", ")}`,
      `Faults: ${Object.entries(report.byFault)
        .map(([fault, count]) => `${fault}: ${count}`)
        .join(", ")}`,
      `Routes: ${Object.entries(report.byRoute)
        .map(([route, count]) => `${route}: ${count}`)
        .join(", ")}`,
      `Server crashed: ${report.crashed ? "yes" : "no"}`,
      `Failures: ${report.failures.length}`,
      ...report.failures
        .slice(0, 20)
        .map((failure) => `  ✗ ${failure.problem}\n    ${failure.request}`),
      "",
    ].join("\n"),
  );
}
process.exit(report.failures.length > 0 || report.crashed ? 1 : 0);
