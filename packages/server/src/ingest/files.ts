import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createError } from "../errors.ts";
import {
  type DocListing,
  type DocSource,
  isSkippedFolder,
  listingOf,
  type SourceFile,
} from "./doc-source.ts";

/** What the docs folder holds: Markdown/MDX files and the category labels of its folders. */
export interface DocsTree extends DocListing {
  root: string;
}

/** A docs folder on disk. */
export class FileSystemDocSource implements DocSource {
  readonly location: string;
  private readonly root: string;

  constructor(directory: string) {
    this.location = directory;
    this.root = path.resolve(directory);
  }

  list(): Promise<DocListing> {
    return scanDocs(this.location);
  }

  read(filePath: string): Promise<Uint8Array> {
    return readFile(path.join(this.root, filePath));
  }
}

export async function scanDocs(root: string): Promise<DocsTree> {
  const absoluteRoot = path.resolve(root);
  const info = await stat(absoluteRoot).catch(() => undefined);
  if (!info) throw createError("DOCS_DIR_NOT_FOUND", `Docs directory not found: ${root}`);
  if (!info.isDirectory()) throw createError("DOCS_DIR_NOT_FOUND", `Not a directory: ${root}`);

  const files: SourceFile[] = [];
  await walk(absoluteRoot, "", files);
  return { root: absoluteRoot, ...(await listingOf(files, root)) };
}

/** Every file below `absolute`, in directory order, without entering skipped folders. */
async function walk(absolute: string, relative: string, files: SourceFile[]): Promise<void> {
  for (const entry of await readdir(absolute, { withFileTypes: true })) {
    const childAbsolute = path.join(absolute, entry.name);
    const childRelative = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!isSkippedFolder(entry.name)) await walk(childAbsolute, childRelative, files);
    } else {
      // Symlinks and odd entries are listed too: reading them reports any problem by path.
      files.push({ path: childRelative, readText: () => readFile(childAbsolute, "utf8") });
    }
  }
}
