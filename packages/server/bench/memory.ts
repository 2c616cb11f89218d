import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { openLectern } from "../src/lectern.ts";
import { createRandom, TextGenerator } from "./corpus.ts";

/**
 * Peak memory of ingestion. The books are written first; each is then ingested in a process of
 * its own, so that no case inherits another's heap or the generator's:
 * `npx tsx bench/memory.ts [--pages 1000] [--large-mb 50] [--pglite-compiler optimizing]` (from
 * packages/server) prints a table.
 * The generated pages are also ingested by `lectern ingest` itself (the compiled CLI in
 * bin/lectern.js, as installed: no TypeScript loader in the process) when dist/ is built.
 * Recorded in docs/reliability.md.
 */

const { values } = parseArgs({
  options: {
    docs: { type: "string" },
    "max-page-bytes": { type: "string" },
    pages: { type: "string", default: "1000" },
    "large-mb": { type: "string", default: "50" },
    // LECTERN_PGLITE_COMPILER for every case (unset: the default, as `lectern ingest` runs).
    "pglite-compiler": { type: "string" },
  },
});

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

interface Measurement {
  seconds: number;
  /** RSS once the database is open, before ingesting. */
  openedRssMb: number;
  /** The process's peak RSS (start-up included). */
  peakRssMb: number;
  added: number;
  chunks: number;
  failures: string[];
}

/** The child: ingests `docs` into a fresh data directory and reports. */
async function ingestOnce(docsDir: string): Promise<Measurement> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-memory-data-"));
  try {
    const config = loadConfig({
      env: {
        LECTERN_MAX_PAGE_BYTES: values["max-page-bytes"],
        LECTERN_PGLITE_COMPILER: values["pglite-compiler"],
      },
      overrides: { dataDir },
    });
    // As `lectern ingest` opens it.
    const lectern = await openLectern(config, { workload: "ingest" });
    const openedRssMb = mb(process.memoryUsage().rss);
    const started = performance.now();
    const report = await lectern.ingest(docsDir);
    const seconds = (performance.now() - started) / 1000;
    await lectern.close();
    return {
      seconds,
      openedRssMb,
      // maxRSS is in KiB.
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      added: report.added.length,
      chunks: report.totalChunks,
      failures: report.failures.map((failure) => failure.message),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const LECTERN_BIN = fileURLToPath(new URL("../bin/lectern.js", import.meta.url));
const COMPILED_CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/**
 * `lectern ingest --json` in a process of its own, run through a preamble that reports the
 * process's peak RSS on exit (the CLI runs in the process that imports bin/lectern.js).
 */
async function ingestWithCli(docsDir: string): Promise<Measurement> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-memory-cli-"));
  try {
    const preamble = `
      process.on("exit", () => process.stderr.write("\\npeak-rss-kib " + process.resourceUsage().maxRSS + "\\n"));
      process.argv.splice(1, 0, ${JSON.stringify(LECTERN_BIN)});
      await import(${JSON.stringify(pathToFileURL(LECTERN_BIN).href)});
    `;
    const started = performance.now();
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        preamble,
        "ingest",
        "--docs",
        docsDir,
        "--data-dir",
        dataDir,
        "--json",
      ],
      {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          ...(values["pglite-compiler"]
            ? { LECTERN_PGLITE_COMPILER: values["pglite-compiler"] }
            : {}),
        },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const peakKib = Number(/peak-rss-kib (\d+)/.exec(child.stderr)?.[1] ?? Number.NaN);
    if (child.status !== 0 || !Number.isFinite(peakKib)) {
      throw new Error(`lectern ingest exited with ${child.status}: ${child.stderr}`);
    }
    const report = JSON.parse(child.stdout) as {
      added: string[];
      totalChunks: number;
      failures: { message: string }[];
    };
    return {
      seconds,
      openedRssMb: Number.NaN,
      peakRssMb: Math.round(peakKib / 1024),
      added: report.added.length,
      chunks: report.totalChunks,
      failures: report.failures.map((failure) => failure.message),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function writeBook(root: string, files: Record<string, string>): Promise<string> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

function generatedPages(count: number): Record<string, string> {
  const generator = new TextGenerator(createRandom(42));
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const page = generator.page(index);
    files[page.path] = page.content;
  }
  return files;
}

/** One page of prose with a heading every 200 paragraphs, like a generated reference page. */
function largePage(megabytes: number): Record<string, string> {
  const generator = new TextGenerator(createRandom(7));
  const parts: string[] = ["---\ntitle: Generated reference\n---\n\n# Generated reference\n"];
  let size = 0;
  for (let paragraph = 0; size < megabytes * 2 ** 20; paragraph++) {
    const text =
      paragraph % 200 === 0 ? `\n## Part ${paragraph / 200}\n` : `${generator.paragraph()}\n`;
    parts.push(text);
    size += text.length + 1;
  }
  return { "index.md": "# Home\n\nThe book's front page.\n", "reference.md": parts.join("\n") };
}

if (values.docs) {
  process.stdout.write(`${JSON.stringify(await ingestOnce(values.docs))}\n`);
} else {
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-memory-"));
  try {
    const pagesDir = await writeBook(
      path.join(workDir, "pages"),
      generatedPages(Number(values.pages)),
    );
    const largeDir = await writeBook(
      path.join(workDir, "large"),
      largePage(Number(values["large-mb"])),
    );
    const tsx = createRequire(import.meta.url).resolve("tsx/cli");
    const self = fileURLToPath(import.meta.url);
    const compiler = values["pglite-compiler"];
    const compilerArgs = compiler ? ["--pglite-compiler", compiler] : [];
    const cases = [
      {
        name: `${values.pages} generated pages`,
        cap: "default (4 MiB)",
        args: ["--docs", pagesDir, ...compilerArgs],
      },
      {
        name: `one ${values["large-mb"]} MB page`,
        cap: "default (4 MiB)",
        args: ["--docs", largeDir, ...compilerArgs],
      },
    ];
    console.log(
      "| case | page cap | seconds | RSS when opened | peak RSS | pages added | chunks |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const { name, cap, args } of cases) {
      const child = spawnSync(process.execPath, [tsx, self, ...args], { encoding: "utf8" });
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as Measurement;
      console.log(
        `| ${name} | ${cap} | ${result.seconds.toFixed(1)} | ${result.openedRssMb} MB | ${result.peakRssMb} MB | ${result.added} | ${result.chunks} |`,
      );
      for (const failure of result.failures) console.log(`|   ${failure} | | | | | | |`);
    }
    if (existsSync(COMPILED_CLI)) {
      const result = await ingestWithCli(pagesDir);
      console.log(
        `| ${values.pages} generated pages, \`lectern ingest\` (compiled CLI) | default (4 MiB) | ${result.seconds.toFixed(1)} | (not measured) | ${result.peakRssMb} MB | ${result.added} | ${result.chunks} |`,
      );
    } else {
      console.log(`(${COMPILED_CLI} is missing: npm run build to measure the compiled CLI too)`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
