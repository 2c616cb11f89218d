import { createHash } from "node:crypto";
import { type ChunkBlock, chunkBlocks } from "@lectern/engine/book/chunk-blocks";
import type {
  BookLocale,
  BookVersion,
  ChunkRecord,
  PageSummary,
  SectionAnchor,
} from "@lectern/engine/book/records";
import { storableJsonText } from "../util/storable-text.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";
import { type LiteralValue, withLiterals } from "./sql-literal.ts";

// The records the engine reads are the store's rows too.
export type { BookLocale, BookVersion, ChunkRecord, PageSummary, SectionAnchor };

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
      const released = { chunks: new Set<string>(), pages: new Set<string>() };
      // One writing ingest of a collection at a time, across processes (PostgreSQL): another's
      // page could otherwise point at shared content this one is about to drop as unused.
      const firstWrite = async () => {
        if (written) return;
        written = true;
        await tx.query("SELECT pg_advisory_xact_lock(7283002, hashtext($1))", [this.collection]);
      };
      await work({
        replace: async (change) => {
          await firstWrite();
          const removed = await this.storedRows(tx, change.document.filePath, released);
          await this.replaceDocument(tx, change);
          return removed;
        },
        delete: async (filePath) => {
          await firstWrite();
          const removed = await this.storedRows(tx, filePath, released);
          await tx.query(
            "DELETE FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
            [this.collection, this.version, filePath],
          );
          return removed;
        },
      });
      if (!written) return undefined;
      await this.dropUnusedContents(tx, released);
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

  /**
   * The ids of a stored page's chunks, about to be replaced or removed; the keys of the content
   * they and the page point at go to `released`, to be dropped at the end if nothing else holds it.
   */
  private async storedRows(
    tx: SqlQueryable,
    filePath: string,
    released: { chunks: Set<string>; pages: Set<string> },
  ): Promise<string[]> {
    const rows = await tx.query<{
      id: string | null;
      chunk_key: string | null;
      page_key: string | null;
    }>(
      `SELECT c.id, c.content_key AS chunk_key, d.content_key AS page_key
         FROM documents d
         LEFT JOIN chunks c
           ON c.collection = d.collection AND c.version = d.version AND c.file_path = d.file_path
        WHERE d.collection = $1 AND d.version = $2 AND d.file_path = $3`,
      [this.collection, this.version, filePath],
    );
    const ids: string[] = [];
    for (const row of rows) {
      if (row.id !== null) ids.push(row.id);
      if (row.chunk_key !== null) released.chunks.add(row.chunk_key);
      if (row.page_key !== null) released.pages.add(row.page_key);
    }
    return ids;
  }

  /**
   * Drops the shared content that no page or chunk of the collection points at any more (of the
   * keys this run released): another version's copy of a page keeps its content.
   */
  private async dropUnusedContents(
    tx: SqlQueryable,
    released: { chunks: Set<string>; pages: Set<string> },
  ): Promise<void> {
    if (released.chunks.size > 0) {
      await tx.query(
        `DELETE FROM chunk_contents s
          WHERE s.collection = $1 AND s.content_key = ANY($2::text[])
            AND NOT EXISTS (SELECT 1 FROM chunks c
                             WHERE c.collection = s.collection AND c.content_key = s.content_key)`,
        [this.collection, [...released.chunks]],
      );
    }
    if (released.pages.size > 0) {
      await tx.query(
        `DELETE FROM page_contents s
          WHERE s.collection = $1 AND s.content_key = ANY($2::text[])
            AND NOT EXISTS (SELECT 1 FROM documents d
                             WHERE d.collection = s.collection AND d.content_key = s.content_key)`,
        [this.collection, [...released.pages]],
      );
    }
  }

  private async replaceDocument(tx: SqlQueryable, { document, chunks }: DocumentChange) {
    const pageKey = contentKey(JSON.stringify([document.html ?? null, document.markdown ?? null]));
    const contents = new Map<string, { text: string; blocks: string }>();
    const keys = chunks.map((chunk) => {
      const blocks = storableJsonText(chunk.blocks ?? chunkBlocks(chunk.text));
      const key = contentKey(chunk.text, blocks);
      contents.set(key, { text: chunk.text, blocks });
      return key;
    });
    await runStatements(tx, [
      {
        sql: "DELETE FROM documents WHERE collection = $1 AND version = $2 AND file_path = $3",
        params: [this.collection, this.version, document.filePath],
      },
      {
        sql: `INSERT INTO page_contents (collection, content_key, html, markdown) VALUES ($1, $2, $3, $4)
       ON CONFLICT (collection, content_key) DO NOTHING`,
        params: [this.collection, pageKey, document.html ?? null, document.markdown ?? null],
      },
      {
        sql: `INSERT INTO documents (collection, version, file_path, title, url, source_hash, tags, metadata, chunk_count, content_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        params: [
          this.collection,
          this.version,
          document.filePath,
          document.title,
          document.url,
          document.sourceHash,
          JSON.stringify(document.tags),
          JSON.stringify(document.metadata),
          document.chunkCount,
          pageKey,
        ],
      },
      ...this.chunkContentInserts(contents),
      ...this.chunkInserts(chunks, keys),
    ]);
  }

  /** The content of a page's chunks, each once; content another page holds already is kept. */
  private chunkContentInserts(
    contents: Map<string, { text: string; blocks: string }>,
  ): Statement[] {
    const entries = [...contents];
    const statements: Statement[] = [];
    for (let start = 0; start < entries.length; start += INSERT_BATCH) {
      const params: LiteralValue[] = [this.collection];
      const tuples = entries.slice(start, start + INSERT_BATCH).map(([key, content]) => {
        params.push(key, content.text, content.blocks);
        const base = params.length - 3;
        return `($1, $${base + 1}, $${base + 2}, $${base + 3})`;
      });
      statements.push({
        sql: `INSERT INTO chunk_contents (collection, content_key, text, blocks) VALUES ${tuples.join(", ")}
         ON CONFLICT (collection, content_key) DO NOTHING`,
        params,
      });
    }
    return statements;
  }

  /** A page's chunk rows, each pointing at its content by key (`text` is kept empty). */
  private chunkInserts(chunks: ChunkRecord[], keys: string[]): Statement[] {
    // Multi-row inserts keep a large page to a few statements.
    const columns = 16;
    const statements: Statement[] = [];
    for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
      const batch = chunks.slice(start, start + INSERT_BATCH);
      const params: LiteralValue[] = [];
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
          chunk.contentHash,
          chunk.tokenCount,
          chunk.searchText ?? "",
          JSON.stringify(chunk.sectionAnchors ?? []),
          keys[start + row] ?? null,
        );
        const base = row * columns;
        return `(${Array.from({ length: columns }, (_, column) => `$${base + column + 1}`).join(", ")}, '')`;
      });
      statements.push({
        sql: `INSERT INTO chunks (id, collection, version, file_path, chunk_index, total_chunks, title, section,
           heading_path, url, tags, content_hash, token_count, search_text, section_anchors,
           content_key, text)
         VALUES ${tuples.join(", ")}`,
        params,
      });
    }
    return statements;
  }

  async allChunks(): Promise<ChunkRecord[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} WHERE c.collection = $1 AND c.version = $2
        ORDER BY c.file_path, c.chunk_index`,
      [this.collection, this.version],
    );
    return rows.map(toChunk);
  }

  /** The chunks with these ids (unknown ids are left out), keyed by id. */
  async chunksByIds(ids: readonly string[]): Promise<Map<string, ChunkRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} WHERE c.collection = $1 AND c.version = $2 AND c.id = ANY($3::text[])`,
      [this.collection, this.version, [...ids]],
    );
    return new Map(rows.map((row) => [row.id, toChunk(row)]));
  }

  /** The first chunk of every page (what the book's synopsis reads), in path order. */
  async firstChunks(): Promise<ChunkRecord[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT DISTINCT ON (c.file_path) ${CHUNK_COLUMNS} WHERE c.collection = $1 AND c.version = $2
        ORDER BY c.file_path, c.chunk_index`,
      [this.collection, this.version],
    );
    return rows.map(toChunk);
  }

  /** The chunks of these pages, each page's in page order. */
  async chunksOfPages(filePaths: readonly string[]): Promise<Map<string, ChunkRecord[]>> {
    const pages = new Map<string, ChunkRecord[]>(filePaths.map((filePath) => [filePath, []]));
    if (filePaths.length === 0) return pages;
    const rows = await this.db.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS}
        WHERE c.collection = $1 AND c.version = $2 AND c.file_path = ANY($3::text[])
        ORDER BY c.file_path, c.chunk_index`,
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
      `SELECT ${PAGE_CONTENT.html} AS html ${PAGE_CONTENT.from}
        WHERE d.collection = $1 AND d.version = $2 AND d.file_path = $3`,
      [this.collection, this.version, filePath],
    );
    return rows[0]?.html ?? undefined;
  }

  /** A page's Markdown by its file path; undefined when it was ingested before pages kept it. */
  async pageMarkdown(filePath: string): Promise<string | undefined> {
    const rows = await this.db.query<{ markdown: string | null }>(
      `SELECT ${PAGE_CONTENT.markdown} AS markdown ${PAGE_CONTENT.from}
        WHERE d.collection = $1 AND d.version = $2 AND d.file_path = $3`,
      [this.collection, this.version, filePath],
    );
    return rows[0]?.markdown ?? undefined;
  }

  /** Every page's Markdown by file path (pages ingested before pages kept it are left out). */
  async allPageMarkdown(): Promise<Map<string, string>> {
    const rows = await this.db.query<{ file_path: string; markdown: string }>(
      `SELECT d.file_path, ${PAGE_CONTENT.markdown} AS markdown ${PAGE_CONTENT.from}
        WHERE d.collection = $1 AND d.version = $2 AND ${PAGE_CONTENT.markdown} IS NOT NULL`,
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

/** Rows per multi-row insert. */
const INSERT_BATCH = 200;

/** A statement and its parameters (`$1`, `$2`, …). */
interface Statement {
  sql: string;
  params: LiteralValue[];
}

/**
 * Runs the statements in order in `tx`: as one text with their values written in where the
 * database takes a text of statements (PGlite: one call instead of several per statement, and no
 * parameter encoded character by character), else one by one with their parameters.
 */
async function runStatements(tx: SqlQueryable, statements: Statement[]): Promise<void> {
  if (tx.script) {
    await tx.script(
      statements.map((statement) => withLiterals(statement.sql, statement.params)).join(";\n"),
    );
    return;
  }
  for (const statement of statements) await tx.query(statement.sql, statement.params);
}

/** A page's HTML and Markdown, shared or (stored before content was shared) its own; `d` is the page. */
const PAGE_CONTENT = {
  html: "CASE WHEN d.content_key IS NULL THEN d.html ELSE p.html END",
  markdown: "CASE WHEN d.content_key IS NULL THEN d.markdown ELSE p.markdown END",
  from: `FROM documents d
  LEFT JOIN page_contents p ON p.collection = d.collection AND p.content_key = d.content_key`,
};

/** A chunk's text, shared or its own, for queries over `chunks c` that join `SHARED_TEXT_JOIN`. */
export const SHARED_TEXT = "COALESCE(s.text, c.text)";
export const SHARED_TEXT_JOIN =
  "LEFT JOIN chunk_contents s ON s.collection = c.collection AND s.content_key = c.content_key";

/**
 * A chunk's columns, its text and blocks read from its shared content (chunks stored before
 * content was shared hold their own), and the FROM clause that joins them (`c` is the chunk).
 */
const CHUNK_COLUMNS = `c.id, c.collection, c.version, c.file_path, c.chunk_index, c.total_chunks, c.title,
       c.section, c.heading_path, c.url, c.tags, COALESCE(s.text, c.text) AS text, c.content_hash,
       c.token_count, c.search_text, c.section_anchors, COALESCE(s.blocks, c.blocks::text) AS blocks
  FROM chunks c ${SHARED_TEXT_JOIN}`;

/** The key of content stored once however many pages or chunks hold it: a hash of its parts. */
function contentKey(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32);
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
