import { createHash } from "node:crypto";
import path from "node:path";
import type { Config } from "../config/config.ts";
import { isLecternError } from "../errors.ts";
import { ANALYZER_VERSION } from "../search/analyzer.ts";
import type {
  ChangeSet,
  ChunkRecord,
  DocumentRecord,
  DocumentStore,
} from "../store/document-store.ts";
import { buildSections, type ChunkingOptions, chunkSections } from "./chunk.ts";
import type { DocSource } from "./doc-source.ts";
import { FileSystemDocSource } from "./files.ts";
import {
  type Block,
  decodeText,
  MarkdownParseError,
  type ParseWarning,
  parseMarkdown,
} from "./markdown.ts";
import { renderBlocks } from "./render-html.ts";
import {
  createHeadingSlugger,
  docUrl,
  headingAnchor,
  isPartialPath,
  RouteError,
  type RouteOptions,
} from "./routes.ts";

/** Bump when ingestion output changes for the same input: every page is then re-ingested. */
export const INGEST_VERSION = 5;

export interface IngestOptions {
  /** Where the book's files come from (a folder for `lectern ingest --docs`). */
  source: DocSource;
  route: RouteOptions;
  chunking: ChunkingOptions;
  collection: string;
  onProgress?: (event: { done: number; total: number; file: string }) => void;
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
    source: typeof docs === "string" ? new FileSystemDocSource(docs) : docs,
    route: { baseUrl: config.baseUrl, routeBasePath: config.routeBasePath },
    chunking: { ...config.chunking },
    collection: config.collection,
  };
}

/**
 * Reads the book's source and brings the store in line with it in one transaction: new and changed
 * pages are (re)chunked, deleted pages removed, unchanged pages skipped by hash. A page that cannot
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
  const sources = new SourceCache(options.source);

  const report: IngestReport = {
    added: [],
    updated: [],
    removed: [],
    unchanged: 0,
    skippedDrafts: [],
    failures: tree.problems.map((message) => ({
      filePath: message.split(":")[0] ?? "",
      line: undefined,
      code: "INVALID_CATEGORY",
      message,
    })),
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

  const pages = tree.markdownFiles.filter((file) => !isPartialPath(file));
  const seen = new Set<string>();
  const changes: ChangeSet = { upserts: [], deletes: [], settingsHash: settings };

  for (const [position, filePath] of pages.entries()) {
    options.onProgress?.({ done: position, total: pages.length, file: filePath });
    try {
      const text = await sources.text(filePath);
      const partials = await sources.partialsOf(filePath, text);
      const categories = categoryTrail(filePath, tree.categoryLabels);
      const sourceHash = sha256(
        [
          settings,
          filePath,
          text,
          ...partials.map((partial) => `${partial.path}\n${partial.text}`),
          categories.join("/"),
        ].join("\u0000"),
      );
      seen.add(filePath);
      if (stored.get(filePath) === sourceHash) {
        report.unchanged++;
        continue;
      }
      const page = buildPage(filePath, text, sourceHash, categories, sources, {
        ...options,
        version: store.version,
      });
      if (!page) {
        report.skippedDrafts.push(filePath);
        seen.delete(filePath);
        continue;
      }
      report.warnings.push(...page.warnings);
      changes.upserts.push({ document: page.document, chunks: page.chunks });
      (stored.has(filePath) ? report.updated : report.added).push(filePath);
    } catch (error) {
      // Keep the previous version of a page that now fails: nothing is lost.
      seen.add(filePath);
      report.failures.push(toFailure(filePath, error));
    }
  }
  options.onProgress?.({ done: pages.length, total: pages.length, file: "" });
  report.warnings.push(...sources.partialWarnings());

  for (const filePath of stored.keys()) {
    if (!seen.has(filePath)) {
      changes.deletes.push(filePath);
      report.removed.push(filePath);
    }
  }

  report.changed = changes.upserts.length > 0 || changes.deletes.length > 0;
  if (report.changed) {
    const replaced = [
      ...changes.deletes,
      ...changes.upserts.map((change) => change.document.filePath),
    ];
    report.removedChunkIds = await store.chunkIdsOf(replaced);
    report.addedChunks = changes.upserts.flatMap((change) => change.chunks);
    report.chunksAdded = report.addedChunks.length;
    report.chunksRemoved = report.removedChunkIds.length;
    report.indexVersion = await store.apply(changes);
  } else {
    report.indexVersion = (await store.indexState()).indexVersion;
  }
  const counts = await store.counts();
  report.totalDocuments = counts.documents;
  report.totalChunks = counts.chunks;
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function buildPage(
  filePath: string,
  text: string,
  sourceHash: string,
  categories: string[],
  sources: SourceCache,
  options: IngestOptions & { version: string },
): { document: DocumentRecord; chunks: ChunkRecord[]; warnings: ParseWarning[] } | undefined {
  const parsed = parseMarkdown(text, {
    filePath,
    format: formatOf(filePath),
    resolvePartial: (specifier) => sources.partialBlocks(filePath, specifier),
  });
  const { frontmatter } = parsed;
  if (frontmatter.draft === true) return undefined;

  const route = { relativePath: filePath, frontmatter };
  const pageUrl = docUrl(route, options.route);
  const firstHeading = parsed.blocks.find((block) => block.kind === "heading" && block.depth === 1);
  const title =
    stringValue(frontmatter.title) ??
    (firstHeading?.kind === "heading" ? firstHeading.text : undefined) ??
    humanize(filePath);
  const tags = tagList(frontmatter.tags);
  const searchText = authorSearchText(title, frontmatter);

  // The page's HTML gets its anchors from a slugger of its own, fed the same headings in order.
  const htmlSlugger = createHeadingSlugger();
  const html = renderBlocks(
    parsed.blocks,
    (heading) => headingAnchor(htmlSlugger, rawHeading(heading)).anchor,
  );
  const slugger = createHeadingSlugger();
  const sections = buildSections(
    parsed.blocks,
    title,
    (heading) => headingAnchor(slugger, rawHeading(heading)).anchor,
  );
  const drafts = chunkSections(sections, options.chunking);
  const chunks: ChunkRecord[] = drafts.map((draft, index) => {
    const contentHash = sha256(draft.text).slice(0, 32);
    return {
      id: sha256(
        [options.collection, options.version, filePath, index, contentHash].join("\u0000"),
      ).slice(0, 32),
      collection: options.collection,
      version: options.version,
      filePath,
      chunkIndex: index,
      totalChunks: drafts.length,
      title,
      section: draft.section,
      headingPath: draft.headingPath,
      url: draft.anchor ? `${pageUrl}#${draft.anchor}` : pageUrl,
      tags,
      searchText,
      text: draft.text,
      contentHash,
      tokenCount: draft.tokens,
    };
  });
  const description = stringValue(frontmatter.description);
  return {
    document: {
      collection: options.collection,
      version: options.version,
      filePath,
      title,
      url: pageUrl,
      sourceHash,
      tags,
      metadata: {
        frontmatter: jsonSafe(frontmatter),
        categories,
        ...(description ? { description } : {}),
      },
      chunkCount: chunks.length,
      html,
    },
    chunks,
    warnings: parsed.warnings,
  };
}

/** Heading text as the slugger must see it: with any explicit id put back for it to find. */
function rawHeading(heading: Extract<Block, { kind: "heading" }>): string {
  return heading.explicitId ? `${heading.text} {#${heading.explicitId}}` : heading.text;
}

class SourceCache {
  private readonly texts = new Map<string, Promise<string>>();
  /** Texts already read, for the synchronous partial lookups made while parsing. */
  private readonly settled = new Map<string, string>();
  private readonly blocks = new Map<string, Block[] | undefined>();
  private readonly warnings = new Map<string, ParseWarning[]>();
  private readonly resolving = new Set<string>();

  constructor(private readonly source: DocSource) {}

  text(filePath: string): Promise<string> {
    let pending = this.texts.get(filePath);
    if (!pending) {
      pending = this.source.read(filePath).then(
        (bytes) => {
          const text = decodeText(bytes, filePath);
          this.settled.set(filePath, text);
          return text;
        },
        (error: NodeJS.ErrnoException) => {
          throw new MarkdownParseError(
            filePath,
            undefined,
            `cannot read file (${error.code ?? error.message})`,
            "PARSE_ERROR",
          );
        },
      );
      this.texts.set(filePath, pending);
    }
    return pending;
  }

  /** Partials a page imports (transitively), read now so their text counts in the page's hash. */
  async partialsOf(
    filePath: string,
    text: string,
    depth = 0,
  ): Promise<{ path: string; text: string }[]> {
    if (depth > 5) return [];
    const found: { path: string; text: string }[] = [];
    for (const match of text.matchAll(
      /^import\s+[A-Za-z_$][\w$]*\s+from\s+["']([^"']+\.mdx?)["']/gm,
    )) {
      const target = this.resolve(filePath, match[1] ?? "");
      if (!target) continue;
      const partialText = await this.text(target).catch(() => "");
      found.push(
        { path: target, text: partialText },
        ...(await this.partialsOf(target, partialText, depth + 1)),
      );
    }
    return found;
  }

  resolve(fromFile: string, specifier: string): string | undefined {
    if (!specifier.startsWith(".")) return undefined;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
    return target.startsWith("..") ? undefined : target;
  }

  /** Parsed blocks of a partial (already read by `partialsOf`), or undefined if unavailable. */
  partialBlocks(fromFile: string, specifier: string): Block[] | undefined {
    const target = this.resolve(fromFile, specifier);
    if (!target || this.resolving.has(target)) return undefined;
    if (this.blocks.has(target)) return this.blocks.get(target);
    const text = this.settled.get(target);
    if (text === undefined) return undefined;
    this.resolving.add(target);
    try {
      const parsed = parseMarkdown(text, {
        filePath: target,
        format: formatOf(target),
        resolvePartial: (nested) => this.partialBlocks(target, nested),
      });
      this.blocks.set(target, parsed.blocks);
      this.warnings.set(target, parsed.warnings);
      return parsed.blocks;
    } finally {
      this.resolving.delete(target);
    }
  }

  /** Warnings of the partials parsed so far, each partial once however many pages use it. */
  partialWarnings(): ParseWarning[] {
    return [...this.warnings.values()].flat();
  }
}

function formatOf(filePath: string): "md" | "mdx" {
  return filePath.toLowerCase().endsWith(".mdx") ? "mdx" : "md";
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

function stringValue(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function tagList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((tag) => (typeof tag === "string" ? tag : (tag as { label?: unknown } | null)?.label))
    .filter((tag): tag is string => typeof tag === "string" && tag.length > 0);
}

/**
 * What the author wrote for search engines and the sidebar (`description`, `keywords` as a list
 * or a comma-separated string, `sidebar_label`), each once and none that merely repeats the title.
 */
export function authorSearchText(title: string, frontmatter: Record<string, unknown>): string {
  const keywords = frontmatter.keywords;
  const keywordList = Array.isArray(keywords)
    ? keywords.filter((keyword): keyword is string => typeof keyword === "string")
    : typeof keywords === "string"
      ? keywords.split(",")
      : [];
  const seen = new Set([normalized(title)]);
  const parts: string[] = [];
  for (const part of [frontmatter.description, ...keywordList, frontmatter.sidebar_label]) {
    const text = stringValue(part);
    if (!text || seen.has(normalized(text))) continue;
    seen.add(normalized(text));
    parts.push(text);
  }
  return parts.join("\n");
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function humanize(filePath: string): string {
  const base = path.posix
    .basename(filePath)
    .replace(/\.mdx?$/i, "")
    .replace(/^\d+[-_. ]+/, "");
  const words = base.replace(/[-_]+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : filePath;
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  // YAML dates and other non-JSON values become plain JSON.
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
