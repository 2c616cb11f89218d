import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRandom, TextGenerator } from "./corpus.ts";

/**
 * Peak memory of `lectern ingest` as a container limit sees it: the RSS of the command's process
 * and of every process it starts, summed, sampled every 10 ms from /proc (Linux only). The
 * command is the compiled CLI (`bin/lectern.js`, `npm run build` first), or another build's to
 * compare with (`--compare-cli`), run in turn round after round on the same generated book.
 */

export interface IngestMemoryRow {
  cli: string;
  round: number;
  seconds: number;
  /** Peak of the sum of the RSS of the command and its descendants. */
  peakTreeMb: number;
  /** Peak RSS of the command's own process. */
  peakMainMb: number;
  /** Peak of the sum over its descendants alone (initdb, when it runs in a child). */
  peakChildrenMb: number;
}

function statusRssKib(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0; // ended between the listing and the read
  }
}

/** The parent of every process on the machine, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name (in parentheses) may hold spaces: fields are counted after it.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // ended meanwhile
    }
  }
  return parentOf;
}

function descendants(root: number): number[] {
  const parentOf = parents();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Runs `lectern ingest` with `cli` and samples its process tree until it ends. */
async function ingestOnce(
  cli: string,
  docsDir: string,
): Promise<Omit<IngestMemoryRow, "cli" | "round">> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-ingest-memory-"));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [cli, "ingest", "--docs", docsDir, "--data-dir", dataDir, "--json"],
    {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const peaks = { tree: 0, main: 0, children: 0 };
  // Listing every process is what costs the sampler CPU (which the ingest competes with): the
  // tree is listed every 50 ms, its members' RSS read every 10 ms.
  let tree: number[] = [];
  let samples = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    if (samples++ % 5 === 0) tree = descendants(child.pid);
    const main = statusRssKib(child.pid);
    const others = tree.reduce((total, pid) => total + statusRssKib(pid), 0);
    peaks.main = Math.max(peaks.main, main);
    peaks.children = Math.max(peaks.children, others);
    peaks.tree = Math.max(peaks.tree, main + others);
  };
  const timer = setInterval(sample, 10);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearInterval(timer);
  await rm(dataDir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`lectern ingest exited with ${code}: ${stderr}`);
  const mb = (kib: number) => Math.round(kib / 1024);
  return {
    seconds: (performance.now() - started) / 1000,
    peakTreeMb: mb(peaks.tree),
    peakMainMb: mb(peaks.main),
    peakChildrenMb: mb(peaks.children),
  };
}

async function writeGeneratedBook(root: string, pages: number): Promise<void> {
  const generator = new TextGenerator(createRandom(42));
  for (let index = 0; index < pages; index++) {
    const page = generator.page(index);
    await mkdir(path.dirname(path.join(root, page.path)), { recursive: true });
    await writeFile(path.join(root, page.path), page.content);
  }
}

/** Each CLI in turn, `rounds` times, each ingest into a new data directory. */
export async function benchIngestMemory(options: {
  pages: number;
  rounds: number;
  clis: string[];
}): Promise<IngestMemoryRow[]> {
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-ingest-memory-book-"));
  const rows: IngestMemoryRow[] = [];
  try {
    await writeGeneratedBook(workDir, options.pages);
    for (let round = 1; round <= options.rounds; round++) {
      for (const cli of options.clis) {
        rows.push({ cli, round, ...(await ingestOnce(cli, workDir)) });
      }
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return rows;
}
