#!/usr/bin/env node
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pino from "pino";
import { type Config, loadConfig } from "../config/config.ts";
import { createError, isLecternError } from "../errors.ts";
import { evaluate } from "../eval/evaluate.ts";
import { loadQuestions, splitQuestions } from "../eval/questions.ts";
import { tuneThresholds } from "../eval/tune.ts";
import { startServer } from "../http/server.ts";
import { scanDocs } from "../ingest/files.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import type { Exchange } from "../llm/prompts.ts";
import { NO_RESULTS_MESSAGE } from "../pipeline/answer-synthesizer.ts";
import { createChatPipeline } from "../pipeline/answering.ts";
import type { ChatPipeline } from "../pipeline/chat-pipeline.ts";
import type { ChatOutcome } from "../pipeline/types.ts";
import type { Retriever } from "../search/retriever.ts";
import { formatEvalReport, formatIngestSummary, formatSources } from "./format.ts";
import { createProgressBar } from "./progress.ts";

const USAGE = `lectern — ask the book

Usage:
  lectern ingest --docs <dir> [--base-url <url>] [--route-base-path </docs>] [--reembed] [--json]
  lectern ask "<question>" [--top-k 5] [--source-url-prefix <prefix>] [--section <name>] [--json]
  lectern eval --questions <file.jsonl> [--k 5] [--split all|tune|holdout] [--json]
  lectern eval --questions <file.jsonl> --tune
                       choose no-results/low-confidence thresholds on the tune half,
                       then report the held-out half with them
  lectern serve [--docs <dir>] [--port 3000] [--host 127.0.0.1]
                       start the HTTP API (ingesting --docs first when given)
  lectern start [--docs <dir>]     ingest the docs (default: the sample book), then serve
  lectern repl [--docs <dir>]      ingest the docs (default: the sample book), then ask in a loop

Options for every command:
  --data-dir <dir>     where the index lives (default ./.lectern, env LECTERN_DATA_DIR)
  --collection <name>  which book in the data dir (default "default", env LECTERN_COLLECTION)
  --config <file>      a lectern.config.json (default ./lectern.config.json when present)
  -h, --help           this text
`;

export const SAMPLE_DOCS = fileURLToPath(
  new URL("../../../../examples/robotics-primer/docs", import.meta.url),
);

const OPTIONS = {
  docs: { type: "string" },
  "base-url": { type: "string" },
  "route-base-path": { type: "string" },
  "data-dir": { type: "string" },
  collection: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  "top-k": { type: "string" },
  k: { type: "string" },
  "source-url-prefix": { type: "string" },
  section: { type: "string" },
  questions: { type: "string" },
  split: { type: "string" },
  tune: { type: "boolean" },
  reembed: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  port: { type: "string" },
  host: { type: "string" },
} as const;

type Flags = ReturnType<typeof parseFlags>["values"];

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseFlags(argv);
  const command = positionals[0];
  if (flags.help || !command || command === "help") {
    process.stdout.write(USAGE);
    return command || flags.help ? 0 : 2;
  }
  const config = loadConfig({
    ...(flags.config ? { configFile: flags.config } : {}),
    overrides: {
      dataDir: flags["data-dir"],
      docsDir: flags.docs,
      baseUrl: flags["base-url"],
      routeBasePath: flags["route-base-path"],
      collection: flags.collection,
      port: flags.port === undefined ? undefined : portNumber(flags.port),
      host: flags.host,
    },
  });
  switch (command) {
    case "ingest":
      return commandIngest(config, flags);
    case "ask":
      return commandAsk(config, flags, positionals.slice(1).join(" "));
    case "eval":
      return commandEval(config, flags);
    case "repl":
      return commandRepl(config);
    case "serve":
      return commandServe(config, config.docsDir);
    case "start":
      return commandServe(config, config.docsDir ?? SAMPLE_DOCS);
    default:
      throw new UsageError(`Unknown command "${command}". Run "lectern --help".`);
  }
}

/** For read-only commands: a data directory that was never created holds nothing to search. */
function requireDataDir(config: Config): void {
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, "db"))) {
    throw createError(
      "INDEX_EMPTY",
      `Nothing has been ingested into ${path.resolve(config.dataDir)} yet. Run: lectern ingest --docs <dir>`,
    );
  }
}

async function withLectern<T>(config: Config, work: (lectern: Lectern) => Promise<T>): Promise<T> {
  const lectern = await openLectern(config);
  try {
    return await work(lectern);
  } finally {
    await lectern.close();
  }
}

async function runIngest(lectern: Lectern, docsDir: string, json: boolean): Promise<number> {
  const progress = createProgressBar();
  const report = await lectern.ingest(docsDir, (event) => progress.update(event));
  progress.finish();
  if (json) {
    const { addedChunks: _added, removedChunkIds: _removed, ...summary } = report;
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    for (const failure of report.failures) process.stderr.write(`✗ ${failure.message}\n`);
    process.stdout.write(`${formatIngestSummary(report)}\n`);
  }
  const embeddings = report.embeddings;
  if (embeddings && !json) {
    process.stdout.write(
      `Embeddings: ${embeddings.embedded} chunks embedded in ${embeddings.seconds.toFixed(2)} s with ${lectern.embedder.provider}:${lectern.embedder.modelId}\n`,
    );
  }
  if (embeddings?.failed) {
    process.stderr.write(
      `Embedding stopped (${embeddings.failed}); ${embeddings.pending} chunk(s) still need embeddings. Run the same command again to continue where it stopped.\n`,
    );
    return 1;
  }
  if (report.failures.length > 0) {
    process.stderr.write(
      `${report.failures.length} file(s) could not be ingested; their previous versions (if any) were kept.\n`,
    );
    return 1;
  }
  return 0;
}

async function commandIngest(config: Config, flags: Flags): Promise<number> {
  if (!config.docsDir) throw new UsageError("Missing --docs <dir> (or LECTERN_DOCS_DIR).");
  const docsDir = config.docsDir;
  await scanDocs(docsDir); // fail fast on a missing or empty folder, before opening the database
  const reembed = Boolean(flags.reembed);
  const lectern = await openLectern(config, { reembed });
  try {
    if (reembed) await lectern.vectors?.deleteAll();
    return await runIngest(lectern, docsDir, Boolean(flags.json));
  } finally {
    await lectern.close();
  }
}

function requireIndex(lectern: Lectern): void {
  if (lectern.index.size === 0) {
    throw createError(
      "INDEX_EMPTY",
      `Nothing has been ingested into ${configLocation(lectern.config)} yet. Run: lectern ingest --docs <dir>`,
    );
  }
}

function configLocation(config: Config): string {
  return config.databaseUrl ? "the database" : path.resolve(config.dataDir);
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 20) {
    throw new UsageError(`--${flag} must be an integer from 1 to 20, got "${value}".`);
  }
  return number;
}

/** The pipeline `/chat` runs, for the CLI's commands (logs go to stderr, warnings only). */
function pipelineOf(lectern: Lectern, retriever?: Retriever): ChatPipeline {
  const logger = pino({ level: "warn", base: null }, pino.destination(2));
  return createChatPipeline(lectern, logger, retriever ? { retriever } : {}).pipeline;
}

let turnCounter = 0;

/** One turn through the chat pipeline, as `POST /chat` answers it. */
export async function askTurn(
  pipeline: ChatPipeline,
  question: string,
  options: {
    topK?: number;
    sourceUrlPrefix?: string | undefined;
    section?: string | undefined;
    history?: Exchange[];
  } = {},
): Promise<ChatOutcome> {
  turnCounter++;
  const filters =
    options.sourceUrlPrefix || options.section
      ? { sourceUrlPrefix: options.sourceUrlPrefix, section: options.section }
      : undefined;
  return pipeline.run({
    requestId: `cli-${turnCounter}`,
    sessionId: "cli",
    query: question,
    selectedText: null,
    filters,
    sourceUrl: null,
    topK: options.topK,
    history: options.history ?? [],
  });
}

async function commandAsk(config: Config, flags: Flags, question: string): Promise<number> {
  if (!question.trim())
    throw new UsageError('Missing the question: lectern ask "How do topics work?"');
  const topK = positiveInt(flags["top-k"], "top-k", config.search.topK);
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    requireIndex(lectern);
    const outcome = await askTurn(pipelineOf(lectern), question, {
      topK,
      sourceUrlPrefix: flags["source-url-prefix"],
      section: flags.section,
    });
    if (flags.json) {
      const body = {
        query: question,
        answer: outcome.answer,
        fallback_message: outcome.fallbackMessage,
        mode: outcome.mode,
        low_confidence: outcome.lowConfidence,
        confidence: outcome.confidence,
        route: outcome.route,
        search_query: outcome.searchQuery,
        sources: outcome.sources,
      };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return 0;
    }
    printAnswer(outcome);
    return 0;
  });
}

function printAnswer(outcome: ChatOutcome): void {
  if (outcome.mode === "no_results" || outcome.answer === null) {
    process.stdout.write(`${outcome.fallbackMessage ?? NO_RESULTS_MESSAGE}\n`);
    return;
  }
  const note = outcome.lowConfidence
    ? "\n(Low confidence: the best passages only partly match the question.)"
    : "";
  const sources = outcome.sources.length ? `\n\nSources:\n${formatSources(outcome.sources)}` : "";
  process.stdout.write(`${outcome.answer}${note}${sources}\n`);
}

async function commandEval(config: Config, flags: Flags): Promise<number> {
  if (!flags.questions) throw new UsageError("Missing --questions <file.jsonl>.");
  const k = positiveInt(flags.k, "k", 5);
  const split = flags.split ?? "all";
  if (split !== "all" && split !== "tune" && split !== "holdout") {
    throw new UsageError(`--split must be all, tune or holdout, got "${split}".`);
  }
  const allQuestions = await loadQuestions(flags.questions);
  const questions = splitQuestions(allQuestions, flags.tune ? "holdout" : split);
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    requireIndex(lectern);
    let retriever = lectern.retriever;
    if (flags.tune) {
      const tuneHalf = splitQuestions(allQuestions, "tune");
      const tuned = await tuneThresholds(
        retriever,
        (candidate) => pipelineOf(lectern, candidate),
        tuneHalf,
        k,
      );
      retriever = retriever.withThresholds(tuned.thresholds);
      process.stdout.write(
        `Tuned on ${tuneHalf.length} questions: ${JSON.stringify(tuned.thresholds)} ` +
          `(decision score ${tuned.decisionScore.toFixed(3)}, low-confidence F1 ${tuned.lowConfidenceF1.toFixed(2)})\n` +
          "Held-out questions with these thresholds:\n",
      );
    }
    const metrics = await evaluate(pipelineOf(lectern, retriever), questions, k);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`${formatEvalReport(metrics, flags.tune ? "holdout" : split)}\n`);
    return 0;
  });
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a port number, got "${value}".`);
  }
  return port;
}

async function commandServe(config: Config, docsDir: string | undefined): Promise<number> {
  if (docsDir) await scanDocs(docsDir);
  const lectern = await openLectern(config);
  try {
    if (docsDir) {
      process.stdout.write(`Ingesting ${docsDir}\n`);
      await runIngest(lectern, docsDir, false);
    } else if (lectern.index.size === 0) {
      process.stderr.write(
        "warning: nothing has been ingested yet; run lectern ingest --docs <dir> or pass --docs.\n",
      );
    }
  } catch (error) {
    await lectern.close();
    throw error;
  }
  const server = await startServer(config, { lectern });
  process.stdout.write(
    `Lectern is answering at ${server.url} (try: curl -s ${server.url}/chat -H 'content-type: application/json' -d '{"query":"How do topics work?"}')\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stdout.write("Shutting down…\n");
      server
        .close()
        .then(() => lectern.close())
        .then(resolve, resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

async function commandRepl(config: Config): Promise<number> {
  const docsDir = config.docsDir ?? SAMPLE_DOCS;
  return withLectern(config, async (lectern) => {
    process.stdout.write(`Ingesting ${docsDir}\n`);
    await runIngest(lectern, docsDir, false);
    const input = createInterface({ input: process.stdin, terminal: false });
    process.stdout.write(
      '\nAsk the book a question (empty line or Ctrl-D to quit). Example: "How do I publish on a topic?"\n? ',
    );
    // Iterating the lines (rather than prompting for each) also works when questions are piped in.
    const pipeline = pipelineOf(lectern);
    const history: Exchange[] = [];
    for await (const line of input) {
      const question = line.trim();
      if (!question) break;
      const outcome = await askTurn(pipeline, question, { history: history.slice(-3) });
      history.push({ query: question, answer: outcome.answer ?? outcome.fallbackMessage ?? "" });
      printAnswer(outcome);
      process.stdout.write("\n? ");
    }
    input.close();
    process.stdout.write("\n");
    return 0;
  });
}

export async function run(argv: string[]): Promise<void> {
  // `lectern eval | head` closes the pipe early: that is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  });
  // `npm start` / `npm run lectern` run in the package folder; paths are meant from where npm ran.
  if (process.env.INIT_CWD && existsSync(process.env.INIT_CWD)) process.chdir(process.env.INIT_CWD);
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 2;
    } else if (isLecternError(error)) {
      process.stderr.write(`error [${error.code}]: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      process.stderr.write(`error [INTERNAL_ERROR]: ${message}\n`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await run(process.argv.slice(2));
}
