#!/usr/bin/env node
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { extractiveAnswer } from "../answer/extractive.ts";
import { type Config, loadConfig } from "../config/config.ts";
import { createError, isLecternError } from "../errors.ts";
import { evaluate } from "../eval/evaluate.ts";
import { loadQuestions, splitQuestions } from "../eval/questions.ts";
import { tuneThresholds } from "../eval/tune.ts";
import { startServer } from "../http/server.ts";
import { scanDocs } from "../ingest/files.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import type { RetrievalResult } from "../search/retriever.ts";
import { formatIngestSummary, formatSources } from "./format.ts";
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

export function answerQuestion(
  lectern: Lectern,
  question: string,
  options: {
    topK?: number;
    sourceUrlPrefix?: string | undefined;
    section?: string | undefined;
  } = {},
) {
  const retrieval = lectern.retriever.retrieve(question, {
    ...(options.topK ? { topK: options.topK } : {}),
    filters: { sourceUrlPrefix: options.sourceUrlPrefix, section: options.section },
  });
  if (retrieval.decision === "no_results") {
    return { retrieval, answer: undefined, sources: [] as RetrievalResult["results"] };
  }
  const answer = extractiveAnswer(question, retrieval.results);
  return { retrieval, answer, sources: retrieval.results };
}

const NO_RESULTS_MESSAGE =
  "The book does not seem to cover this. Try other words, or ask about a topic from its contents.";

async function commandAsk(config: Config, flags: Flags, question: string): Promise<number> {
  if (!question.trim())
    throw new UsageError('Missing the question: lectern ask "How do topics work?"');
  const topK = positiveInt(flags["top-k"], "top-k", config.search.topK);
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    requireIndex(lectern);
    const { retrieval, answer, sources } = answerQuestion(lectern, question, {
      topK,
      sourceUrlPrefix: flags["source-url-prefix"],
      section: flags.section,
    });
    if (flags.json) {
      const body = {
        query: question,
        answer: answer?.text ?? null,
        fallback_message: answer ? null : NO_RESULTS_MESSAGE,
        mode: retrieval.decision === "no_results" ? "no_results" : "retrieval_only",
        low_confidence: retrieval.lowConfidence,
        sources: sources.map((result, index) => ({
          n: index + 1,
          source_url: result.chunk.url,
          title: result.chunk.title,
          section: result.chunk.section,
          section_path: result.chunk.headingPath,
          file_path: result.chunk.filePath,
          chunk_position: result.chunk.chunkIndex,
          similarity_score: result.similarityScore,
          snippet: result.chunk.text.slice(0, 200),
        })),
      };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return 0;
    }
    printAnswer(retrieval, answer?.text);
    return 0;
  });
}

function printAnswer(retrieval: RetrievalResult, answer: string | undefined): void {
  if (!answer) {
    process.stdout.write(`${NO_RESULTS_MESSAGE}\n`);
    return;
  }
  const note = retrieval.lowConfidence
    ? "\n(Low confidence: the best passages only partly match the question.)"
    : "";
  process.stdout.write(`${answer}${note}\n\nSources:\n${formatSources(retrieval)}\n`);
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
      const tuned = tuneThresholds(retriever, splitQuestions(allQuestions, "tune"), k);
      retriever = retriever.withThresholds(tuned.thresholds);
      process.stdout.write(
        `Tuned on ${splitQuestions(allQuestions, "tune").length} questions: ${JSON.stringify(tuned.thresholds)} ` +
          `(balanced accuracy ${(tuned.balancedAccuracy * 100).toFixed(1)}%, low-confidence F1 ${tuned.lowConfidenceF1.toFixed(2)})\n` +
          "Held-out questions with these thresholds:\n",
      );
    }
    const metrics = evaluate(retriever, questions, k);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
      return 0;
    }
    const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
    for (const result of metrics.results) {
      const wrong =
        result.expectedPages.length === 0
          ? !result.predictedNoResults
          : result.firstHit === undefined || result.predictedNoResults;
      if (wrong) {
        const got = result.predictedNoResults
          ? "no_results"
          : result.rankedPages.slice(0, 3).join(", ");
        process.stdout.write(
          `  miss ${result.id} (support ${result.support.toFixed(2)}) ${result.question}\n       expected ${result.expectedPages.join(", ") || "no_results"}; got ${got}\n`,
        );
      }
    }
    process.stdout.write(
      `${[
        `Questions: ${metrics.questions} (${metrics.answerable} answerable, ${metrics.offTopic} off-topic), split ${flags.tune ? "holdout" : split}`,
        `hit@1 ${percent(metrics.hitAt1)}  hit@${k} ${percent(metrics.hitAtK)} (${percent(metrics.answeredHitAtK)} counting wrong rejections as misses)  MRR ${metrics.mrr.toFixed(3)}`,
        `no-answer precision ${percent(metrics.noAnswerPrecision)}  recall ${percent(metrics.noAnswerRecall)}  (answerable questions rejected: ${metrics.falseRejections})`,
        `low_confidence flagged ${metrics.lowConfidenceFlagged}, of which wrong ${metrics.lowConfidenceWrong}`,
        `retrieval latency p50 ${metrics.latencyP50Ms.toFixed(2)} ms  p95 ${metrics.latencyP95Ms.toFixed(2)} ms`,
      ].join("\n")}\n`,
    );
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
    for await (const line of input) {
      const question = line.trim();
      if (!question) break;
      const { retrieval, answer } = answerQuestion(lectern, question);
      printAnswer(retrieval, answer?.text);
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
