import { parse as parseYaml } from "yaml";
import { createError } from "../errors.ts";

/**
 * Where a book's files come from: a folder today (`FileSystemDocSource`), an in-memory set of files
 * (`MemoryDocSource`), later a crawl or a git tree. Ingest lists the source once per run and reads
 * the pages and partials it needs; hashing, parsing and chunking do not depend on the source.
 */
export interface DocSource {
  /** Where the files come from, for messages (a folder, a URL). */
  readonly location: string;
  /**
   * The Markdown/MDX files and the folders' category labels. Fails with DOCS_DIR_NOT_FOUND when
   * the source does not exist and DOCS_DIR_EMPTY when it holds no Markdown or MDX file.
   */
  list(): Promise<DocListing>;
  /** The bytes of one listed file (or of a partial a page imports). */
  read(filePath: string): Promise<Uint8Array>;
}

export interface DocListing {
  /** POSIX paths relative to the source's root, sorted. */
  markdownFiles: string[];
  /** Folder (POSIX, relative; "" for the root) → category label from `_category_.json|yml`. */
  categoryLabels: Map<string, string>;
  /** Category files that could not be read, as one-line messages. */
  problems: string[];
}

/** What every source lists: Markdown and MDX files, outside hidden and generated folders. */
export const MARKDOWN_FILE = /\.mdx?$/i;
export const CATEGORY_FILE = /^_category_\.(json|ya?ml)$/;
export const IGNORED_DIRECTORIES = new Set(["node_modules", ".git", ".docusaurus", "build"]);

/** The label a `_category_.json|yml` file gives its folder, if any; throws when it does not parse. */
export function categoryLabelOf(fileName: string, text: string): string | undefined {
  const data = (fileName.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as unknown;
  const label = (data as { label?: unknown } | null)?.label;
  return typeof label === "string" && label.trim() ? label.trim() : undefined;
}

/** The one-line problem reported for a category file that cannot be read. */
export function categoryProblem(filePath: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${filePath}: cannot read category file: ${message.split("\n")[0]}`;
}

export function emptySourceError(location: string) {
  return createError("DOCS_DIR_EMPTY", `No .md or .mdx files in ${location}`);
}
