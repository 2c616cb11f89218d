import { createError } from "../errors.ts";
import type { SqlClient } from "./sql-client.ts";

/**
 * Chunk embeddings in pgvector (PGlite or PostgreSQL) with an HNSW cosine index. The table's
 * dimension follows the embedding model, so it is created here rather than by a migration, and
 * the model that filled it is recorded: a different model or dimension later must not mix with it.
 */

export interface EmbeddingModelInfo {
  provider: string;
  model: string;
  dimensions: number;
}

export interface DenseHit {
  chunkId: string;
  /** Cosine similarity clamped to 0..1. */
  similarity: number;
}

export class VectorStore {
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

  private table(dimensions = this.dimensions): string {
    if (!Number.isInteger(dimensions) || dimensions <= 0)
      throw new Error("VectorStore.prepare() must run first");
    return `chunk_embeddings_${dimensions}`;
  }

  /** Chunks of the collection that have no embedding yet (new, changed, or left by an interrupted run). */
  async pendingChunks(limit: number): Promise<{ id: string; text: string }[]> {
    const rows = await this.db.query<{
      id: string;
      title: string;
      heading_path: string[] | string;
      text: string;
    }>(
      `SELECT c.id, c.title, c.heading_path, c.text FROM chunks c
         LEFT JOIN ${this.table()} e ON e.chunk_id = c.id
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL
        ORDER BY c.file_path, c.chunk_index LIMIT $3`,
      [this.collection, this.version, limit],
    );
    return rows.map((row) => {
      const headings =
        typeof row.heading_path === "string"
          ? (JSON.parse(row.heading_path) as string[])
          : row.heading_path;
      // The headings say what a passage is about; they are embedded with its text.
      return { id: row.id, text: `${headings.join(" › ")}\n\n${row.text}` };
    });
  }

  async countPending(): Promise<number> {
    const rows = await this.db.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM chunks c LEFT JOIN ${this.table()} e ON e.chunk_id = c.id
        WHERE c.collection = $1 AND c.version = $2 AND e.chunk_id IS NULL`,
      [this.collection, this.version],
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Stores one batch in one transaction, so an interrupted run keeps every finished batch. */
  async store(vectors: { chunkId: string; embedding: number[] }[]): Promise<void> {
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

export function toVectorLiteral(values: number[]): string {
  return `[${values.map((value) => (Number.isFinite(value) ? value : 0)).join(",")}]`;
}
