// Prints the raw and gzipped size of both builds and fails when the standalone script is over
// its budget. Run after the build (npm run build).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const distDir = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const KIB = 1024;
const budgets = {
  "lectern.js": 30 * KIB, // standalone: preact/compat, zustand and the widget (no zod)
  "lectern-widget.js": null, // library: React is the host's; no budget
};

let overBudget = false;
for (const [file, budget] of Object.entries(budgets)) {
  let bytes;
  try {
    bytes = readFileSync(join(distDir, file));
  } catch {
    console.error(`${file}: missing; run the build first`);
    process.exitCode = 1;
    continue;
  }
  const gzipped = gzipSync(bytes, { level: 9 }).length;
  const verdict =
    budget === null
      ? ""
      : gzipped <= budget
        ? `  (budget ${format(budget)} gz: ok)`
        : `  OVER BUDGET ${format(budget)} gz`;
  if (budget !== null && gzipped > budget) overBudget = true;
  console.log(
    `${file.padEnd(18)} ${format(bytes.length).padStart(10)} raw  ${format(gzipped).padStart(10)} gzip${verdict}`,
  );
}
if (overBudget) process.exitCode = 1;

function format(bytes) {
  return `${bytes.toLocaleString("en-US")} B`;
}
