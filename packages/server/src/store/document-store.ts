import { storableJsonText } from "../util/storable-text.ts";
import { type ChunkBlock, chunkBlocks } from "./chunk-blocks.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/** A source page as stored: one row per Markdown/MDX file that renders as a page. */
export interface DocumentRecord {
  collection: string;
  version: string;
  filePath: string;
  title: string;
  url: string;
  /** Hash of everything the page's chunks depend on (its bytes, partials, settings). */
  sourceHash: string;
  tags: string[];
  metadata: Record<string, unknown>;
  chunkCount: number;
  /** The page rendered for the demo book site. */
  html?: string;
  /** The page as clean Markdown, for agents (`/page.md`, llms-full.txt, MCP). */
  markdown?: string;
}

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
}

export interface DocumentChange {
  document: DocumentRecord;
  chunks: ChunkRecord[];
}

export interface ChangeSet {
  upserts: DocumentChange[];
  deletes: string[];
  settingsHash: string;
}

/** The writes of one ingest, inside its transaction (`DocumentStore.sync`). */
export interface DocumentWriter {
  /** Stores a page in place of its previous version; returns the ids of the chunks it replaced. */
  replace(change: DocumentChange): Promise<string[]>;
  /** Removes a page; returns the ids of its chunks. */
  delete(filePath: string): Promise<string[]>;
}

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

/** Which book a collection holds: where its docs were ingested from, and its title. */
export interface BookRecord {
  /** The docs folder, relative to the data directory, so that moving both together keeps it. */
  docsPath: string;
  title: string | undefined;
  /** The book's docs versions; absent or empty for a book without versions. */
  versions?: BookVersion[];
  /** The book's locales, the default one included; absent or empty for an untranslated book. */
  locales?: BookLocale[];
}

export interface IndexState {
  indexVersion: number;
  settingsHash: string;
}

/** Documents and chunks of one collection/version, replaced atomically per ingest run. */
export class DocumentStore {
  constructor(
    private readonly db: SqlClient,
    readonly collection = "default",
    readonly version = "",
  ) {}

  async listDocuments(): Promise<{ filePath: string; sourceHash: string }[]> {
    const rows = await this.db.query<{ file_path: string; source_hash: string }>(
      "SELECT file_path, source_hash FROM documents WHERE collection = $1 AND version = $2",
      [this.collection, this.version],
    );
    return rows.map((row) => ({ filePath: row.file_path, sourceHash: row.source_hash }));
  }

  async indexState(): Promise<IndexState> {
    const rows = await this.db.query<{ index_version: string | number; settings_hash: string }>(
      "SELECT index_version, settings_hash FROM index_state WHERE collection = $1 AND version = $2",
      [this.collection, this.version],
    );
    const row = rows[0];
    return row
      ? { indexVersion: Number(row.index_version), settingsHash: row.settings_hash }
      : { indexVersion: 0, settingsHash: "" };
  }

  /** Applies one ingest run in a single transaction and returns the new index version. */
  async apply(changes: ChangeSet): Promise<number> {
    const version = await this.sync(changes.settingsHash, async (writer) => {
      for (const filePath of changes.deletes) await writer.delete(filePath);
      for (const change of changes.upserts) await writer.replace(change);
    });
    return version ?? (await this.indexState()).indexVersion;
  }

  /**
   * Runs one ingest in a single transaction whose writes are made as `work` goes, so that a page
   * can be stored as soon as it is built and need not be held until the end: all of it is
   * committed, or none of it. Raises the index version when anything was written and returns it
   * (undefined when nothing was). `work` must reach the database only through `writer`: on PGlite
   * any other query waits for the transaction to end.
   */
  async sync(
    settingsHash: string,
    work: (writer: DocumentWriter) => Promise<void>,
  ): Promise<number | undefined> {
    return this.db.transaction(async (tx) => {
      let written = false;
      const removedChunkIds = async (filePath: string) => {
        const rows = await tx.query<{ id: string }>(
          "SELECT id FROM chunks WHERE collection = $1 AND version = $2 AND file_path = $3",
          [this.collection, this.version, filePath],
        );
        return rows.map((row) => row.id);
      };
      await work({
        replace: async (change) => {
          written = true;
          const removed = await removedChunkIds(change.document.filePath);
          await this.replaceDocument(tx, change);
          return removed;
        },
        delete: async (filePath) => {
          written = true;
          const removed = await removedChunkIds(filePath);
          await tx.query(
            "DELETE FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
            [this.collection, this.version, filePath],
          );
          return removed;
        },
      });
      if (!written) return undefined;
      const rows = await tx.query<{ index_version: string | number }>(
        `INSERT INTO index_state (collection, version, index_version, settings_hash, updated_at)
         VALUES ($1, $2, 1, $3, now())
         ON CONFLICT (collection, version) DO UPDATE
           SET index_version = index_state.index_version + 1, settings_hash = $3, updated_at = now()
         RETURNING index_version`,
        [this.collection, this.version, settingsHash],
      );
      return Number(rows[0]?.index_version ?? 0);
    });
  }

  private async replaceDocument(tx: SqlQueryable, { document, chunks }: DocumentChange) {
    await tx.query(
      "DELETE FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
      [this.collection, this.version, document.filePath],
    );
    await tx.query(
      `INSERT INTO documents (collection, version, file_path, title, url, source_hash, tags, metadata, chunk_count, html, markdown)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        this.collection,
        this.version,
        document.filePath,
        document.title,
        document.url,
        document.sourceHash,
        JSON.stringify(document.tags),
        JSON.stringify(document.metadata),
        document.chunkCount,
        document.html ?? null,
        document.markdown ?? null,
      ],
    );
    // Multi-row inserts keep a large page to a few round trips.
    const columns = 17;
    const batchSize = 200;
    for (let start = 0; start < chunks.length; start += batchSize) {
      const batch = chunks.slice(start, start + batchSize);
      const params: unknown[] = [];
      const tuples = batch.map((chunk, row) => {
        params.push(
          chunk.id,
          this.collection,
          this.version,
          chunk.filePath,
          chunk.chunkIndex,
          chunk.totalChunks,
          chunk.title,
          chunk.section,
          JSON.stringify(chunk.headingPath),
          chunk.url,
          JSON.stringify(chunk.tags),
          chunk.text,
          chunk.contentHash,
          chunk.tokenCount,
          chunk.searchText ?? "",
          JSON.stringify(chunk.sectionAnchors ?? []),
          storableJsonText(chunk.blocks ?? chunkBlocks(chunk.text)),
        );
        const base = row * columns;
        return `(${Array.from({ length: columns }, (_, column) => `$${base + column + 1}`).join(", ")})`;
      });
      await tx.query(
        `INSERT INTO chunks (id, collection, version, file_path, chunk_index, total_chunks, title, section,
           heading_path, url, tags, text, content_hash, token_count, search_text, section_anchors,
           blocks)
         VALUES ${tuples.join(", ")}`,
        params,
      );
    }
  }

  async allChunks(): Promise<ChunkRecord[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT id, collection, version, file_path, chunk_index, total_chunks, title, section, heading_path,
              url, tags, text, content_hash, token_count, search_text, section_anchors,
              blocks
         FROM chunks WHERE collection = $1 AND version = $2
        ORDER BY file_path, chunk_index`,
      [this.collection, this.version],
    );
    return rows.map(toChunk);
  }

  /** The chunks with these ids (unknown ids are left out), keyed by id. */
  async chunksByIds(ids: readonly string[]): Promise<Map<string, ChunkRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<ChunkRow>(
      `SELECT id, collection, version, file_path, chunk_index, total_chunks, title, section, heading_path,
              url, tags, text, content_hash, token_count, search_text, section_anchors,
              blocks
         FROM chunks WHERE collection = $1 AND version = $2 AND id = ANY($3::text[])`,
      [this.collection, this.version, [...ids]],
    );
    return new Map(rows.map((row) => [row.id, toChunk(row)]));
  }

  /** The first chunk of every page (what the book's synopsis reads), in path order. */
  async firstChunks(): Promise<ChunkRecord[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT DISTINCT ON (file_path) id, collection, version, file_path, chunk_index, total_chunks, title,
              section, heading_path, url, tags, text, content_hash, token_count, search_text, section_anchors,
              blocks
         FROM chunks WHERE collection = $1 AND version = $2
        ORDER BY file_path, chunk_index`,
      [this.collection, this.version],
    );
    return rows.map(toChunk);
  }

  /** The chunks of these pages, each page's in page order. */
  async chunksOfPages(filePaths: readonly string[]): Promise<Map<string, ChunkRecord[]>> {
    const pages = new Map<string, ChunkRecord[]>(filePaths.map((filePath) => [filePath, []]));
    if (filePaths.length === 0) return pages;
    const rows = await this.db.query<ChunkRow>(
      `SELECT id, collection, version, file_path, chunk_index, total_chunks, title, section, heading_path,
              url, tags, text, content_hash, token_count, search_text, section_anchors,
              blocks
         FROM chunks WHERE collection = $1 AND version = $2 AND file_path = ANY($3::text[])
        ORDER BY file_path, chunk_index`,
      [this.collection, this.version, [...filePaths]],
    );
    for (const row of rows) pages.get(row.file_path)?.push(toChunk(row));
    return pages;
  }

  /** Every page, for the demo site's sidebar. */
  async pages(): Promise<PageSummary[]> {
    const rows = await this.db.query<{
      file_path: string;
      title: string;
      url: string;
      metadata: Record<string, unknown> | string;
    }>(
      "SELECT file_path, title, url, metadata FROM documents WHERE collection = $1 AND version = $2 ORDER BY file_path",
      [this.collection, this.version],
    );
    return rows.map((row) => {
      const metadata = (
        typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata
      ) as {
        categories?: string[];
        description?: unknown;
        frontmatter?: { sidebar_position?: unknown };
      };
      const position = Number(metadata.frontmatter?.sidebar_position);
      return {
        filePath: row.file_path,
        title: row.title,
        url: row.url,
        categories: metadata.categories ?? [],
        position: Number.isFinite(position) ? position : undefined,
        ...(typeof metadata.description === "string" ? { description: metadata.description } : {}),
      };
    });
  }

  async book(): Promise<BookRecord | undefined> {
    const rows = await this.db.query<{
      docs_path: string;
      title: string | null;
      versions: BookVersion[] | string | null;
      locales: BookLocale[] | string | null;
    }>("SELECT docs_path, title, versions, locales FROM books WHERE collection = $1", [
      this.collection,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const versions = row.versions === null ? [] : parseJson(row.versions);
    const locales = row.locales === null ? [] : parseJson(row.locales);
    return {
      docsPath: row.docs_path,
      title: row.title ?? undefined,
      ...(versions.length > 0 ? { versions } : {}),
      ...(locales.length > 0 ? { locales } : {}),
    };
  }

  async saveBook(book: BookRecord): Promise<void> {
    const versions = book.versions?.length ? JSON.stringify(book.versions) : null;
    const locales = book.locales?.length ? JSON.stringify(book.locales) : null;
    await this.db.query(
      `INSERT INTO books (collection, docs_path, title, versions, locales, updated_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (collection) DO UPDATE
       SET docs_path = $2, title = $3, versions = $4, locales = $5, updated_at = now()`,
      [this.collection, book.docsPath, book.title ?? null, versions, locales],
    );
  }

  /** A page's rendered HTML by its file path. */
  async pageHtml(filePath: string): Promise<string | undefined> {
    const rows = await this.db.query<{ html: string | null }>(
      "SELECT html FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
      [this.collection, this.version, filePath],
    );
    return rows[0]?.html ?? undefined;
  }

  /** A page's Markdown by its file path; undefined when it was ingested before pages kept it. */
  async pageMarkdown(filePath: string): Promise<string | undefined> {
    const rows = await this.db.query<{ markdown: string | null }>(
      "SELECT markdown FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
      [this.collection, this.version, filePath],
    );
    return rows[0]?.markdown ?? undefined;
  }

  /** Every page's Markdown by file path (pages ingested before pages kept it are left out). */
  async allPageMarkdown(): Promise<Map<string, string>> {
    const rows = await this.db.query<{ file_path: string; markdown: string }>(
      "SELECT file_path, markdown FROM documents WHERE collection = $1 AND version = $2 AND markdown IS NOT NULL",
      [this.collection, this.version],
    );
    return new Map(rows.map((row) => [row.file_path, row.markdown]));
  }

  /** Ids of the stored chunks of these files. */
  async chunkIdsOf(filePaths: string[]): Promise<string[]> {
    if (filePaths.length === 0) return [];
    const rows = await this.db.query<{ id: string }>(
      "SELECT id FROM chunks WHERE collection = $1 AND version = $2 AND file_path = ANY($3::text[])",
      [this.collection, this.version, filePaths],
    );
    return rows.map((row) => row.id);
  }

  async counts(): Promise<{ documents: number; chunks: number }> {
    const rows = await this.db.query<{ documents: string | number; chunks: string | number }>(
      `SELECT (SELECT count(*) FROM documents WHERE collection = $1 AND version = $2) AS documents,
              (SELECT count(*) FROM chunks WHERE collection = $1 AND version = $2) AS chunks`,
      [this.collection, this.version],
    );
    return { documents: Number(rows[0]?.documents ?? 0), chunks: Number(rows[0]?.chunks ?? 0) };
  }
}

interface ChunkRow {
  id: string;
  collection: string;
  version: string;
  file_path: string;
  chunk_index: number;
  total_chunks: number;
  title: string;
  section: string;
  heading_path: string[] | string;
  url: string;
  tags: string[] | string;
  text: string;
  content_hash: string;
  token_count: number;
  search_text: string;
  section_anchors: SectionAnchor[] | string | null;
  blocks: ChunkBlock[] | string | null;
}

function parseJson<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

function toChunk(row: ChunkRow): ChunkRecord {
  const sectionAnchors = parseJson(row.section_anchors ?? []);
  return {
    id: row.id,
    collection: row.collection,
    version: row.version,
    filePath: row.file_path,
    chunkIndex: row.chunk_index,
    totalChunks: row.total_chunks,
    title: row.title,
    section: row.section,
    headingPath: parseJson(row.heading_path),
    url: row.url,
    tags: parseJson(row.tags),
    searchText: row.search_text,
    ...(sectionAnchors.length > 0 ? { sectionAnchors } : {}),
    blocks: row.blocks === null ? chunkBlocks(row.text) : parseJson(row.blocks),
    text: row.text,
    contentHash: row.content_hash,
    tokenCount: row.token_count,
  };
}
