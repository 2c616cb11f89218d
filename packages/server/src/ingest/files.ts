import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createError } from "../errors.ts";
import {
  CATEGORY_FILE,
  categoryLabelOf,
  categoryProblem,
  type DocListing,
  type DocSource,
  emptySourceError,
  IGNORED_DIRECTORIES,
  MARKDOWN_FILE,
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

  const tree: DocsTree = {
    root: absoluteRoot,
    markdownFiles: [],
    categoryLabels: new Map(),
    problems: [],
  };
  await walk(absoluteRoot, "", tree);
  tree.markdownFiles.sort();
  if (tree.markdownFiles.length === 0) throw emptySourceError(root);
  return tree;
}

async function walk(absolute: string, relative: string, tree: DocsTree): Promise<void> {
  const entries = await readdir(absolute, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const childRelative = relative ? `${relative}/${entry.name}` : entry.name;
    const childAbsolute = path.join(absolute, entry.name);
    if (entry.isDirectory()) {
      if (!IGNORED_DIRECTORIES.has(entry.name)) await walk(childAbsolute, childRelative, tree);
    } else if (MARKDOWN_FILE.test(entry.name)) {
      // Symlinks and odd entries are listed too: reading them reports any problem by path.
      tree.markdownFiles.push(childRelative);
    } else if (CATEGORY_FILE.test(entry.name)) {
      try {
        const label = categoryLabelOf(entry.name, await readFile(childAbsolute, "utf8"));
        if (label) tree.categoryLabels.set(relative, label);
      } catch (error) {
        tree.problems.push(categoryProblem(childRelative, error));
      }
    }
  }
}
