import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import {
  type DocListing,
  type DocSource,
  isSkippedFolder,
  type ListingProblem,
  listingOf,
  type SourceFile,
} from "./doc-source.ts";

/** What the docs folder holds: Markdown/MDX files and the category labels of its folders. */
export interface DocsTree extends DocListing {
  root: string;
}

export interface FileSystemSourceOptions {
  /**
   * Read files that resolve (through symlinks) outside the docs folder. Off by default: a link
   * such as `secrets.md -> /etc/passwd` would otherwise publish that file as a page.
   */
  followLinksOutsideDocs?: boolean;
}

/** A docs folder on disk. */
export class FileSystemDocSource implements DocSource {
  readonly location: string;
  private readonly root: string;
  private realRoot: Promise<string> | undefined;

  constructor(
    directory: string,
    private readonly options: FileSystemSourceOptions = {},
  ) {
    this.location = directory;
    this.root = path.resolve(directory);
  }

  list(): Promise<DocListing> {
    return scanDocs(this.location);
  }

  async read(filePath: string): Promise<Uint8Array> {
    const absolute = path.join(this.root, filePath);
    if (!this.options.followLinksOutsideDocs) {
      this.realRoot ??= realpath(this.root);
      refuseOutside(filePath, await realpath(absolute), await this.realRoot);
    }
    return readFile(absolute);
  }
}

/** FILE_OUTSIDE_DOCS unless `real` (a resolved path) lies inside `realRoot`. */
function refuseOutside(filePath: string, real: string, realRoot: string): void {
  const inside = realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep;
  if (real.startsWith(inside)) return;
  throw createError(
    "FILE_OUTSIDE_DOCS",
    `${filePath}: links to a file outside the docs folder (${real}); not ingested. Set ingest.followLinksOutsideDocs (LECTERN_FOLLOW_LINKS_OUTSIDE_DOCS=true) to allow it.`,
  );
}

export async function scanDocs(root: string): Promise<DocsTree> {
  const absoluteRoot = path.resolve(root);
  const info = await stat(absoluteRoot).catch(() => undefined);
  if (!info) throw createError("DOCS_DIR_NOT_FOUND", `Docs directory not found: ${root}`);
  if (!info.isDirectory()) throw createError("DOCS_DIR_NOT_FOUND", `Not a directory: ${root}`);

  const files: SourceFile[] = [];
  const problems: ListingProblem[] = [];
  await walk(absoluteRoot, "", files, problems);
  const listing = await listingOf(files, root);
  return { root: absoluteRoot, ...listing, problems: [...problems, ...listing.problems] };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The name as text, or undefined when its bytes are not UTF-8 (no path string can reach it). */
function utf8Name(name: Buffer): string | undefined {
  try {
    return UTF8.decode(name);
  } catch {
    return undefined;
  }
}

/**
 * Every file below `absolute`, in directory order, without entering skipped folders. Names are
 * read as bytes: a name that is not UTF-8 would come back as text with U+FFFD in it, a path that
 * does not exist, so it is reported for what it is instead.
 */
async function walk(
  absolute: string,
  relative: string,
  files: SourceFile[],
  problems: ListingProblem[],
): Promise<void> {
  for (const entry of await readdir(absolute, { withFileTypes: true, encoding: "buffer" })) {
    const name = utf8Name(entry.name);
    if (name === undefined) {
      const shown = entry.name.toString("utf8");
      const shownPath = relative ? `${relative}/${shown}` : shown;
      if (entry.isDirectory() || /\.mdx?$/i.test(shown)) {
        problems.push({
          filePath: shownPath,
          code: "FILE_UNREADABLE",
          message: `${shownPath}: the file name is not valid UTF-8; rename it to be ingested`,
        });
      }
      continue;
    }
    const childAbsolute = path.join(absolute, name);
    const childRelative = relative ? `${relative}/${name}` : name;
    if (entry.isDirectory()) {
      if (!isSkippedFolder(name)) await walk(childAbsolute, childRelative, files, problems);
    } else {
      // Symlinks and odd entries are listed too: reading them reports any problem by path.
      files.push({ path: childRelative, readText: () => readFile(childAbsolute, "utf8") });
    }
  }
}
