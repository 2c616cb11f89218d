/** One page of the book: its document record, chunks and parse warnings, built from its text. */
import { createHash } from "node:crypto";
import path from "node:path";
import type { ChunkRecord, DocumentRecord } from "../store/document-store.ts";
import { buildSections, type ChunkingOptions, chunkSections } from "./chunk.ts";
import { type Block, type ParseWarning, parseMarkdown } from "./markdown.ts";
import { renderBlocks } from "./render-html.ts";
import { renderMarkdown } from "./render-markdown.ts";
import {
  createHeadingSlugger,
  docUrl,
  headingAnchor,
  type RouteOptions,
  versionedRoute,
} from "./routes.ts";
import { formatOf, type SourceCache } from "./source-cache.ts";

export interface PageOptions {
  route: RouteOptions;
  chunking: ChunkingOptions;
  collection: string;
  /** The book version the page belongs to ("" when the book has no versions). */
  version: string;
  /** The page's URL when the source knows it (a crawled page); else computed from its route. */
  pageUrl?: string | undefined;
}

/** The page's record and chunks, or undefined for a draft. */
export function buildPage(
  filePath: string,
  text: string,
  sourceHash: string,
  categories: string[],
  sources: SourceCache,
  options: PageOptions,
): { document: DocumentRecord; chunks: ChunkRecord[]; warnings: ParseWarning[] } | undefined {
  const parsed = parseMarkdown(text, {
    filePath,
    format: formatOf(filePath),
    resolvePartial: (specifier) => sources.partialBlocks(filePath, specifier),
  });
  const { frontmatter } = parsed;
  if (frontmatter.draft === true) return undefined;

  const versioned = versionedRoute(filePath, options.route);
  const pageUrl =
    options.pageUrl ??
    docUrl({ relativePath: versioned.relativePath, frontmatter }, versioned.route);
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
      ...(draft.sectionAnchors.length > 0 ? { sectionAnchors: draft.sectionAnchors } : {}),
      blocks: draft.blocks,
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
      markdown: renderMarkdown(title, parsed.blocks),
    },
    chunks,
    warnings: parsed.warnings,
  };
}

/** Heading text as the slugger must see it: with any explicit id put back for it to find. */
function rawHeading(heading: Extract<Block, { kind: "heading" }>): string {
  return heading.explicitId ? `${heading.text} {#${heading.explicitId}}` : heading.text;
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

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
