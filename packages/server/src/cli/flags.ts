import { parseArgs } from "node:util";

/** A mistake in how the command was called: reported as `error: …` with exit code 2. */
export class UsageError extends Error {}

const OPTIONS = {
  docs: { type: "string" },
  url: { type: "string" },
  sitemap: { type: "string" },
  include: { type: "string", multiple: true },
  exclude: { type: "string", multiple: true },
  "max-pages": { type: "string" },
  site: { type: "string" },
  "docs-path": { type: "string" },
  "doc-version": { type: "string" },
  locales: { type: "string" },
  "default-locale": { type: "string" },
  locale: { type: "string" },
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
  out: { type: "string" },
  "book-only": { type: "boolean" },
  "feedback-url": { type: "string" },
  save: { type: "string" },
  compare: { type: "string" },
  split: { type: "string" },
  tune: { type: "boolean" },
  since: { type: "string" },
  reembed: { type: "boolean" },
  replace: { type: "boolean" },
  title: { type: "string" },
  strict: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  port: { type: "string" },
  host: { type: "string" },
} as const;

export type Flags = ReturnType<typeof parseFlags>["values"];

export function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 20) {
    throw new UsageError(`--${flag} must be an integer from 1 to 20, got "${value}".`);
  }
  return number;
}

export function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a port number, got "${value}".`);
  }
  return port;
}
