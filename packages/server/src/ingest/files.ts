import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { createError } from "../errors.ts";

/** What the docs folder holds: Markdown/MDX files and the category labels of its folders. */
export interface DocsTree {
  root: string;
  /** POSIX paths relative to `root`, sorted. */
  markdownFiles: string[];
  /** Folder (POSIX, relative; "" for the root) → category label from `_category_.json|yml`. */
  categoryLabels: Map<string, string>;
  /** Category files that could not be read, as one-line messages. */
  problems: string[];
}

const MARKDOWN = /\.mdx?$/i;
const IGNORED_DIRECTORIES = new Set(["node_modules", ".git", ".docusaurus", "build"]);

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
  if (tree.markdownFiles.length === 0) {
    throw createError("DOCS_DIR_EMPTY", `No .md or .mdx files in ${root}`);
  }
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
    } else if (MARKDOWN.test(entry.name)) {
      // Symlinks and odd entries are listed too: reading them reports any problem by path.
      tree.markdownFiles.push(childRelative);
    } else if (/^_category_\.(json|ya?ml)$/.test(entry.name)) {
      try {
        const text = await readFile(childAbsolute, "utf8");
        const data = (entry.name.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as unknown;
        const label = (data as { label?: unknown } | null)?.label;
        if (typeof label === "string" && label.trim())
          tree.categoryLabels.set(relative, label.trim());
      } catch (error) {
        tree.problems.push(
          `${childRelative}: cannot read category file: ${(error as Error).message.split("\n")[0]}`,
        );
      }
    }
  }
}
