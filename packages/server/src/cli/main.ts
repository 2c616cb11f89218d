#!/usr/bin/env node
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isLecternError } from "@lectern/engine/errors";
import { VERSION } from "../version.ts";
import { bookDataDir, DATA_ROOT, findBookDataDir, siteDataDir } from "./book-dir.ts";
import { parseFlags, portNumber, UsageError } from "./flags.ts";
import { sampleDocs } from "./sample-book.ts";
import { checkUsage } from "./usage.ts";

// Commands (and the config schema) are imported when they run: `lectern --version` and
// `lectern --help` load nothing else, and each command loads only what it uses.

const USAGE = `lectern — ask the book

Usage:
  lectern ingest --docs <dir> [--base-url <url>] [--route-base-path </docs>] [--title <title>]
                 [--replace] [--reembed] [--json]
                 [--strict]  exit 1 when a page cannot be ingested (for CI)
  lectern ingest --url <site> [--sitemap <url>] [--include <glob>]... [--exclude <glob>]...
                 [--max-pages 5000] [--title <title>] [--replace] [--reembed] [--json] [--strict]
                       crawl a documentation site (any generator) and ingest its pages;
                       again, only changed pages are downloaded (docs/crawl.md)
  lectern ingest --site <dir> [--docs-path docs] [--locales fr,ja] [--default-locale en] [...]
                       a versioned Docusaurus site: the current docs and every version in
                       its versions.json, and each locale's translations under i18n/, each
                       at the URLs Docusaurus serves it
  lectern ask "<question>" [--top-k 5] [--source-url-prefix <prefix>] [--section <name>]
              [--doc-version <name>|next|latest] [--locale <locale>] [--json]
  lectern eval --questions <file.jsonl> [--k 5] [--split all|tune|holdout] [--json]
  lectern eval --questions <file.jsonl> --tune
                       choose no-results/low-confidence thresholds on the tune half,
                       then report the held-out half with them
  lectern insights [--since 7d] [--json]
                       what readers asked: topics, unanswered questions, thumbs-down answers,
                       pages cited and never cited, vocabulary gaps, stale answers
  lectern eval --questions <file.jsonl> --save <run.json>
                       also keep each answer and its cited pages, to compare later
  lectern eval --compare <before.json> <after.json> [--json]
                       questions that became unanswerable or answerable, cite another
                       page, or whose answer changed between two saved runs
  lectern mcp          the book's MCP server on stdio (tools search_docs, ask_docs, get_page;
                       pages as resources), for agents that start it as a process
  lectern llms-txt --out <dir> [--base-url <url>] [--json]
                       write llms.txt, llms-full.txt and each page as <url>.md into a
                       site's build folder (paths under the base URL's path)
  lectern build-static --out <dir> [--docs <dir>] [--book-only] [--base-url <url>]
                       [--feedback-url <url>] [--json]
                       write the book's pages with the widget, and the book, its search
                       index and the engine under <dir>/lectern/, as static files answered
                       in the reader's browser with no server (--book-only: no pages;
                       --feedback-url: where readers' thumbs up/down are posted as JSON)
  lectern serve [--docs <dir>] [--port 3000] [--host 127.0.0.1] [--strict]
                       start the HTTP API (ingesting --docs first when given)
  lectern start [--docs <dir>]     ingest the docs (default: the sample book), then serve
  lectern repl [--docs <dir>]      ingest the docs (default: the sample book), then ask in a loop

Options for every command:
  --data-dir <dir>     where the book's index lives (env LECTERN_DATA_DIR; default
                       ./.lectern/<name of the docs folder>, or the only book in ./.lectern)
  --collection <name>  which book in the data dir (default "default", env LECTERN_COLLECTION)
  --config <file>      a lectern.config.json (default ./lectern.config.json when present)
  --title <title>      the book's title (env LECTERN_TITLE; default: its root page's title,
                       else its Docusaurus site's, else its docs folder's name)
  -h, --help           this text
  -v, --version        the version
`;

export async function main(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parseFlags(argv);
  const command = positionals[0];
  if (flags.version || command === "version") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (flags.help || !command || command === "help") {
    process.stdout.write(USAGE);
    return command || flags.help ? 0 : 2;
  }
  // A mistake in the command line is reported before any configuration or book is read.
  const name = await checkUsage(command, flags, positionals.slice(1));
  const { loadConfig } = await import("../config/config.ts");
  const config = loadConfig({
    ...(flags.config ? { configFile: flags.config } : {}),
    overrides: {
      dataDir: flags["data-dir"],
      docsDir: flags.docs,
      baseUrl: flags["base-url"],
      routeBasePath: flags["route-base-path"],
      collection: flags.collection,
      title: flags.title,
      port: flags.port === undefined ? undefined : portNumber(flags.port),
      host: flags.host,
    },
    // Without a configured data directory, each book has its own under ./.lectern.
    defaultDataDir: (docsDir) => {
      if (docsDir) return bookDataDir(docsDir);
      const site = flags.url ?? flags.sitemap;
      if (name === "ingest" && site) return siteDataDir(site);
      if (flags.site) return bookDataDir(flags.site);
      if (name === "start" || name === "repl") return bookDataDir(sampleDocs());
      // Comparing two saved runs reads no index.
      return name === "ingest" || flags.compare !== undefined ? DATA_ROOT : findBookDataDir();
    },
  });
  switch (name) {
    case "ingest":
      return (await import("./commands/ingest.ts")).ingestCommand(config, flags);
    case "ask":
      return (await import("./commands/ask.ts")).askCommand(
        config,
        flags,
        positionals.slice(1).join(" "),
      );
    case "eval":
      return (await import("./commands/eval.ts")).evalCommand(config, flags, positionals.slice(1));
    case "insights":
      return (await import("./commands/insights.ts")).insightsCommand(config, flags);
    case "repl":
      return (await import("./commands/repl.ts")).replCommand(config);
    case "mcp":
      return (await import("./commands/mcp.ts")).mcpCommand(config);
    case "llms-txt":
      return (await import("./commands/llms-txt.ts")).llmsTxtCommand(config, flags);
    case "build-static":
      return (await import("./commands/build-static.ts")).buildStaticCommand(config, flags);
    case "serve":
      return (await import("./commands/serve.ts")).serveCommand(config, config.docsDir, {
        strict: Boolean(flags.strict),
      });
    case "start":
      return (await import("./commands/serve.ts")).serveCommand(
        config,
        config.docsDir ?? sampleDocs(),
      );
  }
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
