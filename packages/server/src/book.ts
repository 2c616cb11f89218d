import { readFile } from "node:fs/promises";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import { urlPath } from "@lectern/engine/util/url-path";
import type { Config } from "./config/config.ts";
import type {
  BookLocale,
  BookVersion,
  DocumentStore,
  PageSummary,
} from "./store/document-store.ts";

/**
 * Which book an index holds. A collection records the docs folder it was ingested from
 * (relative to the data directory, so a project moved with its index keeps it) and the book's
 * title; ingesting another folder into it stops instead of silently replacing the book.
 */

/** The docs folder as recorded for the book: relative to the data directory, `/`-separated. */
export function recordedDocsPath(config: Config, docsDir: string): string {
  const relative = path.relative(path.resolve(config.dataDir), path.resolve(docsDir));
  return (relative || ".").split(path.sep).join("/");
}

/** A book read from a site (`lectern ingest --url`) is recorded by its URL, not a folder. */
export function isSiteUrl(docsPath: string): boolean {
  return /^https?:\/\//i.test(docsPath);
}

/**
 * Throws BOOK_MISMATCH when the collection already holds a book from another docs folder, or
 * another site (`docs` is a folder or a site's URL).
 */
export async function checkSameBook(
  store: DocumentStore,
  config: Config,
  docs: string,
): Promise<void> {
  const book = await store.book();
  const docsPath = isSiteUrl(docs) ? docs : recordedDocsPath(config, docs);
  if (!book || book.docsPath === docsPath) return;
  if ((await store.counts()).documents === 0) return;
  const where = config.databaseUrl
    ? `Collection "${config.collection}" of the database`
    : `${path.resolve(config.dataDir)}${config.collection === "default" ? "" : ` (collection "${config.collection}")`}`;
  const from = isSiteUrl(book.docsPath)
    ? book.docsPath
    : path.resolve(config.dataDir, book.docsPath);
  throw createError(
    "BOOK_MISMATCH",
    `${where} holds the book ingested from ${from}${book.title ? ` ("${book.title}")` : ""}, not ${isSiteUrl(docs) ? docs : path.resolve(docs)}. Give this book its own --data-dir (or --collection), or pass --replace to replace that book.`,
    { details: { dataDir: path.resolve(config.dataDir), ingestedFrom: from } },
  );
}

/** Records the book after a successful ingest: its docs folder (or site) and its title. */
export async function recordBook(
  store: DocumentStore,
  config: Config,
  docs: string,
  { versions = [], locales = [] }: { versions?: BookVersion[]; locales?: BookLocale[] } = {},
): Promise<void> {
  const rootTitle = rootPageTitle(await store.pages(), config.routeBasePath);
  await store.saveBook({
    docsPath: isSiteUrl(docs) ? docs : recordedDocsPath(config, docs),
    ...(versions.length > 0 ? { versions } : {}),
    ...(locales.length > 0 ? { locales } : {}),
    title:
      config.title ?? rootTitle ?? (isSiteUrl(docs) ? new URL(docs).host : await folderTitle(docs)),
  });
}

/**
 * The book's title: the configured one (LECTERN_TITLE, `title`, `--title`; the Docusaurus plugin
 * passes the site's title), else the one recorded at ingest, else the root page's title, else
 * that of its docs folder (`folderTitle`). Undefined only for a book not ingested from a folder.
 */
export async function bookTitle(store: DocumentStore, config: Config): Promise<string | undefined> {
  if (config.title) return config.title;
  const book = await store.book();
  if (book?.title) return book.title;
  const rootTitle = rootPageTitle(await store.pages(), config.routeBasePath);
  // Indexes recorded before folder titles existed have a docs folder and no title.
  if (!book || isSiteUrl(book.docsPath)) return rootTitle;
  return rootTitle ?? folderTitle(path.resolve(config.dataDir, book.docsPath));
}

/** Folder names too common to name a book alone: the parent folder's name is used with them. */
export const GENERIC_FOLDER_NAMES: ReadonlySet<string> = new Set([
  "doc",
  "docs",
  "documentation",
  "content",
  "contents",
  "src",
  "pages",
  "book",
  "books",
  "markdown",
  "md",
  "website",
  "site",
]);

const DOCUSAURUS_CONFIGS = [
  "docusaurus.config.ts",
  "docusaurus.config.mts",
  "docusaurus.config.js",
  "docusaurus.config.mjs",
  "docusaurus.config.cjs",
];

/**
 * A title for a book whose pages name none: the title of the Docusaurus site the docs folder
 * belongs to (its `docusaurus.config.*` in the folder or the one above), else the folder's name,
 * its parent's for a generic one (`handbook/docs` → "handbook").
 */
export async function folderTitle(docsDir: string): Promise<string | undefined> {
  const folder = path.resolve(docsDir);
  for (const siteDir of [folder, path.dirname(folder)]) {
    const title = await docusaurusSiteTitle(siteDir);
    if (title) return title;
  }
  const parts = folder.split(path.sep).filter(Boolean);
  const last = parts.at(-1);
  const parent = parts.at(-2);
  return last && GENERIC_FOLDER_NAMES.has(last.toLowerCase()) && parent ? parent : last;
}

/**
 * The site title in a Docusaurus config, when it is written as a string literal: the config is
 * code, so it is read, not run. The first `title:` is the site's in Docusaurus's templates (the
 * navbar's comes later, under themeConfig).
 */
async function docusaurusSiteTitle(siteDir: string): Promise<string | undefined> {
  for (const name of DOCUSAURUS_CONFIGS) {
    const source = await readFile(path.join(siteDir, name), "utf8").catch(() => undefined);
    if (source === undefined) continue;
    const match = /(?:^|[{,])\s*title\s*:\s*(["'`])([^"'`\n]*?)\1/m.exec(source);
    return match?.[2]?.trim() || undefined;
  }
  return undefined;
}

/**
 * The title of the page at the root of the docs: index.md or README.md at the top of the folder,
 * else the page served at the docs root (`/docs/`, after the site's baseUrl).
 */
export function rootPageTitle(pages: PageSummary[], routeBasePath: string): string | undefined {
  const root = `/${routeBasePath.replace(/^\/+|\/+$/g, "")}`.replace(/\/$/, "");
  const trimmed = (url: string) => urlPath(url).replace(/\/+$/, "");
  const page =
    pages.find((candidate) => /^(index|readme)\.mdx?$/i.test(candidate.filePath)) ??
    pages.find((candidate) =>
      root === "" ? trimmed(candidate.url) === "" : trimmed(candidate.url).endsWith(root),
    );
  return page?.title;
}
