import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import { basePath, pathWithin } from "@lectern/engine/util/url-path";
import { type LlmsBook, llmsFullTxt, llmsTxt, markdownPath } from "../../answer/llms-txt.ts";
import type { Config } from "../../config/config.ts";
import type { Lectern } from "../../lectern.ts";
import { type Flags, UsageError } from "../flags.ts";
import { requireDataDir, requireIndex, withLectern } from "../open-book.ts";

/**
 * `lectern llms-txt --out <dir> [--base-url <url>] [--json]`: writes the ingested book for language
 * models into a site's build output: `llms.txt`, `llms-full.txt` and each page's Markdown at its
 * URL with `.md` (the path under the base URL's path: `https://x.example/handbook/guide/intro`
 * with base URL `https://x.example/handbook/` → `<out>/guide/intro.md`). `--out` was checked by
 * `checkUsage`; the check here narrows its type.
 */
export async function llmsTxtCommand(config: Config, flags: Flags): Promise<number> {
  if (!flags.out) throw new UsageError("Missing --out <dir> (the site's build folder).");
  const out = path.resolve(flags.out);
  requireDataDir(config);
  const written = await withLectern(config, async (lectern) => {
    requireIndex(lectern);
    const book = await llmsBookOf(lectern);
    return writeLlmsFiles(book, out, basePath(config.baseUrl));
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ out, files: written }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `Wrote llms.txt, llms-full.txt and ${written.length - 2} page${written.length === 3 ? "" : "s"} as Markdown to ${out}\n`,
    );
  }
  return 0;
}

export async function llmsBookOf(lectern: Lectern): Promise<LlmsBook> {
  return {
    title: (await lectern.title()) ?? "The book",
    description: lectern.served.synopsis?.about,
    pages: await lectern.store.pages(),
    markdown: await lectern.store.allPageMarkdown(),
  };
}

/** Writes the three kinds of file; returns their paths relative to `out`, llms.txt first. */
async function writeLlmsFiles(book: LlmsBook, out: string, base: string): Promise<string[]> {
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "llms.txt"), llmsTxt(book));
  await writeFile(path.join(out, "llms-full.txt"), llmsFullTxt(book));
  const written = ["llms.txt", "llms-full.txt"];
  for (const page of book.pages) {
    const markdown = book.markdown.get(page.filePath);
    if (markdown === undefined) {
      throw createError(
        "INDEX_OUTDATED",
        `The page ${page.filePath} was ingested by an older Lectern and has no Markdown yet. Run lectern ingest again.`,
      );
    }
    const file = path.resolve(out, pathWithin(markdownPath(page.url), base));
    // Page URLs are normalised paths, but a file outside the build folder is never written.
    if (!file.startsWith(`${out}${path.sep}`)) {
      throw createError("OUTPUT_PATH_INVALID", `The page URL ${page.url} maps outside ${out}.`);
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, markdown);
    written.push(path.relative(out, file).split(path.sep).join("/"));
  }
  return written;
}
