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

const MARKDOWN_FILE = /\.mdx?$/i;
const CATEGORY_FILE = /^_category_\.(json|ya?ml)$/;
const IGNORED_DIRECTORIES = new Set(["node_modules", ".git", ".docusaurus", "build"]);

/*
 * Every source lists by the same rules, so the same files give the same pages: Markdown and MDX
 * files, outside hidden and generated folders, plus the labels of `_category_.json|yml` files.
 */

export function newListing(): DocListing {
  return { markdownFiles: [], categoryLabels: new Map(), problems: [] };
}

/** A folder no source lists: hidden, dependencies, build output. */
export function isSkippedFolder(name: string): boolean {
  return name.startsWith(".") || IGNORED_DIRECTORIES.has(name);
}

/**
 * Adds one file of `folder` ("" for the root) to a listing: a page, or the folder's category
 * label (read through `readText` only then). Hidden files and other files are left out.
 */
export async function addToListing(
  listing: DocListing,
  folder: string,
  name: string,
  readText: () => Promise<string>,
): Promise<void> {
  if (name.startsWith(".")) return;
  const filePath = folder ? `${folder}/${name}` : name;
  if (MARKDOWN_FILE.test(name)) {
    listing.markdownFiles.push(filePath);
  } else if (CATEGORY_FILE.test(name)) {
    try {
      const text = await readText();
      const data = (name.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as unknown;
      const label = (data as { label?: unknown } | null)?.label;
      if (typeof label === "string" && label.trim())
        listing.categoryLabels.set(folder, label.trim());
    } catch (error) {
      listing.problems.push(
        `${filePath}: cannot read category file: ${(error as Error).message.split("\n")[0]}`,
      );
    }
  }
}

/** Sorts the pages; a listing without any fails with DOCS_DIR_EMPTY. */
export function completeListing<Listing extends DocListing>(
  listing: Listing,
  location: string,
): Listing {
  listing.markdownFiles.sort();
  if (listing.markdownFiles.length === 0) {
    throw createError("DOCS_DIR_EMPTY", `No .md or .mdx files in ${location}`);
  }
  return listing;
}
