import { createHash } from "node:crypto";
import type { SparseHit, SparseVector } from "@lectern/engine/book/vectors";
import { createError, isLecternError } from "@lectern/engine/errors";
import { cutText } from "@lectern/engine/util/cut-text";
import type { QdrantClient, Schemas } from "@qdrant/js-client-rest";
import type { ChunkDetails, ExternalVectorBacklog } from "./external-backlog.ts";

export type { SparseHit, SparseVector };

import type { ChunkVector, DenseHit, EmbeddingModelInfo, VectorIndex } from "./vector-index.ts";

/**
 * Chunk vectors in Qdrant: one collection per book and version, each point a chunk with a dense
 * vector (`dense`, cosine) and a sparse BM25 vector (`bm25`, Qdrant's IDF modifier: Qdrant keeps
 * the document frequencies and weighs each query term by its idf, so term statistics stay right
 * as the book changes). Payload indexes on the book, version, URL-path prefixes and headings let
 * Qdrant apply Lectern's filters itself. Hybrid search is one Query API call: a dense and a
 * sparse prefetch fused by reciprocal rank fusion on the server.
 *
 * Which chunks have a vector is kept in the SQL store (ExternalVectorBacklog), so an interrupted
 * run resumes and an ingest's removed chunks come back on the backlog; the sync deletes their
 * points (`delete`). The model that filled the collection is recorded in its metadata.
 */

/** Makes the sparse BM25 vector of a chunk (term frequencies, length-normalised). */
export type SparseEncoder = (chunk: ChunkDetails) => SparseVector;

/** Filters applied inside Qdrant (see search/filters.ts for their meaning). */
export interface VectorFilter {
  /** A URL path prefix such as "/docs/ros2" (matched against the chunk's URL path). */
  urlPrefix?: string | undefined;
  /** A heading of the chunk's heading path, compared case-insensitively. */
  section?: string | undefined;
}

export interface HybridQuery {
  embedding: number[];
  sparse: SparseVector;
  limit: number;
  filter?: VectorFilter | undefined;
  /** The RRF constant (Lectern's RRF_K, so the server fuses as the in-process path does). */
  rrfK: number;
}

export interface HybridHit {
  chunkId: string;
  /** The RRF score computed by Qdrant. */
  score: number;
  /** Cosine similarity of the chunk's dense vector to the query, clamped to 0..1. */
  similarity: number;
}

export interface SparseQuery {
  sparse: SparseVector;
  limit: number;
  filter?: VectorFilter | undefined;
}

/**
 * The layout of the stored sparse vectors, recorded in the collection's metadata: 2 stores each
 * term once per field, with the book's average field lengths. A collection of another layout is
 * embedded again (`--reembed`) before it is used.
 */
export const SPARSE_FORMAT = 2;

export const DENSE_VECTOR = "dense";
export const SPARSE_VECTOR = "bm25";

/** Longest URL path whose prefixes are indexed; longer paths are cut (a filter that long is rare). */
const MAX_INDEXED_PATH = 200;

/** Payload fields with a keyword index: what filters and deletes select on. */
const INDEXED_FIELDS = ["book", "version", "url_prefixes", "headings"] as const;

export interface QdrantIndexOptions {
  client: QdrantClient;
  backlog: ExternalVectorBacklog;
  encodeSparse: SparseEncoder;
  /** The Qdrant collection (one per book and version). */
  collectionName: string;
}

export class QdrantIndex implements VectorIndex {
  private readonly client: QdrantClient;
  private readonly backlog: ExternalVectorBacklog;
  private readonly encodeSparse: SparseEncoder;
  readonly collectionName: string;
  private dimensions = 0;

  constructor(options: QdrantIndexOptions) {
    this.client = options.client;
    this.backlog = options.backlog;
    this.encodeSparse = options.encodeSparse;
    this.collectionName = options.collectionName;
  }

  get book(): string {
    return this.backlog.collection;
  }

  get version(): string {
    return this.backlog.version;
  }

  async prepare(model: EmbeddingModelInfo, options: { reembed?: boolean } = {}): Promise<void> {
    const name = this.collectionName;
    const { exists } = await this.call(() => this.client.collectionExists(name));
    if (exists) {
      const info = await this.call(() => this.client.getCollection(name));
      const recorded = recordedModel(info);
      const same =
        recorded !== undefined &&
        recorded.provider === model.provider &&
        recorded.model === model.model &&
        recorded.dimensions === model.dimensions;
      if (!same && !options.reembed) {
        if (!recorded) {
          throw createError(
            "CONFIG_INVALID",
            `The Qdrant collection "${name}" was not created by Lectern. Choose another QDRANT_COLLECTION, or run "lectern ingest --docs <dir> --reembed" to replace it.`,
            { details: { collection: name } },
          );
        }
        throw createError(
          "CONFIG_INVALID",
          `The index was embedded with ${recorded.provider}:${recorded.model} (${recorded.dimensions} dimensions), but the configuration selects ${model.provider}:${model.model} (${model.dimensions} dimensions). Run "lectern ingest --docs <dir> --reembed" to embed the book again with the new model.`,
          { details: { recorded, configured: model } },
        );
      }
      if (same && recordedSparseFormat(info) !== SPARSE_FORMAT && !options.reembed) {
        throw createError(
          "CONFIG_INVALID",
          `The Qdrant collection "${name}" holds BM25 vectors of an older layout. Run "lectern ingest --docs <dir> --reembed" to store them again.`,
          { details: { collection: name } },
        );
      }
      if (same && recordedSparseFormat(info) === SPARSE_FORMAT) {
        this.dimensions = model.dimensions;
        return;
      }
      await this.call(() => this.client.deleteCollection(name));
    }
    try {
      // Through the API object: the client's createCollection() drops `metadata`.
      await this.client.api().createCollection({
        collection_name: name,
        vectors: { [DENSE_VECTOR]: { size: model.dimensions, distance: "Cosine" } },
        sparse_vectors: { [SPARSE_VECTOR]: { modifier: "idf" } },
        metadata: { lectern_model: { ...model }, lectern_sparse: SPARSE_FORMAT },
      });
    } catch (error) {
      // Another instance starting at the same time created it first: check what it recorded.
      if ((error as { status?: unknown }).status === 409 && !options.reembed)
        return this.prepare(model, options);
      throw qdrantError(error);
    }
    for (const field of INDEXED_FIELDS) {
      await this.call(() =>
        this.client.createPayloadIndex(name, {
          field_name: field,
          field_schema: "keyword",
          wait: true,
        }),
      );
    }
    // A new collection holds nothing, whatever the store remembers of an earlier one.
    await this.backlog.clear();
    this.dimensions = model.dimensions;
  }

  /** One batch in one upsert: Qdrant checks the whole batch before storing any of it. */
  async upsert(vectors: ChunkVector[]): Promise<void> {
    if (vectors.length === 0) return;
    const dimensions = this.requirePrepared();
    for (const { embedding } of vectors) {
      if (embedding.length !== dimensions) {
        throw createError(
          "CONFIG_INVALID",
          `The embedding model returned ${embedding.length} dimensions, expected ${dimensions}.`,
        );
      }
    }
    const details = await this.backlog.chunkDetails(vectors.map((vector) => vector.chunkId));
    const points: Schemas["PointStruct"][] = [];
    for (const { chunkId, embedding } of vectors) {
      const chunk = details.get(chunkId);
      // A chunk removed since it was read from the backlog has nothing left to index.
      if (!chunk) continue;
      const sparse = this.encodeSparse(chunk);
      points.push({
        id: pointIdOf(chunkId),
        vector: {
          [DENSE_VECTOR]: embedding.map((value) => (Number.isFinite(value) ? value : 0)),
          [SPARSE_VECTOR]: sparse,
        },
        payload: {
          chunk_id: chunkId,
          book: this.book,
          version: this.version,
          url_prefixes: urlPrefixes(chunk.url),
          headings: [...new Set(chunk.headingPath.map((heading) => heading.trim().toLowerCase()))],
        },
      });
    }
    if (points.length === 0) return;
    await this.call(() => this.client.upsert(this.collectionName, { wait: true, points }));
    // As with pgvector, a stored vector takes its chunk off the backlog.
    await this.backlog.markEmbedded(points.map((point) => String(point.payload?.chunk_id)));
  }

  async search(embedding: number[], limit: number): Promise<DenseHit[]> {
    this.requirePrepared();
    const response = await this.call(() =>
      this.client.query(this.collectionName, {
        query: embedding,
        using: DENSE_VECTOR,
        filter: this.scopeFilter(),
        limit,
        with_payload: ["chunk_id"],
      }),
    );
    return response.points.map((point) => ({
      chunkId: chunkIdOf(point),
      similarity: clamp(point.score),
    }));
  }

  /**
   * Dense and sparse (BM25) search fused by RRF in Qdrant, with the filters applied by Qdrant to
   * both. The dense vectors come back with the points, so the cosine similarity of each fused
   * result is known without a second query.
   */
  async searchHybrid(query: HybridQuery): Promise<HybridHit[]> {
    this.requirePrepared();
    const filter = this.scopeFilter(query.filter);
    const prefetch: Schemas["Prefetch"][] = [
      { query: query.embedding, using: DENSE_VECTOR, filter, limit: query.limit },
    ];
    if (query.sparse.indices.length > 0) {
      prefetch.push({ query: query.sparse, using: SPARSE_VECTOR, filter, limit: query.limit });
    }
    const response = await this.call(() =>
      this.client.query(this.collectionName, {
        prefetch,
        query: { rrf: { k: query.rrfK } },
        filter,
        limit: query.limit,
        with_payload: ["chunk_id"],
        with_vector: [DENSE_VECTOR],
      }),
    );
    const unit = normalise(query.embedding);
    return response.points.map((point) => ({
      chunkId: chunkIdOf(point),
      score: point.score,
      similarity: clamp(dot(unit, normalise(denseOf(point)))),
    }));
  }

  /**
   * The BM25 ranking alone: the sparse query, filtered in Qdrant, with each point's sparse ids so
   * the caller knows which of the question's terms it matched.
   */
  async searchSparse(query: SparseQuery): Promise<SparseHit[]> {
    this.requirePrepared();
    if (query.sparse.indices.length === 0) return [];
    const response = await this.call(() =>
      this.client.query(this.collectionName, {
        query: query.sparse,
        using: SPARSE_VECTOR,
        filter: this.scopeFilter(query.filter),
        limit: query.limit,
        with_payload: ["chunk_id"],
        with_vector: [SPARSE_VECTOR],
      }),
    );
    return response.points.map((point) => ({
      chunkId: chunkIdOf(point),
      score: point.score,
      indices: sparseOf(point).indices,
    }));
  }

  async delete(chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0) return;
    this.requirePrepared();
    // Batches keep each request small when an ingest removes a large part of the book.
    for (let start = 0; start < chunkIds.length; start += 1_000) {
      const batch = chunkIds.slice(start, start + 1_000);
      await this.call(() =>
        this.client.delete(this.collectionName, { wait: true, points: batch.map(pointIdOf) }),
      );
      await this.backlog.unmark(batch);
    }
  }

  async deleteAll(): Promise<void> {
    this.requirePrepared();
    await this.call(() =>
      this.client.delete(this.collectionName, { wait: true, filter: this.scopeFilter() }),
    );
    await this.backlog.clear();
  }

  async count(): Promise<number> {
    this.requirePrepared();
    const result = await this.call(() =>
      this.client.count(this.collectionName, { filter: this.scopeFilter(), exact: true }),
    );
    return result.count;
  }

  /** The book and version (the collection may be shared when QDRANT_COLLECTION names it), plus filters. */
  private scopeFilter(filter?: VectorFilter): Schemas["Filter"] {
    const must: Schemas["FieldCondition"][] = [{ key: "book", match: { value: this.book } }];
    // A book without docs versions has version "": its collection holds no other version.
    if (this.version) must.push({ key: "version", match: { value: this.version } });
    const prefix = filter?.urlPrefix?.trim();
    if (prefix) must.push({ key: "url_prefixes", match: { value: prefixKey(prefix) } });
    const section = filter?.section?.trim().toLowerCase();
    if (section) must.push({ key: "headings", match: { value: section } });
    return { must };
  }

  private requirePrepared(): number {
    if (this.dimensions <= 0) throw new Error("QdrantIndex.prepare() must run first");
    return this.dimensions;
  }

  /** Runs one Qdrant call; a failure becomes a Lectern error with a stable code. */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw qdrantError(error);
    }
  }
}

/** Qdrant point ids are unsigned integers or UUIDs: a chunk id maps to a UUID derived from it. */
export function pointIdOf(chunkId: string): string {
  const hex = createHash("sha256").update(chunkId).digest("hex");
  // Version 8 ("custom") and the RFC 4122 variant bits, so the result is a well-formed UUID.
  const version = `8${hex.slice(13, 16)}`;
  const variant = ((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80)
    .toString(16)
    .padStart(2, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Every prefix of the chunk's URL path (fragment dropped): a prefix filter is then one exact
 * keyword match in Qdrant. Paths of docs pages are short, so the list stays small.
 */
export function urlPrefixes(url: string): string[] {
  const path = prefixKey(url.startsWith("/") ? url : pathOf(url));
  const prefixes = new Set<string>();
  // A prefix never ends inside a surrogate pair: Qdrant's JSON cannot hold half of one.
  for (let length = 1; length <= path.length; length++) prefixes.add(cutText(path, length));
  prefixes.delete("");
  return [...prefixes];
}

/** The form a prefix is indexed and matched in: the path without its fragment or query. */
function prefixKey(prefix: string): string {
  return cutText((prefix.split("#")[0] ?? prefix).split("?")[0] ?? prefix, MAX_INDEXED_PATH);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function recordedModel(info: Schemas["CollectionInfo"]): EmbeddingModelInfo | undefined {
  const recorded = (info.config.metadata as Record<string, unknown> | null | undefined)
    ?.lectern_model as Partial<EmbeddingModelInfo> | undefined;
  if (
    !recorded ||
    typeof recorded.provider !== "string" ||
    typeof recorded.model !== "string" ||
    typeof recorded.dimensions !== "number"
  )
    return undefined;
  return { provider: recorded.provider, model: recorded.model, dimensions: recorded.dimensions };
}

function recordedSparseFormat(info: Schemas["CollectionInfo"]): unknown {
  return (info.config.metadata as Record<string, unknown> | null | undefined)?.lectern_sparse;
}

function sparseOf(point: Schemas["ScoredPoint"]): SparseVector {
  const vector = point.vector as Record<string, unknown> | null | undefined;
  const sparse = vector?.[SPARSE_VECTOR] as Partial<SparseVector> | undefined;
  return {
    indices: Array.isArray(sparse?.indices) ? sparse.indices : [],
    values: Array.isArray(sparse?.values) ? sparse.values : [],
  };
}

function chunkIdOf(point: Schemas["ScoredPoint"]): string {
  const chunkId = (point.payload as Record<string, unknown> | null | undefined)?.chunk_id;
  if (typeof chunkId !== "string") {
    throw createError("QDRANT_UNAVAILABLE", "Qdrant returned a point without its chunk id.", {
      details: { point: String(point.id) },
    });
  }
  return chunkId;
}

function denseOf(point: Schemas["ScoredPoint"]): number[] {
  const vector = point.vector as Record<string, unknown> | null | undefined;
  const dense = vector?.[DENSE_VECTOR];
  return Array.isArray(dense) ? (dense as number[]) : [];
}

function normalise(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

function dot(left: number[], right: number[]): number {
  let total = 0;
  for (let position = 0; position < left.length; position++)
    total += (left[position] ?? 0) * (right[position] ?? 0);
  return total;
}

function clamp(similarity: number): number {
  return Math.min(1, Math.max(0, similarity));
}

/**
 * A rejected API key is a configuration problem; anything else (refused connection, timeout, a
 * 5xx or a refused request) means the vector database cannot serve now.
 */
export function qdrantError(error: unknown): Error {
  if (isLecternError(error)) return error;
  const status = (error as { status?: unknown }).status;
  const reason =
    (error as { data?: { status?: { error?: unknown } } }).data?.status?.error ??
    (error instanceof Error ? error.message.split("\n")[0] : String(error));
  if (status === 401 || status === 403) {
    return createError("CONFIG_INVALID", "Qdrant refused the API key: check QDRANT_API_KEY.", {
      details: { status },
      cause: error,
    });
  }
  return createError("QDRANT_UNAVAILABLE", `Qdrant did not answer as expected: ${String(reason)}`, {
    details: typeof status === "number" ? { status } : {},
    cause: error,
    retryAfterSeconds: 5,
  });
}

/**
 * The Qdrant client is an optional peer dependency (it brings TypeScript along as a peer of its
 * own), so an install that does not use Qdrant stays small; choosing Qdrant without it says what
 * to install.
 */
async function loadQdrantClient(): Promise<typeof import("@qdrant/js-client-rest")> {
  try {
    return await import("@qdrant/js-client-rest");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw createError(
      "CONFIG_INVALID",
      "VECTOR_BACKEND=qdrant needs @qdrant/js-client-rest, which is not installed. Install it beside Lectern: npm install @qdrant/js-client-rest@1.18.0",
      { details: { variable: "VECTOR_BACKEND" }, cause: error },
    );
  }
}

/** A REST client for Qdrant at `url`; a bad URL is CONFIG_INVALID naming QDRANT_URL. */
export async function createQdrantClient(options: {
  url: string;
  apiKey?: string | undefined;
  timeoutMs?: number;
}): Promise<QdrantClient> {
  const { QdrantClient } = await loadQdrantClient();
  try {
    return new QdrantClient({
      url: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: options.timeoutMs ?? 30_000,
      // The client would only log a warning; prepare() reports an unreachable server itself.
      checkCompatibility: false,
    });
  } catch (error) {
    throw createError(
      "CONFIG_INVALID",
      `QDRANT_URL must be an http:// or https:// URL: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      { details: { variable: "QDRANT_URL" }, cause: error },
    );
  }
}
