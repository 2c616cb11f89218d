import { type Flags, positiveInt, UsageError } from "./flags.ts";

/**
 * The commands and what each needs of its arguments. Checked before the configuration is read or
 * a book is chosen and opened, so that a typo is reported as a typo, never as a problem with the
 * data directory (`lectern fly` with two books in ./.lectern says "Unknown command").
 */

export const COMMANDS = [
  "ingest",
  "ask",
  "eval",
  "insights",
  "repl",
  "mcp",
  "llms-txt",
  "build-static",
  "serve",
  "start",
] as const;

export type CommandName = (typeof COMMANDS)[number];

export const EVAL_SPLITS = ["all", "tune", "holdout"] as const;

export type EvalSplit = (typeof EVAL_SPLITS)[number];

function isCommand(name: string): name is CommandName {
  return (COMMANDS as readonly string[]).includes(name);
}

function isEvalSplit(name: string): name is EvalSplit {
  return (EVAL_SPLITS as readonly string[]).includes(name);
}

/** Commands that read their input from flags only: a word after them is a mistake. */
const TAKES_NO_ARGUMENTS: ReadonlySet<CommandName> = new Set([
  "ingest",
  "insights",
  "repl",
  "mcp",
  "llms-txt",
  "build-static",
  "serve",
  "start",
]);

/** Commands whose input is a docs folder: a bare folder name most likely meant `--docs`. */
const READS_DOCS: ReadonlySet<CommandName> = new Set([
  "ingest",
  "build-static",
  "repl",
  "serve",
  "start",
]);

/**
 * Throws a UsageError (or, for `--since`, the VALIDATION_ERROR its parser gives) when the command
 * line cannot be run; returns the command. `positionals` are the words after the command.
 */
export async function checkUsage(
  command: string,
  flags: Flags,
  positionals: string[],
): Promise<CommandName> {
  if (!isCommand(command)) {
    throw new UsageError(`Unknown command "${command}". Run "lectern --help".`);
  }
  const extra = positionals[0];
  if (TAKES_NO_ARGUMENTS.has(command) && extra !== undefined) {
    const hint = READS_DOCS.has(command) ? ` To read a docs folder: --docs ${extra}.` : "";
    throw new UsageError(`Unexpected argument "${extra}" after "lectern ${command}".${hint}`);
  }
  switch (command) {
    case "ask":
      if (!positionals.join(" ").trim()) {
        throw new UsageError('Missing the question: lectern ask "How do topics work?"');
      }
      positiveInt(flags["top-k"], "top-k", 1);
      break;
    case "eval":
      checkEvalUsage(flags, positionals);
      break;
    case "insights":
      if (flags.since !== undefined)
        (await import("../insights/report.ts")).parseDuration(flags.since);
      break;
    case "ingest":
      checkIngestUsage(flags);
      break;
    case "llms-txt":
    case "build-static":
      if (!flags.out) throw new UsageError("Missing --out <dir> (the site's build folder).");
      break;
    default:
      break;
  }
  return command;
}

/** `--docs` or a site (`--url`, `--sitemap`), and the crawl's options only with a site. */
function checkIngestUsage(flags: Flags): void {
  const site = flags.url ?? flags.sitemap;
  if (site === undefined) {
    const crawlOnly = (["include", "exclude", "max-pages"] as const).find(
      (flag) => flags[flag] !== undefined,
    );
    if (crawlOnly) throw new UsageError(`--${crawlOnly} applies to a site: add --url <url>.`);
    return;
  }
  if (flags.docs !== undefined) {
    throw new UsageError("Give either --docs <dir> or --url <url>, not both.");
  }
  for (const flag of ["url", "sitemap"] as const) {
    const value = flags[flag];
    if (value !== undefined) siteUrl(value, flag);
  }
  maxPages(flags["max-pages"]);
}

/** An http(s) URL given to `--url` or `--sitemap`. */
export function siteUrl(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${flag} must be an http(s) URL, got "${value}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--${flag} must be an http(s) URL, got "${value}".`);
  }
  return url;
}

/** Default of `--max-pages`. */
export const DEFAULT_MAX_PAGES = 5000;

/** `--max-pages`: a whole number of pages, 1 or more. */
export function maxPages(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PAGES;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(
      `--max-pages must be a whole number of pages (1 or more), got "${value}".`,
    );
  }
  return number;
}

function checkEvalUsage(flags: Flags, positionals: string[]): void {
  if (flags.compare !== undefined) {
    if (!flags.compare || positionals.length !== 1) {
      throw new UsageError("Usage: lectern eval --compare <before.json> <after.json>");
    }
    return;
  }
  if (!flags.questions) throw new UsageError("Missing --questions <file.jsonl>.");
  if (positionals[0] !== undefined) {
    throw new UsageError(`Unexpected argument "${positionals[0]}" after "lectern eval".`);
  }
  if (flags.save !== undefined && flags.tune) {
    throw new UsageError("--save keeps the answers of the book as it is: leave out --tune.");
  }
  positiveInt(flags.k, "k", 5);
  evalSplit(flags.split);
}

/** The `--split` of `lectern eval` (default all). */
export function evalSplit(value: string | undefined): EvalSplit {
  const split = value ?? "all";
  if (!isEvalSplit(split)) {
    throw new UsageError(`--split must be all, tune or holdout, got "${split}".`);
  }
  return split;
}
