import type { SqlClient } from "./sql-client.ts";

/**
 * Schema migrations, run from code at start-up (the same SQL runs on PGlite and PostgreSQL).
 * Append new migrations; never edit one that has shipped.
 */
export const MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "documents and chunks",
    sql: `
      CREATE TABLE documents (
        collection   TEXT NOT NULL,
        version      TEXT NOT NULL DEFAULT '',
        file_path    TEXT NOT NULL,
        title        TEXT NOT NULL,
        url          TEXT NOT NULL,
        source_hash  TEXT NOT NULL,
        tags         JSONB NOT NULL DEFAULT '[]',
        metadata     JSONB NOT NULL DEFAULT '{}',
        chunk_count  INTEGER NOT NULL,
        updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (collection, version, file_path)
      );
      CREATE TABLE chunks (
        id            TEXT PRIMARY KEY,
        collection    TEXT NOT NULL,
        version       TEXT NOT NULL DEFAULT '',
        file_path     TEXT NOT NULL,
        chunk_index   INTEGER NOT NULL CHECK (chunk_index >= 0),
        total_chunks  INTEGER NOT NULL CHECK (total_chunks >= 1),
        title         TEXT NOT NULL,
        section       TEXT NOT NULL,
        heading_path  JSONB NOT NULL,
        url           TEXT NOT NULL,
        tags          JSONB NOT NULL DEFAULT '[]',
        text          TEXT NOT NULL,
        content_hash  TEXT NOT NULL,
        token_count   INTEGER NOT NULL,
        CHECK (chunk_index < total_chunks),
        FOREIGN KEY (collection, version, file_path)
          REFERENCES documents (collection, version, file_path) ON DELETE CASCADE
      );
      CREATE INDEX chunks_document_idx ON chunks (collection, version, file_path, chunk_index);
      CREATE TABLE index_state (
        collection     TEXT NOT NULL,
        version        TEXT NOT NULL DEFAULT '',
        index_version  BIGINT NOT NULL DEFAULT 0,
        settings_hash  TEXT NOT NULL DEFAULT '',
        updated_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (collection, version)
      );
    `,
  },
  {
    version: 2,
    name: "sessions and conversations",
    sql: `
      CREATE TABLE sessions (
        session_id   UUID PRIMARY KEY,
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        last_active  TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_last_active_idx ON sessions (last_active);
      CREATE TABLE conversations (
        id             BIGSERIAL PRIMARY KEY,
        session_id     UUID NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
        request_id     UUID NOT NULL,
        "timestamp"    TIMESTAMPTZ NOT NULL DEFAULT now(),
        query          TEXT NOT NULL,
        response       TEXT NOT NULL,
        selected_text  TEXT,
        sources        JSONB NOT NULL DEFAULT '[]',
        metadata       JSONB NOT NULL DEFAULT '{}'
      );
      CREATE INDEX conversations_session_idx ON conversations (session_id, id);
    `,
  },
  {
    version: 3,
    name: "rendered page HTML for the demo book site",
    sql: `ALTER TABLE documents ADD COLUMN IF NOT EXISTS html TEXT`,
  },
  {
    version: 4,
    name: "reader feedback on answers",
    sql: `
      CREATE TABLE IF NOT EXISTS feedback (
        id          BIGSERIAL PRIMARY KEY,
        session_id  UUID NOT NULL,
        message_id  TEXT NOT NULL,
        rating      TEXT NOT NULL CHECK (rating IN ('up', 'down')),
        comment     TEXT,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (session_id, message_id)
      );
      CREATE INDEX IF NOT EXISTS feedback_created_idx ON feedback (created_at);
    `,
  },
  {
    version: 5,
    name: "chunk search text from the page's frontmatter",
    sql: `ALTER TABLE chunks ADD COLUMN IF NOT EXISTS search_text TEXT NOT NULL DEFAULT ''`,
  },
  {
    version: 6,
    name: "which book a collection holds, and its title",
    sql: `
      CREATE TABLE IF NOT EXISTS books (
        collection  TEXT PRIMARY KEY,
        docs_path   TEXT NOT NULL,
        title       TEXT,
        updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      )
    `,
  },
  {
    version: 7,
    name: "shared answers",
    sql: `
      CREATE TABLE IF NOT EXISTS shares (
        id          TEXT PRIMARY KEY,
        session_id  TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        query       TEXT NOT NULL,
        response    TEXT NOT NULL,
        sources     JSONB NOT NULL,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS shares_session_idx ON shares (session_id);
    `,
  },
  {
    version: 8,
    name: "server-assigned message ids for exchanges",
    // Earlier exchanges were rated by their request id, which a client could repeat: the first
    // exchange of each repeated id keeps it (so its feedback still points at it), the others get
    // a new one.
    sql: `
      ALTER TABLE conversations ADD COLUMN IF NOT EXISTS message_id UUID;
      UPDATE conversations SET message_id = request_id
       WHERE message_id IS NULL
         AND id IN (SELECT min(id) FROM conversations GROUP BY session_id, request_id);
      UPDATE conversations SET message_id = gen_random_uuid() WHERE message_id IS NULL;
      ALTER TABLE conversations ALTER COLUMN message_id SET NOT NULL;
      CREATE UNIQUE INDEX IF NOT EXISTS conversations_message_idx ON conversations (session_id, message_id);
    `,
  },
  {
    version: 9,
    name: "chunks whose vectors are stored in an engine outside the database (Qdrant)",
    sql: `
      CREATE TABLE IF NOT EXISTS external_vectors (
        chunk_id    TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        target      TEXT NOT NULL,
        collection  TEXT NOT NULL,
        version     TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (chunk_id, target)
      );
      CREATE INDEX IF NOT EXISTS external_vectors_scope_idx ON external_vectors (target, collection, version)
    `,
  },
  {
    version: 10,
    name: "question log for authors' insights",
    // Questions are stored redacted; `cited` keeps each cited chunk's content hash, so an answer
    // whose passages changed since can be found. Feedback joins on (session_id, message_id).
    sql: `
      CREATE TABLE IF NOT EXISTS question_log (
        id              BIGSERIAL PRIMARY KEY,
        collection      TEXT NOT NULL,
        asked_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
        session_id      TEXT NOT NULL,
        message_id      TEXT,
        question        TEXT NOT NULL,
        selected_text   TEXT,
        mode            TEXT NOT NULL,
        low_confidence  BOOLEAN NOT NULL,
        top_score       DOUBLE PRECISION,
        unknown_words   JSONB NOT NULL DEFAULT '[]',
        cited           JSONB NOT NULL DEFAULT '[]'
      );
      CREATE INDEX IF NOT EXISTS question_log_asked_idx ON question_log (collection, asked_at);
      CREATE INDEX IF NOT EXISTS question_log_message_idx ON question_log (session_id, message_id);
    `,
  },
  {
    version: 11,
    name: "each page as Markdown, for agents and llms.txt",
    sql: `ALTER TABLE documents ADD COLUMN IF NOT EXISTS markdown TEXT`,
  },
  {
    // An exchange's row (its sources' snippets, the answer, the metadata) is usually 2–4 kB, over
    // the default 2 kB at which PostgreSQL compresses a row's large values (pglz) or moves them
    // out of line. On PGlite that compression ran on the server's thread for most exchanges and
    // was about a sixth of each history write's CPU. Rows up to a page now stay whole and
    // uncompressed (larger on disk, ~2.8 kB of sources instead of ~1.6 kB); larger ones are
    // still compressed. Only rows written from now on are affected; no table is rewritten.
    version: 12,
    name: "exchanges stored uncompressed up to a page",
    sql: `ALTER TABLE conversations SET (toast_tuple_target = 8160)`,
  },
  {
    // No query reads the question log by (session_id, message_id): the insights report joins each
    // logged question to the feedback table's key, not the other way round. The index only cost
    // an entry per answered question on the serving thread.
    version: 13,
    name: "question log without its unused message index",
    sql: `DROP INDEX IF EXISTS question_log_message_idx`,
  },
  {
    // A chunk packs small sections together: a quote from one of them links to its anchor.
    version: 14,
    name: "anchors of the sections merged into a chunk",
    sql: `ALTER TABLE chunks ADD COLUMN IF NOT EXISTS section_anchors JSONB NOT NULL DEFAULT '[]'`,
  },
  {
    // No longer written or read (the answer found no use for it); kept for servers of the version
    // before during a rolling upgrade.
    version: 15,
    name: "terms a chunk sets in bold",
    sql: `ALTER TABLE chunks ADD COLUMN IF NOT EXISTS bold_terms JSONB NOT NULL DEFAULT '[]'`,
  },
  {
    version: 16,
    name: "sessions that were ended",
    sql: "ALTER TABLE sessions ADD COLUMN ended_at TIMESTAMPTZ;",
  },
  {
    // A chunk's blocks are read once, at ingest; chunks stored before keep NULL, and are read from
    // their text when they are loaded (document-store.ts).
    version: 17,
    name: "each chunk's blocks",
    sql: "ALTER TABLE chunks ADD COLUMN IF NOT EXISTS blocks JSONB",
  },
  {
    // The docs versions of a versioned site (which files and URLs each one holds); NULL for a
    // book without versions.
    version: 18,
    name: "the book's docs versions",
    sql: "ALTER TABLE books ADD COLUMN IF NOT EXISTS versions JSONB",
  },
  {
    // The locales of a translated site (which files and URL prefix each one has); NULL for an
    // untranslated book.
    version: 19,
    name: "the book's locales",
    sql: "ALTER TABLE books ADD COLUMN IF NOT EXISTS locales JSONB",
  },
  {
    // The docs version and locale each logged question was answered in; NULL for a book without.
    version: 20,
    name: "the question log's version and locale",
    sql: `ALTER TABLE question_log ADD COLUMN IF NOT EXISTS version TEXT,
                                  ADD COLUMN IF NOT EXISTS locale TEXT`,
  },
  {
    // A page that two docs versions or locales hold alike (most of a versioned site's pages) is
    // stored once: each chunk's text and blocks, and each page's HTML and Markdown, live in a row
    // keyed by a hash of that content, which every document and chunk holding it points at. The
    // rows keep what is theirs (file path, URL, title, headings). Rows written before keep their
    // content in place (content_key NULL) and are read as they were.
    version: 21,
    name: "content shared by pages and chunks alike",
    sql: `
      CREATE TABLE IF NOT EXISTS chunk_contents (
        collection   TEXT NOT NULL,
        content_key  TEXT NOT NULL,
        text         TEXT NOT NULL,
        blocks       TEXT NOT NULL,
        PRIMARY KEY (collection, content_key)
      );
      CREATE TABLE IF NOT EXISTS page_contents (
        collection   TEXT NOT NULL,
        content_key  TEXT NOT NULL,
        html         TEXT,
        markdown     TEXT,
        PRIMARY KEY (collection, content_key)
      );
      ALTER TABLE chunks ADD COLUMN IF NOT EXISTS content_key TEXT;
      ALTER TABLE documents ADD COLUMN IF NOT EXISTS content_key TEXT
    `,
  },
  {
    // An exchange's sources and metadata are only ever read back whole, by the history store:
    // no query looks inside them. As JSONB, PostgreSQL parsed each exchange's ~5 kB of them into
    // its binary form only to print it back as text on reading, about a fifth of a history
    // write's CPU on PGlite. They are written as JSON text from now on; rows written before keep
    // their JSONB columns and are read from them. Adding nullable columns rewrites no table.
    version: 22,
    name: "exchanges' sources and metadata kept as JSON text",
    sql: `ALTER TABLE conversations ADD COLUMN IF NOT EXISTS sources_text TEXT,
                                ADD COLUMN IF NOT EXISTS metadata_text TEXT`,
  },
];

export async function migrate(db: SqlClient): Promise<void> {
  await db.query(`
    CREATE TABLE IF NOT EXISTS lectern_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
  await db.transaction(async (tx) => {
    // Two servers starting together must not both apply a migration.
    await tx.query("SELECT pg_advisory_xact_lock(7283001)");
    const applied = new Set(
      (await tx.query<{ version: number }>("SELECT version FROM lectern_migrations")).map(
        (row) => row.version,
      ),
    );
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      // One statement per call: PGlite's extended protocol takes a single statement.
      for (const statement of migration.sql.split(/;\s*(?:\n|$)/)) {
        if (statement.trim()) await tx.query(statement);
      }
      await tx.query("INSERT INTO lectern_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
  });
}
