/**
 * `npm run static-parity:browser`: every dev-set and sample question asked twice, of a real
 * `lectern serve` (`POST /chat`) and of the same book built with `lectern build-static --book-only`,
 * answered in Chromium by the engine's browser build over the files a plain static server serves,
 * through the routes the widget's worker runs (`staticRoutes`). The replies must agree on what
 * depends on the book: the answer, the fallback, the sources, the confidence and the suggestions.
 * Follow-ups are asked turn by turn in one session on each side. Builds the engine first.
 * Needs Chromium; reads ../shared/devsets (or LECTERN_DEVSETS), as eval:dev does.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { type EvalQuestion, loadQuestions } from "../src/eval/questions.ts";
import { launchChromium } from "../test/browser.ts";
import { runCli } from "../test/cli.ts";
import { startServerProcess } from "../test/server-process.ts";
import { serveStatic } from "../test/static-site.ts";

const packageRoot = fileURLToPath(new URL("../", import.meta.url));
const repoRoot = path.resolve(packageRoot, "../..");
const devsets = path.resolve(
  process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets"),
);
const sample = path.join(repoRoot, "examples", "robotics-primer");
const engineBuild = path.join(packageRoot, "dist", "static-engine", "lectern-engine.js");

interface Book {
  name: string;
  docs: string;
  files: string[];
}

const books: Book[] = [
  {
    name: "sample",
    docs: path.join(sample, "docs"),
    files: ["questions.jsonl", "questions-fresh.jsonl"].map((file) => path.join(sample, file)),
  },
  ...["redux", "jest", "pnpm"]
    .filter((corpus) => existsSync(path.join(devsets, corpus, "docs")))
    .map((corpus) => ({
      name: corpus,
      docs: path.join(devsets, corpus, "docs"),
      files: ["questions.jsonl", "questions_raw.jsonl", "answers.jsonl", "followups.jsonl"]
        .map((file) => path.join(devsets, corpus, file))
        .filter((file) => existsSync(file)),
    })),
];

/** A `/chat` reply reduced to what depends on the book, links made relative to the site. */
function comparable(body: Record<string, unknown>, origin?: string): string {
  const sources = ((body.sources ?? []) as { source_url?: string }[]).map((source) =>
    origin && source.source_url?.startsWith(origin)
      ? { ...source, source_url: source.source_url.slice(origin.length) }
      : source,
  );
  return JSON.stringify([
    body.answer,
    body.fallback_message,
    sources,
    body.confidence,
    body.suggestions ?? [],
  ]);
}

/** The page the engine runs in: the worker's routes over the built book, callable from here. */
const ASK_PAGE = `<!doctype html><meta charset="utf-8"><title>Parity</title><script type="module">
import { openStaticBook, staticRoutes } from "./lectern/engine/lectern-engine.js";
const routes = openStaticBook("./lectern/manifest.json").then((engine) =>
  staticRoutes(engine, engine.manifest.settings.historyWindow ?? 5));
window.chat = async (body) => {
  const reply = await (await routes)({ method: "POST", path: "/chat", body: JSON.stringify(body) });
  return JSON.parse(reply.body);
};
</script>`;

type Chat = (body: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * Asks a question's turns in one session; undefined when every turn's reply agrees, else the
 * first turn that does not, with both replies.
 */
async function disagreement(question: EvalQuestion, server: Chat, browser: Chat, origin: string) {
  const sessions: [string | undefined, string | undefined] = [undefined, undefined];
  for (const query of [...question.previousTurns, question.question]) {
    const [fromServer, fromFiles] = [
      await server({ query, ...(sessions[0] ? { session_id: sessions[0] } : {}) }),
      await browser({ query, ...(sessions[1] ? { session_id: sessions[1] } : {}) }),
    ];
    sessions[0] = fromServer.session_id as string;
    sessions[1] = fromFiles.session_id as string;
    const [expected, actual] = [comparable(fromServer, origin), comparable(fromFiles)];
    if (expected !== actual)
      return `${question.id}: "${query}"\n  /chat:  ${expected}\n  static: ${actual}`;
  }
  return undefined;
}

async function compareBook(book: Book, page: Page, workDir: string) {
  const dataDir = path.join(workDir, book.name, "data");
  const siteDir = path.join(workDir, book.name, "site");
  const built = await runCli(
    ["build-static", "--docs", book.docs, "--data-dir", dataDir, "--out", siteDir, "--book-only"],
    { env: { LOG_LEVEL: "warn" } },
  );
  if (built.code !== 0) throw new Error(`build-static failed for ${book.name}: ${built.stderr}`);
  await writeFile(path.join(siteDir, "parity.html"), ASK_PAGE);
  const site = await serveStatic(siteDir);
  const server = await startServerProcess(["--port", "0", "--data-dir", dataDir], {
    LOG_LEVEL: "error",
    RATE_LIMIT_ENABLED: "false",
  });
  try {
    await page.goto(`${site.url}parity.html`);
    await page.waitForFunction(() => "chat" in window);
    const serverChat: Chat = async (body) => {
      const response = await fetch(`${server.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const browserChat: Chat = (body) =>
      page.evaluate((asked) => (window as unknown as { chat: Chat }).chat(asked), body);
    const differing: string[] = [];
    const details: string[] = [];
    let asked = 0;
    for (const file of book.files)
      for (const question of await loadQuestions(file)) {
        asked += 1;
        const detail = await disagreement(question, serverChat, browserChat, server.url);
        if (!detail) continue;
        differing.push(question.id);
        details.push(detail);
      }
    return { asked, differing, details };
  } finally {
    await server.stop();
    await site.close();
  }
}

// The engine's browser build of these sources (a build left from other sources would be compared
// in their place).
const engine = spawnSync(process.execPath, ["scripts/build-engine.mjs"], {
  cwd: packageRoot,
  encoding: "utf8",
});
if (engine.status !== 0 || !existsSync(engineBuild)) {
  console.error(`Could not build the engine: ${engine.stderr}`);
  process.exit(2);
}
const workDir = await mkdtemp(path.join(tmpdir(), "lectern-static-parity-browser-"));
const browser = await launchChromium();
let total = 0;
let same = 0;
try {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  console.log("| book | questions | identical in Chromium | differing |");
  console.log("|---|---:|---:|---|");
  const details: string[] = [];
  for (const book of books) {
    const { asked, differing, details: bookDetails } = await compareBook(book, page, workDir);
    details.push(...bookDetails);
    total += asked;
    same += asked - differing.length;
    console.log(
      `| ${book.name} | ${asked} | ${asked - differing.length} | ${differing.join(", ")} |`,
    );
  }
  console.log(`| all | ${total} | ${same} (${((100 * same) / total).toFixed(1)} %) | |`);
  if (details.length > 0) console.log(`\nFirst differing turns:\n${details.join("\n")}`);
  if (errors.length > 0) console.log(`Page errors: ${errors.join("; ")}`);
  if (same < total || errors.length > 0) process.exitCode = 1;
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}
