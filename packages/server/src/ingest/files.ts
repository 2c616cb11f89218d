import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createError } from "../errors.ts";
import {
  addToListing,
  completeListing,
  type DocListing,
  type DocSource,
  isSkippedFolder,
  newListing,
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

  const tree: DocsTree = { root: absoluteRoot, ...newListing() };
  await walk(absoluteRoot, "", tree);
  return completeListing(tree, root);
}

async function walk(absolute: string, relative: string, tree: DocsTree): Promise<void> {
  const entries = await readdir(absolute, { withFileTypes: true });
  for (const entry of entries) {
    const childAbsolute = path.join(absolute, entry.name);
    if (entry.isDirectory()) {
      if (isSkippedFolder(entry.name)) continue;
      await walk(childAbsolute, relative ? `${relative}/${entry.name}` : entry.name, tree);
    } else {
      // Symlinks and odd entries are listed too: reading them reports any problem by path.
      await addToListing(tree, relative, entry.name, () => readFile(childAbsolute, "utf8"));
    }
  }
}
