import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bookSynopsis } from "@lectern/engine/engine/book-synopsis";
import { createError } from "@lectern/engine/errors";
import { STATIC_FORMAT, type StaticManifest } from "@lectern/engine/static/static-book";
import { basePath, pathWithin } from "@lectern/engine/util/url-path";
import type { Config } from "../../config/config.ts";
import { CORE_FILE, shardsWithCore, staticBookFiles } from "../../engine/static-files.ts";
import { staticPageHtml, widgetScriptPath } from "../../http/site.ts";
import type { Lectern } from "../../lectern.ts";
import { type BookFile, inStoreOrder } from "../../search/book-file.ts";
import { type Flags, UsageError } from "../flags.ts";
import { requireDataDir, requireIndex, withLectern } from "../open-book.ts";

/**
 * `lectern build-static --out <dir> [--docs <dir>] [--book-only] [--feedback-url <url>] [--json]`:
 * the ingested book (ingesting `--docs` first when given) written as files any static host
 * serves, for the engine to answer from in the reader's browser with no Lectern server:
 * `<out>/lectern/manifest.json`, the book and its BM25 index (named by the index version), the
 * engine's scripts under `<out>/lectern/engine/` and the widget as `<out>/lectern/lectern.js`; and,
 * unless `--book-only` (a site with pages of its own), each page as
 * `<out>/<its URL path>/index.html` with the widget.
 * `--feedback-url` is where the widget's thumbs post readers' ratings (without it, none are shown).
 */
export async function buildStaticCommand(config: Config, flags: Flags): Promise<number> {
  if (!flags.out) throw new UsageError("Missing --out <dir> (the site's build folder).");
  const feedbackUrl = flags["feedback-url"];
  if (feedbackUrl !== undefined && !/^(?:https?:\/\/|\/(?!\/))\S+$/i.test(feedbackUrl))
    throw new UsageError(
      `--feedback-url must be an http(s) URL or a path on the site (/…), got "${feedbackUrl}".`,
    );
  const out = path.resolve(flags.out, "lectern");
  const engineDir = builtEngineDir();
  const widgetScript = widgetScriptPath();
  if (!widgetScript)
    throw createError("ENGINE_NOT_BUILT", "The widget is not built. Run: npm run build");
  if (config.docsDir) {
    const code = await (await import("./ingest.ts")).ingestCommand(config, {
      ...flags,
      json: false,
    });
    if (code !== 0) return code;
  } else requireDataDir(config);
  const written = await withLectern(config, async (lectern) => {
    requireIndex(lectern);
    const files = await writeStaticBook(lectern, out, engineDir, feedbackUrl);
    await cp(widgetScript, path.join(out, "lectern.js"));
    files.push(await sizeOf(out, "lectern.js"));
    const pages = flags["book-only"] ? 0 : await writePages(lectern, path.dirname(out));
    return { files, pages };
  });
  const { files, pages } = written;
  if (flags.json) process.stdout.write(`${JSON.stringify({ out, files, pages }, null, 2)}\n`);
  else {
    const total = files.reduce((sum, file) => sum + file.gzipBytes, 0);
    const site = pages
      ? `Wrote ${pages} page${pages === 1 ? "" : "s"} with the widget to ${path.dirname(out)}.\n`
      : "";
    process.stdout.write(
      `${site}Wrote the static book to ${out} (${files.length} files, ${kilobytes(total)} gzipped):\n${listed(
        files,
      )
        .map(
          (file) =>
            `  ${file.path}  ${kilobytes(file.bytes)} (${kilobytes(file.gzipBytes)} gzipped)`,
        )
        .join(
          "\n",
        )}\nServe the site's folder with any static file server; the engine reads ${path.basename(out)}/manifest.json.\n`,
    );
  }
  return 0;
}

interface WrittenFile {
  /** Relative to the `lectern` folder, `/`-separated. */
  path: string;
  bytes: number;
  gzipBytes: number;
}

/** The engine's browser build (`npm run build`: scripts/build-engine.mjs), next to this module's build. */
function builtEngineDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.resolve(here, "..", "..", "static-engine"), // dist/cli/commands → dist/static-engine
    path.resolve(here, "..", "..", "..", "dist", "static-engine"), // src/cli/commands → dist/static-engine
  ];
  const found = candidates.find((dir) => existsSync(path.join(dir, "lectern-engine.js")));
  if (!found)
    throw createError(
      "ENGINE_NOT_BUILT",
      `The engine's browser build is missing (looked in ${candidates.join(" and ")}). Run: npm run build`,
    );
  return found;
}

async function writeStaticBook(
  lectern: Lectern,
  out: string,
  engineDir: string,
  feedbackUrl: string | undefined,
): Promise<WrittenFile[]> {
  const index = lectern.served.index;
  if (!index)
    throw createError(
      "STATIC_NEEDS_LEXICAL_INDEX",
      "A static build needs the book's BM25 index in process: LEXICAL_BACKEND=qdrant keeps it in Qdrant.",
    );
  const indexVersion = lectern.indexVersion();
  const { config } = lectern;
  await mkdir(out, { recursive: true });
  await removeEarlierBuilds(out, indexVersion);
  const folder = `book-${indexVersion}`;
  const book: BookFile = {
    indexVersion,
    pages: await lectern.store.pages(),
    chunks: inStoreOrder(index.allChunks()),
    versions: lectern.served.versions,
    locales: lectern.served.locales,
  };
  const synopsis = bookSynopsis(book.pages, book.chunks, book.versions ?? []);
  const bookFiles = staticBookFiles(book, index, synopsis);
  await rm(path.join(out, folder), { recursive: true, force: true });
  await mkdir(path.join(out, folder), { recursive: true });
  for (const [name, text] of bookFiles) await writeFile(path.join(out, folder, name), text);
  const withCore = shardsWithCore(bookFiles);
  const manifest: StaticManifest = {
    format: STATIC_FORMAT,
    indexVersion,
    title: (await lectern.title()) ?? "The book",
    core: `${folder}/${CORE_FILE}`,
    ...(withCore.length > 0 ? { withCore } : {}),
    settings: {
      topK: config.search.topK,
      maxChunksPerPage: config.search.maxChunksPerPage,
      routeBasePath: config.routeBasePath,
      historyWindow: Math.min(
        config.history.window,
        Math.floor(config.history.maxContextMessages / 2),
      ),
      ...(Object.keys(config.synonyms).length > 0 ? { synonyms: config.synonyms } : {}),
      ...(feedbackUrl ? { feedbackUrl } : {}),
    },
  };
  await writeFile(path.join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(path.join(out, "engine"), { recursive: true, force: true });
  await cp(engineDir, path.join(out, "engine"), { recursive: true });
  const engineFiles = (await readdir(engineDir)).sort().map((name) => `engine/${name}`);
  return Promise.all(
    [
      "manifest.json",
      ...[...bookFiles.keys()].map((name) => `${folder}/${name}`),
      ...engineFiles,
    ].map((name) => sizeOf(out, name)),
  );
}

/**
 * Each page rendered as the demo site renders it, at `<site>/<its URL path>/index.html` (the path
 * under the base URL's: a site served at `/handbook/` holds `/handbook/guide/a` at
 * `<site>/guide/a/`); the book's opening page (or its first) also at `<site>/index.html`. Returns
 * how many pages were written.
 */
async function writePages(lectern: Lectern, site: string): Promise<number> {
  const list = await lectern.store.pages();
  const title = (await lectern.title()) ?? "The book";
  const base = basePath(lectern.config.baseUrl);
  const home = list.find((page) => page.filePath === "index.md") ?? list[0];
  for (const page of list) {
    const html = staticPageHtml(
      page,
      (await lectern.store.pageHtml(page.filePath)) ?? "",
      list,
      title,
      base,
    );
    const targets = [pageFile(site, page.url, base)];
    if (page === home) targets.push(path.join(site, "index.html"));
    for (const file of targets) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, html);
    }
  }
  return list.length;
}

/** Where a page's HTML goes: its URL's path as a folder, never outside the site's folder. */
function pageFile(site: string, url: string, base: string): string {
  const file = path.resolve(site, pathWithin(url, base).replace(/\/+$/, ""), "index.html");
  if (!file.startsWith(`${site}${path.sep}`))
    throw createError("OUTPUT_PATH_INVALID", `The page URL ${url} maps outside ${site}.`);
  return file;
}

/**
 * A rebuild leaves one book: the files of an earlier index version go (a folder of shards, or the
 * one book and one index file that builds of format 1 wrote).
 */
async function removeEarlierBuilds(out: string, indexVersion: number): Promise<void> {
  for (const name of await readdir(out))
    if (/^(?:book|index)-\d+(?:\.json)?$/.test(name) && name !== `book-${indexVersion}`)
      await rm(path.join(out, name), { recursive: true, force: true });
}

async function sizeOf(out: string, name: string): Promise<WrittenFile> {
  const bytes = await readFile(path.join(out, name));
  return { path: name, bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
}

/** The files as a person reads them: a book's shards of each kind on one line, with their total. */
function listed(files: WrittenFile[]): WrittenFile[] {
  const lines: WrittenFile[] = [];
  const kinds = new Map<string, WrittenFile>();
  for (const file of files) {
    const shard = /^(.*\/(?:pages|terms))-\d+\.json$/.exec(file.path);
    if (!shard) {
      lines.push(file);
      continue;
    }
    const name = `${shard[1]}-*.json`;
    let kind = kinds.get(name);
    if (!kind) {
      kind = { path: name, bytes: 0, gzipBytes: 0 };
      kinds.set(name, kind);
      lines.push(kind);
    }
    kind.bytes += file.bytes;
    kind.gzipBytes += file.gzipBytes;
  }
  for (const [name, kind] of kinds)
    kind.path = `${name} (${files.filter((file) => file.path.startsWith(name.slice(0, -6))).length} files)`;
  return lines;
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
