import { createError } from "@lectern/engine/errors";
import { SHARED_TEXT, SHARED_TEXT_JOIN } from "./document-store.ts";
import type { SqlClient } from "./sql-client.ts";
import {
  type ChunkVector,
  type DenseHit,
  type EmbeddingBacklog,
  type EmbeddingModelInfo,
  embeddingText,
  type PendingChunk,
  type VectorIndex,
} from "./vector-index.ts";

/**
 * Chunk embeddings in pgvector (PGlite or PostgreSQL) with an HNSW cosine index. The table's
 * dimension follows the embedding model, so it is created here rather than by a migration, and
 * the model that filled it is recorded: a different model or dimension later must not mix with it.
 */
export class PgvectorIndex implements VectorIndex {
  constructor(
    private readonly db: SqlClient,
    readonly collection = "default",
    readonly version = "",
  ) {}

  /** Creates the extension and tables, records the model, and refuses a different one. */
  async prepare(model: EmbeddingModelInfo, options: { reembed?: boolean } = {}): Promise<void> {
    try {
      await this.db.query("CREATE EXTENSION IF NOT EXISTS vector");
    } catch (error) {
      throw createError(
        "CONFIG_INVALID",
        "Dense retrieval needs the pgvector extension, which this PostgreSQL does not have. Install pgvector or set EMBEDDINGS_PROVIDER=none.",
        { cause: error },
      );
    }
    await this.db.query(`CREATE TABLE IF NOT EXISTS embedding_models (
        collection TEXT NOT NULL, version TEXT NOT NULL DEFAULT '', provider TEXT NOT NULL, model TEXT NOT NULL,
        dimensions INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (collection, version))`);
    const rows = await this.db.query<{ provider: string; model: string; dimensions: number }>(
      "SELECT provider, model, dimensions FROM embedding_models WHERE collection = $1 AND version = $2",
      [this.collection, this.version],
    );
    const recorded = rows[0];
    const same =
      recorded &&
      recorded.provider === model.provider &&
      recorded.model === model.model &&
      recorded.dimensions === model.dimensions;
    if (recorded && !same && !options.reembed) {
      throw createError(
        "CONFIG_INVALID",
        `The index was embedded with ${recorded.provider}:${recorded.model} (${recorded.dimensions} dimensions), but the configuration selects ${model.provider}:${model.model} (${model.dimensions} dimensions). Run "lectern ingest --docs <dir> --reembed" to embed the book again with the new model.`,
        { details: { recorded, configured: model } },
      );
    }
    const table = this.table(model.dimensions);
    await this.db.transaction(async (tx) => {
      if (recorded && !same) {
        await tx.query(`DROP TABLE IF EXISTS ${this.table(recorded.dimensions)}`);
      }
      await tx.query(`CREATE TABLE IF NOT EXISTS ${table} (
          chunk_id TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
          collection TEXT NOT NULL, version TEXT NOT NULL DEFAULT '', embedding vector(${model.dimensions}) NOT NULL)`);
      await tx.query(
        `CREATE INDEX IF NOT EXISTS ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops)`,
      );
      await tx.query(
        `CREATE INDEX IF NOT EXISTS ${table}_collection ON ${table} (collection, version)`,
      );
      await tx.query(
        `INSERT INTO embedding_models (collection, version, provider, model, dimensions) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (collection, version) DO UPDATE SET provider = $3, model = $4, dimensions = $5, updated_at = now()`,
        [this.collection, this.version, model.provider, model.model, model.dimensions],
      );
    });
    this.dimensions = model.dimensions;
  }

  private dimensions = 0;

  /** The table holding this model's vectors (one per dimension). */
  table(dimensions = this.dimensions): string {
    if (!Number.isInteger(dimensions) || dimensions <= 0)
      throw new Error("PgvectorIndex.prepare() must run first");
    return `chunk_embeddings_${dimensions}`;
  }

  /** One batch in one transaction, so an interrupted run keeps every finished batch. */
  async upsert(vectors: ChunkVector[]): Promise<void> {
    if (vectors.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const { chunkId, embedding } of vectors) {
        if (embedding.length !== this.dimensions) {
          throw createError(
            "CONFIG_INVALID",
            `The embedding model returned ${embedding.length} dimensions, expected ${this.dimensions}.`,
          );
        }
        await tx.query(
          `INSERT INTO ${this.table()} (chunk_id, collection, version, embedding) VALUES ($1, $2, $3, $4::vector)
           ON CONFLICT (chunk_id) DO UPDATE SET embedding = EXCLUDED.embedding`,
          [chunkId, this.collection, this.version, toVectorLiteral(embedding)],
        );
      }
    });
  }

  async delete(chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0) return;
    await this.db.query(
      `DELETE FROM ${this.table()} WHERE collection = $1 AND version = $2 AND chunk_id = ANY($3::text[])`,
      [this.collection, this.version, chunkIds],
    );
  }

  async deleteAll(): Promise<void> {
    await this.db.query(`DELETE FROM ${this.table()} WHERE collection = $1 AND version = $2`, [
      this.collection,
      this.version,
    ]);
  }

  async count(): Promise<number> {
    const rows = await this.db.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM ${this.table()} WHERE collection = $1 AND version = $2`,
      [this.collection, this.version],
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** The nearest chunks by cosine similarity (HNSW). */
  async search(embedding: number[], limit: number): Promise<DenseHit[]> {
    const rows = await this.db.query<{ chunk_id: string; similarity: number }>(
      `SELECT chunk_id, 1 - (embedding <=> $1::vector) AS similarity FROM ${this.table()}
        WHERE collection = $2 AND version = $3 ORDER BY embedding <=> $1::vector LIMIT $4`,
      [toVectorLiteral(embedding), this.collection, this.version, limit],
    );
    return rows.map((row) => ({
      chunkId: row.chunk_id,
      similarity: Math.min(1, Math.max(0, Number(row.similarity))),
    }));
  }
}

/**
 * What still needs embedding when the vectors live in pgvector: the chunks of the collection with
 * no row in the index's table. Upserting a vector is what takes a chunk off the backlog.
 */
export class PgvectorBacklog implements EmbeddingBacklog {
  constructor(
    private readonly db: SqlClient,
    private readonly index: PgvectorIndex,
  ) {}

  async pendingChunks(limit: number): Promise<PendingChunk[]> {
    const rows = await this.db.query<{
      id: string;
      heading_path: string[] | string;
      text: string;
    }>(
      `SELECT c.id, c.heading_path, ${SHARED_TEXT} AS text FROM chunks c ${SHARED_TEXT_JOIN}
         LEFT JOIN ${this.index.table()} e ON e.chunk_id = c.id
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL
        ORDER BY c.file_path, c.chunk_index LIMIT $3`,
      [this.index.collection, this.index.version, limit],
    );
    return rows.map((row) => {
      const headings =
        typeof row.heading_path === "string"
          ? (JSON.parse(row.heading_path) as string[])
          : row.heading_path;
      return { id: row.id, text: embeddingText(headings, row.text) };
    });
  }

  async countPending(): Promise<number> {
    const rows = await this.db.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM chunks c LEFT JOIN ${this.index.table()} e ON e.chunk_id = c.id
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL`,
      [this.index.collection, this.index.version],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async markEmbedded(): Promise<void> {
    // The vector's row in the index's table is the mark.
  }
}

export function toVectorLiteral(values: number[]): string {
  return `[${values.map((value) => (Number.isFinite(value) ? value : 0)).join(",")}]`;
}
