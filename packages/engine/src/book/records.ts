import type { ChunkBlock } from "./chunk-blocks.ts";

/**
 * The records the engine reads: a book's pages, chunks, versions and locales, as the server's
 * store keeps them and a book file holds them.
 */

export interface PageSummary {
  filePath: string;
  title: string;
  url: string;
  categories: string[];
  position: number | undefined;
  /** The page's frontmatter description, when it has one. */
  description?: string;
}

/** A section that starts inside a chunk: its heading line's text, anchor and heading path. */
export interface SectionAnchor {
  heading: string;
  anchor: string;
  headingPath: string[];
}

export interface ChunkRecord {
  /** Derived from collection, version, file path, position and content hash. */
  id: string;
  collection: string;
  version: string;
  filePath: string;
  chunkIndex: number;
  totalChunks: number;
  title: string;
  section: string;
  headingPath: string[];
  /** Full URL including the section's `#anchor`. */
  url: string;
  tags: string[];
  /**
   * What the page's author wrote for search (frontmatter `description`, `keywords`,
   * `sidebar_label`), indexed with the title; empty or absent when there is none.
   */
  searchText?: string;
  /**
   * The sections merged into this chunk after its first: each heading line's text in `text`, its
   * anchor and heading path, so a quote from one of them links to it. Absent or empty when none.
   */
  sectionAnchors?: SectionAnchor[];
  /**
   * The chunk's text as blocks (chunk-blocks.ts), read at ingest. Stored with the chunk; a chunk
   * stored before blocks were has them read from its text when it is loaded.
   */
  blocks?: ChunkBlock[];
  text: string;
  contentHash: string;
  tokenCount: number;
  /**
   * Each of its sections' analysed terms as a static book ships them (answer/section-card.ts,
   * `packedSectionTerms`), so that a browser does not analyse the sections of a page it opens;
   * absent elsewhere, where they are analysed on first use and kept.
   */
  sectionTerms?: PackedTerms[];
}

/**
 * A section's analysed terms as one string: how many there are, then each distinct term and its
 * count, separated by spaces (no analysed term holds one). One string a section, read only when
 * the section is weighed: a page shard's JSON holds the terms of every chunk it has.
 */
export type PackedTerms = string;

/**
 * One docs version of a versioned book (a Docusaurus `versioned_docs/version-X/` folder, or the
 * current docs). Every version's pages live in the same index; a page belongs to the version
 * whose `filePrefix` its file path starts with.
 */
export interface BookVersion {
  /** The version's name: "current" for the current docs, else as in versions.json ("29.7"). */
  name: string;
  /** What readers see: "Next" for the current docs, else the name, unless configured. */
  label: string;
  /** The URL path segment after routeBasePath ("next", "29.7"); "" for the last released version. */
  urlSegment: string;
  /** The start of the file paths of the version's pages ("versioned_docs/version-29.7/"). */
  filePrefix: string;
  /** The version answered when a reader names none (Docusaurus's last version). */
  latest: boolean;
}

/**
 * One language of a translated book (a Docusaurus site's `i18n/<locale>/` folder, or the default
 * locale). A translated page's file path starts with its locale's `filePrefix` and then its
 * version's (`i18n/fr/docs/intro.md`); a page of the default locale starts with its version's.
 */
export interface BookLocale {
  /** As Docusaurus names it: "fr", "pt-BR", "ja". */
  name: string;
  /** The URL path segment after the site's baseUrl ("fr"); "" for the default locale. */
  urlSegment: string;
  /** The start of the file paths of its pages ("i18n/fr/"); "" for the default locale. */
  filePrefix: string;
  /** The locale of the pages without an i18n folder (Docusaurus's defaultLocale). */
  default: boolean;
}
