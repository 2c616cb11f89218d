import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { GENERIC_FOLDER_NAMES } from "../book.ts";
import { UsageError } from "./flags.ts";

/**
 * Where a book's index lives when no data directory is configured: each book in a directory of
 * its own under ./.lectern, named after its docs folder, so that ingesting a second book never
 * replaces the first.
 */

export const DATA_ROOT = ".lectern";

/** `examples/robotics-primer/docs` → `robotics-primer-docs`; `handbook` → `handbook`. */
export function bookName(docsDir: string): string {
  const parts = path.resolve(docsDir).split(path.sep).filter(Boolean);
  const last = parts.at(-1) ?? "book";
  const parent = parts.at(-2);
  const name = GENERIC_FOLDER_NAMES.has(last.toLowerCase()) && parent ? `${parent}-${last}` : last;
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return slug || "book";
}

/** The data directory of the book in `docsDir`: `.lectern/<book name>`. */
export function bookDataDir(docsDir: string): string {
  return path.join(DATA_ROOT, bookName(docsDir));
}

/**
 * The data directory of a site ingested by its URL: `.lectern/<host and path>`
 * ("https://docs.example.com/guide/" → `.lectern/docs-example-com-guide`).
 */
export function siteDataDir(siteUrl: string): string {
  const url = new URL(siteUrl);
  const name = `${url.host}${url.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return path.join(DATA_ROOT, name || "site");
}

/** A data directory holds an index once it has a database or a BM25 snapshot. */
function holdsIndex(directory: string): boolean {
  return existsSync(path.join(directory, "db")) || existsSync(path.join(directory, "index"));
}

/**
 * For commands that read an index without naming the docs (ask, eval, serve): the only book
 * under ./.lectern, or ./.lectern itself when it holds an index (as data directories of Lectern
 * 0.1 did). Several books: the user chooses with --data-dir or --docs.
 */
export function findBookDataDir(cwd = process.cwd()): string {
  const root = path.join(cwd, DATA_ROOT);
  if (holdsIndex(root)) return DATA_ROOT;
  const books = existsSync(root)
    ? readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && holdsIndex(path.join(root, entry.name)))
        .map((entry) => entry.name)
        .sort()
    : [];
  if (books.length > 1) {
    throw new UsageError(
      `${DATA_ROOT} holds several books (${books.join(", ")}); choose one with --data-dir ${path.join(DATA_ROOT, books[0] ?? "")} or --docs <dir>.`,
    );
  }
  return books[0] === undefined ? DATA_ROOT : path.join(DATA_ROOT, books[0]);
}
