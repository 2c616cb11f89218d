import type { ChunkDetails } from "@lectern/engine/book/vectors";
import { SHARED_TEXT, SHARED_TEXT_JOIN } from "./document-store.ts";
import type { SqlClient } from "./sql-client.ts";
import { type EmbeddingBacklog, embeddingText, type PendingChunk } from "./vector-index.ts";

export type { ChunkDetails };

/**
 * The backlog of an engine that keeps vectors outside the database (Qdrant): a row in
 * `external_vectors` per chunk whose vector the engine holds, under the engine's `target` (its
 * collection name). Chunks removed or replaced by an ingest lose their row with them (ON DELETE
 * CASCADE), so they come back as pending; the engine's own points are deleted by the sync.
 */
export class ExternalVectorBacklog implements EmbeddingBacklog {
  constructor(
    private readonly db: SqlClient,
    readonly target: string,
    readonly collection = "default",
    readonly version = "",
  ) {}

  async pendingChunks(limit: number): Promise<PendingChunk[]> {
    const rows = await this.db.query<{ id: string; heading_path: unknown; text: string }>(
      `SELECT c.id, c.heading_path, ${SHARED_TEXT} AS text FROM chunks c ${SHARED_TEXT_JOIN}
         LEFT JOIN external_vectors e ON e.chunk_id = c.id AND e.target = $3
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL
        ORDER BY c.file_path, c.chunk_index LIMIT $4`,
      [this.collection, this.version, this.target, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      text: embeddingText(headingsOf(row.heading_path), row.text),
    }));
  }

  async countPending(): Promise<number> {
    const rows = await this.db.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM chunks c
         LEFT JOIN external_vectors e ON e.chunk_id = c.id AND e.target = $3
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL`,
      [this.collection, this.version, this.target],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async markEmbedded(chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0) return;
    // Only chunks still in the store are marked: one removed meanwhile has nothing to point at.
    await this.db.query(
      `INSERT INTO external_vectors (chunk_id, target, collection, version)
       SELECT id, $2, collection, version FROM chunks
        WHERE id = ANY($1::text[]) AND collection = $3 AND version = $4
       ON CONFLICT (chunk_id, target) DO NOTHING`,
      [chunkIds, this.target, this.collection, this.version],
    );
  }

  /** Puts these chunks back on the backlog (their vectors were deleted from the engine). */
  async unmark(chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0) return;
    await this.db.query(
      "DELETE FROM external_vectors WHERE target = $1 AND chunk_id = ANY($2::text[])",
      [this.target, chunkIds],
    );
  }

  /** Puts every chunk of the collection and version back on the backlog. */
  async clear(): Promise<void> {
    await this.db.query(
      "DELETE FROM external_vectors WHERE target = $1 AND collection = $2 AND version = $3",
      [this.target, this.collection, this.version],
    );
  }

  /** The stored chunks among these ids (unknown ids are left out). */
  async chunkDetails(chunkIds: string[]): Promise<Map<string, ChunkDetails>> {
    if (chunkIds.length === 0) return new Map();
    const rows = await this.db.query<{
      id: string;
      title: string;
      heading_path: unknown;
      url: string;
      text: string;
      tags: unknown;
      search_text: string | null;
    }>(
      `SELECT c.id, c.title, c.heading_path, c.url, ${SHARED_TEXT} AS text, c.tags, c.search_text
         FROM chunks c ${SHARED_TEXT_JOIN}
        WHERE c.id = ANY($1::text[]) AND c.collection = $2 AND c.version = $3`,
      [chunkIds, this.collection, this.version],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          title: row.title,
          headingPath: headingsOf(row.heading_path),
          url: row.url,
          text: row.text,
          tags: headingsOf(row.tags),
          searchText: row.search_text ?? "",
        },
      ]),
    );
  }
}

/** A JSONB list of strings, parsed by the driver or not. */
function headingsOf(value: unknown): string[] {
  return typeof value === "string" ? (JSON.parse(value) as string[]) : (value as string[]);
}
