import { createError } from "@lectern/engine/errors";
import { parse as parseYaml } from "yaml";

/**
 * Where a book's files come from: a folder today (`FileSystemDocSource`), an in-memory set of files
 * (`MemoryDocSource`), a crawled site (`CrawlDocSource`), later a git tree. Ingest lists the source once per run and reads
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
  /** Files that could not be listed or category files that could not be read. */
  problems: ListingProblem[];
  /**
   * Page URLs the source knows (a crawl: the URL each page was fetched from), by file path. A
   * page listed here gets this URL instead of the route computed from its path and front matter,
   * and is never taken for a partial.
   */
  pageUrls?: ReadonlyMap<string, string>;
}

/** A file reported by the listing itself, with a one-line message naming it. */
export interface ListingProblem {
  filePath: string;
  code: "INVALID_CATEGORY" | "FILE_UNREADABLE";
  message: string;
}

const MARKDOWN_FILE = /\.mdx?$/i;
const CATEGORY_FILE = /^_category_\.(json|ya?ml)$/;
const IGNORED_DIRECTORIES = new Set(["node_modules", ".git", ".docusaurus", "build"]);

/*
 * Every source lists by the same rules, so the same files give the same pages: Markdown and MDX
 * files, outside hidden and generated folders, plus the labels of `_category_.json|yml` files.
 */

/** A file a source holds, by POSIX path relative to its root. */
export interface SourceFile {
  path: string;
  readText(): Promise<string>;
}

/** A folder no source lists: hidden, dependencies, build output. */
export function isSkippedFolder(name: string): boolean {
  return name.startsWith(".") || IGNORED_DIRECTORIES.has(name);
}

/**
 * The listing of a source's files: its pages (sorted) and its folders' category labels, each
 * category file read only then. Fails with DOCS_DIR_EMPTY, naming `location`, when there is no page.
 */
export async function listingOf(
  files: Iterable<SourceFile>,
  location: string,
): Promise<DocListing> {
  const listing: DocListing = { markdownFiles: [], categoryLabels: new Map(), problems: [] };
  for (const file of files) {
    const folders = file.path.split("/");
    const name = folders.pop() ?? "";
    if (name.startsWith(".") || folders.some(isSkippedFolder)) continue;
    if (MARKDOWN_FILE.test(name)) {
      listing.markdownFiles.push(file.path);
    } else if (CATEGORY_FILE.test(name)) {
      try {
        const label = categoryLabel(name, await file.readText());
        if (label) listing.categoryLabels.set(folders.join("/"), label);
      } catch (error) {
        listing.problems.push({
          filePath: file.path,
          code: "INVALID_CATEGORY",
          message: `${file.path}: cannot read category file: ${(error as Error).message.split("\n")[0]}`,
        });
      }
    }
  }
  listing.markdownFiles.sort();
  if (listing.markdownFiles.length === 0) {
    throw createError("DOCS_DIR_EMPTY", `No .md or .mdx files in ${location}`);
  }
  return listing;
}

function categoryLabel(fileName: string, text: string): string | undefined {
  const data = (fileName.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as unknown;
  const label = (data as { label?: unknown } | null)?.label;
  return typeof label === "string" && label.trim() ? label.trim() : undefined;
}
