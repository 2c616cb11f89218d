import { isLecternError } from "@lectern/engine/errors";
import { ANALYZER_VERSION } from "@lectern/engine/search/analyzer";
import type { Config } from "../config/config.ts";
import type { ChunkRecord, DocumentStore } from "../store/document-store.ts";
import { collectGarbage } from "../util/collect-garbage.ts";
import type { ChunkingOptions } from "./chunk.ts";
import type { DocSource } from "./doc-source.ts";
import { FileSystemDocSource } from "./files.ts";
import { MarkdownParseError, type ParseWarning } from "./markdown.ts";
import { buildPage, sha256 } from "./page.ts";
import { isPartialPath, RouteError, type RouteOptions } from "./routes.ts";
import { SourceCache } from "./source-cache.ts";

export { authorSearchText } from "./page.ts";

/** Pages built between two full garbage collections (see collectGarbage). */
const GC_EVERY_PAGES = 100;

/** Bump when ingestion output changes for the same input: every page is then re-ingested. */
export const INGEST_VERSION = 16;

export interface IngestOptions {
  /** Where the book's files come from (a folder for `lectern ingest --docs`). */
  source: DocSource;
  route: RouteOptions;
  chunking: ChunkingOptions;
  collection: string;
  /** Larger pages and partials are reported as PAGE_TOO_LARGE and skipped. */
  maxPageBytes?: number;
  onProgress?: (event: { done: number; total: number; file: string }) => void;
  /**
   * Told of each page as it is written (chunks that left the store, chunks that entered it),
   * before the run commits: a run that then fails rolls the store back, not what was told.
   */
  onStored?: (change: { removedChunkIds: string[]; addedChunks: ChunkRecord[] }) => void;
}

export interface IngestFailure {
  filePath: string;
  line: number | undefined;
  code: string;
  message: string;
}

/** A page (or partial) that was indexed despite a problem, e.g. MDX read as CommonMark. */
export type IngestWarning = ParseWarning;

export interface IngestReport {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  skippedDrafts: string[];
  failures: IngestFailure[];
  /** Problems in the pages (re)ingested by this run; unchanged pages are not read again. */
  warnings: IngestWarning[];
  chunksAdded: number;
  chunksRemoved: number;
  totalDocuments: number;
  totalChunks: number;
  indexVersion: number;
  /** Chunk ids that left the index and chunks that entered it, for incremental index updates. */
  removedChunkIds: string[];
  addedChunks: ChunkRecord[];
  changed: boolean;
  seconds: number;
}

/** The settings that shape the output; changing one re-ingests every page. */
export function settingsHash(
  options: Pick<IngestOptions, "route" | "chunking" | "collection">,
): string {
  return sha256(
    JSON.stringify({
      ingest: INGEST_VERSION,
      analyzer: ANALYZER_VERSION,
      route: options.route,
      chunking: options.chunking,
      collection: options.collection,
    }),
  ).slice(0, 16);
}

export function ingestOptionsFromConfig(config: Config, docs: string | DocSource): IngestOptions {
  return {
    source:
      typeof docs === "string"
        ? new FileSystemDocSource(docs, {
            followLinksOutsideDocs: config.ingest.followLinksOutsideDocs,
          })
        : docs,
    route: { baseUrl: config.baseUrl, routeBasePath: config.routeBasePath },
    chunking: { ...config.chunking },
    collection: config.collection,
    maxPageBytes: config.ingest.maxPageBytes,
  };
}

/**
 * Reads the book's source and brings the store in line with it in one transaction: new and changed
 * pages are (re)chunked and stored page by page, deleted pages removed, unchanged pages skipped by
 * hash. A page that cannot
 * be read or parsed is reported and keeps its previous version in the store. Documents and chunks
 * carry the store's collection version (`""` when the book has no versions).
 */
export async function ingestDocs(
  store: DocumentStore,
  options: IngestOptions,
): Promise<IngestReport> {
  const started = performance.now();
  const tree = await options.source.list();
  const settings = settingsHash(options);
  const stored = new Map(
    (await store.listDocuments()).map((doc) => [doc.filePath, doc.sourceHash]),
  );
  const sources = new SourceCache(options.source, options.maxPageBytes);

  const report: IngestReport = {
    added: [],
    updated: [],
    removed: [],
    unchanged: 0,
    skippedDrafts: [],
    failures: tree.problems.map((problem) => ({ ...problem, line: undefined })),
    warnings: [],
    chunksAdded: 0,
    chunksRemoved: 0,
    totalDocuments: 0,
    totalChunks: 0,
    indexVersion: 0,
    removedChunkIds: [],
    addedChunks: [],
    changed: false,
    seconds: 0,
  };

  const pages = tree.markdownFiles.filter(
    (file) => tree.pageUrls?.has(file) || !isPartialPath(file),
  );
  const seen = new Set<string>();

  // Each page is stored as soon as it is built, inside the run's one transaction, so that only
  // its chunks (which the BM25 index needs) outlive it: not its parse tree, HTML or Markdown.
  let built = 0;
  const indexVersion = await store.sync(settings, async (writer) => {
    for (const [position, filePath] of pages.entries()) {
      options.onProgress?.({ done: position, total: pages.length, file: filePath });
      let page: ReturnType<typeof buildPage>;
      let readWarnings: IngestWarning[] = [];
      try {
        const text = await sources.text(filePath);
        readWarnings = sources.readWarnings(filePath);
        const partials = await sources.partialsOf(filePath, text);
        const categories = categoryTrail(filePath, tree.categoryLabels);
        const sourceHash = sha256(
          [
            settings,
            filePath,
            text,
            ...partials.map((partial) => `${partial.path}\n${partial.text}`),
            categories.join("/"),
            // A crawled page's URL is part of it (folder books add nothing: their hashes stay).
            ...(tree.pageUrls?.has(filePath) ? [tree.pageUrls.get(filePath)] : []),
          ].join("\u0000"),
        );
        seen.add(filePath);
        if (stored.get(filePath) === sourceHash) {
          report.unchanged++;
          continue;
        }
        page = buildPage(filePath, text, sourceHash, categories, sources, {
          route: options.route,
          chunking: options.chunking,
          collection: options.collection,
          version: store.version,
          pageUrl: tree.pageUrls?.get(filePath),
        });
        if (!page) {
          report.skippedDrafts.push(filePath);
          seen.delete(filePath);
          continue;
        }
      } catch (error) {
        // Keep the previous version of a page that now fails: nothing is lost.
        seen.add(filePath);
        report.failures.push(toFailure(filePath, error));
        continue;
      } finally {
        sources.release(filePath);
      }
      // Outside the page's try: a failed write fails the run, and the transaction rolls back.
      const removedChunkIds = await writer.replace({
        document: page.document,
        chunks: page.chunks,
      });
      for (const id of removedChunkIds) report.removedChunkIds.push(id);
      options.onStored?.({ removedChunkIds, addedChunks: page.chunks });
      report.warnings.push(...readWarnings, ...page.warnings);
      for (const chunk of page.chunks) report.addedChunks.push(chunk);
      if (++built % GC_EVERY_PAGES === 0) collectGarbage();
      (stored.has(filePath) ? report.updated : report.added).push(filePath);
    }
    options.onProgress?.({ done: pages.length, total: pages.length, file: "" });
    for (const filePath of stored.keys()) {
      if (!seen.has(filePath)) {
        const removedChunkIds = await writer.delete(filePath);
        for (const id of removedChunkIds) report.removedChunkIds.push(id);
        options.onStored?.({ removedChunkIds, addedChunks: [] });
        report.removed.push(filePath);
      }
    }
  });
  report.warnings.push(...sources.partialWarnings());

  report.changed = indexVersion !== undefined;
  report.chunksAdded = report.addedChunks.length;
  report.chunksRemoved = report.removedChunkIds.length;
  report.indexVersion = indexVersion ?? (await store.indexState()).indexVersion;
  const counts = await store.counts();
  report.totalDocuments = counts.documents;
  report.totalChunks = counts.chunks;
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function categoryTrail(filePath: string, labels: Map<string, string>): string[] {
  const trail: string[] = [];
  const folders = filePath.split("/").slice(0, -1);
  for (let depth = 1; depth <= folders.length; depth++) {
    const label = labels.get(folders.slice(0, depth).join("/"));
    if (label) trail.push(label);
  }
  return trail;
}

function toFailure(filePath: string, error: unknown): IngestFailure {
  if (error instanceof MarkdownParseError) {
    return { filePath, line: error.line, code: error.code, message: error.message };
  }
  if (error instanceof RouteError) {
    return {
      filePath,
      line: undefined,
      code: error.code,
      message: `${filePath}: ${error.message}`,
    };
  }
  if (isLecternError(error))
    return { filePath, line: undefined, code: error.code, message: error.message };
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return { filePath, line: undefined, code: "PARSE_ERROR", message: `${filePath}: ${message}` };
}
