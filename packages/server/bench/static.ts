/// <reference lib="dom" />
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { percentile } from "../src/eval/evaluate.ts";
import { launchChromium } from "../test/browser.ts";
import { serveStatic } from "../test/static-site.ts";

const LECTERN_BIN = fileURLToPath(new URL("../bin/lectern.js", import.meta.url));

export interface StaticRow {
  book: string;
  pages: number;
  /** Gzipped bytes of the engine's first script and the chunk it imports, and the worker. */
  engineGzip: number;
  /** Gzipped bytes of the book's files: its core and every shard. */
  bookGzip: number;
  /** Gzipped bytes of the book's core, which every question needs. */
  coreGzip: number;
  /** Gzipped bytes of every file the first question fetched (what a compressing host sends). */
  firstQuestionGzip: number;
  /** How many of the book's shards the first question fetched, of how many. */
  firstQuestionShards: number;
  shards: number;
  firstAnswerP50Ms: number;
  firstAnswerMaxMs: number;
  /**
   * The first answer when the engine's script too is fetched and run at the question (a question
   * sent before the script has loaded); the figures above have it loaded with the page, as the
   * widget has once its panel opens (its starter questions come from the engine).
   */
  engineAtQuestionP50Ms: number;
  /** A second question once the book is loaded. */
  nextAnswerP50Ms: number;
  /** The panel opened: the book opened and the engine warmed (warm-up.ts), from the click. */
  panelOpenP50Ms: number;
  /** The reader's first question, typed in the panel after that. */
  panelFirstAnswerP50Ms: number;
}

/**
 * A static build (`lectern build-static --book-only`, the compiled CLI) of a docs folder, served by
 * a plain static server, asked in Chromium with the CPU throttled `throttle` times: each run a
 * new browser context (engine and book cold, nothing cached) from the question to the answer.
 */
export async function benchStatic(
  book: string,
  docsDir: string,
  workDir: string,
  options: { runs: number; throttle: number; question: string; next: string },
): Promise<StaticRow> {
  const site = path.join(workDir, "site");
  const built = spawnSync(
    process.execPath,
    [
      LECTERN_BIN,
      "build-static",
      "--docs",
      docsDir,
      "--data-dir",
      path.join(workDir, "data"),
      "--out",
      site,
      "--book-only",
      "--json",
    ],
    { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "error" }, maxBuffer: 64 * 2 ** 20 },
  );
  if (built.status !== 0) throw new Error(`build-static failed:\n${built.stderr}`);
  const report = JSON.parse(built.stdout.slice(built.stdout.indexOf("{"))) as {
    files: { path: string; gzipBytes: number }[];
  };
  const gzipOf = (name: string) => report.files.find((file) => file.path === name)?.gzipBytes ?? 0;
  const manifest = JSON.parse(await readFile(path.join(site, "lectern", "manifest.json"), "utf8"));
  await writeFile(
    path.join(site, "ask.html"),
    `<!doctype html><meta charset="utf-8"><title>Ask</title><script type="module">
import { openStaticBook } from "./lectern/engine/lectern-engine.js";
window.ask = async (query) => {
  window.engine ??= openStaticBook("./lectern/manifest.json");
  return (await window.engine).ask({ query });
};
</script>`,
  );
  await writeFile(
    path.join(site, "ask-cold.html"),
    `<!doctype html><meta charset="utf-8"><title>Ask</title><script type="module">
window.ask = async (query) => {
  const { openStaticBook } = await import("./lectern/engine/lectern-engine.js");
  return (await openStaticBook("./lectern/manifest.json")).ask({ query });
};
</script>`,
  );
  // The widget's panel: opening it opens the book (its starter questions) and warms the engine
  // (warm-up.ts) while the reader types; the question comes once that is done.
  await writeFile(
    path.join(site, "ask-panel.html"),
    `<!doctype html><meta charset="utf-8"><title>Ask</title><script type="module">
import { openStaticBook, warmUpOnOpen } from "./lectern/engine/lectern-engine.js";
window.openPanel = async () => {
  const started = performance.now();
  window.engine = await openStaticBook("./lectern/manifest.json");
  await warmUpOnOpen(window.engine)({ method: "GET", path: "/suggestions" });
  return performance.now() - started;
};
window.ask = async (query) => window.engine.ask({ query });
</script>`,
  );
  const server = await serveStatic(site);
  const browser = await launchChromium();
  const first: number[] = [];
  const cold: number[] = [];
  const next: number[] = [];
  const panelOpen: number[] = [];
  const panelFirst: number[] = [];
  // What the first run's page fetched up to its first answer.
  const fetched = new Set<string>();
  try {
    for (let run = 0; run < options.runs; run++) {
      const [firstMs = 0, nextMs = 0] = await timedAnswers(
        browser,
        `${server.url}ask.html`,
        options.throttle,
        [options.question, options.next],
        run === 0 ? fetched : undefined,
      );
      first.push(firstMs);
      next.push(nextMs);
      const [coldMs = 0] = await timedAnswers(
        browser,
        `${server.url}ask-cold.html`,
        options.throttle,
        [options.question],
      );
      cold.push(coldMs);
      const [openMs = 0, panelMs = 0] = await timedAnswers(
        browser,
        `${server.url}ask-panel.html`,
        options.throttle,
        [options.question],
        undefined,
        true,
      );
      panelOpen.push(openMs);
      panelFirst.push(panelMs);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  let firstQuestionGzip = 0;
  for (const file of fetched)
    if (file.startsWith("/lectern/"))
      firstQuestionGzip += gzipSync(await readFile(path.join(site, file))).length;
  const engineFiles = report.files.filter(
    (file) =>
      file.path.startsWith("engine/") &&
      !/^engine\/(?:word-class-list|de|es|fr|pt)-/.test(file.path),
  );
  const folder = path.dirname(manifest.core);
  const bookFiles = report.files.filter((file) => file.path.startsWith(`${folder}/`));
  const shard = /\/(?:pages|terms)-\d+\.json$/;
  return {
    book,
    pages: (
      JSON.parse(await readFile(path.join(site, "lectern", manifest.core), "utf8")) as {
        pages: unknown[];
      }
    ).pages.length,
    engineGzip: engineFiles.reduce((sum, file) => sum + file.gzipBytes, 0),
    bookGzip: bookFiles.reduce((sum, file) => sum + file.gzipBytes, 0),
    coreGzip: gzipOf(manifest.core),
    firstQuestionGzip,
    firstQuestionShards: [...fetched].filter((file) => shard.test(file)).length,
    shards: bookFiles.filter((file) => shard.test(file.path)).length,
    firstAnswerP50Ms: median(first),
    firstAnswerMaxMs: Math.max(...first),
    engineAtQuestionP50Ms: median(cold),
    nextAnswerP50Ms: median(next),
    panelOpenP50Ms: median(panelOpen),
    panelFirstAnswerP50Ms: median(panelFirst),
  };
}

/**
 * A new browser context (nothing cached) on `url`, its CPU throttled, asking `questions` in turn:
 * each one's time from the question to the answer. `fetched` collects what the page fetched up to
 * the first answer. With `panel`, the page's panel is opened first (`openPanel`), its time first.
 */
async function timedAnswers(
  browser: Browser,
  url: string,
  throttle: number,
  questions: string[],
  fetched?: Set<string>,
  panel = false,
): Promise<number[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const counting = (request: { url(): string }) => fetched?.add(new URL(request.url()).pathname);
    if (fetched) page.on("request", counting);
    await page.goto(url);
    await page.waitForFunction(() => "ask" in window);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
    const times: number[] = [];
    if (panel)
      times.push(
        await page.evaluate(() =>
          (window as unknown as { openPanel(): Promise<number> }).openPanel(),
        ),
      );
    for (const question of questions) {
      times.push(
        await page.evaluate(async (asked) => {
          const started = performance.now();
          const reply = await (
            window as unknown as {
              ask(q: string): Promise<{ answer: string | null; fallbackMessage: string | null }>;
            }
          ).ask(asked);
          // A question the book cannot answer is answered by its refusal.
          if (!reply.answer && !reply.fallbackMessage) throw new Error(`no reply to ${asked}`);
          return performance.now() - started;
        }, question),
      );
      page.off("request", counting);
    }
    return times;
  } finally {
    await context.close();
  }
}

/** The median of run times (percentile reads a sorted list, by fraction). */
function median(times: number[]): number {
  return percentile(
    [...times].sort((left, right) => left - right),
    0.5,
  );
}
