import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Schemas } from "@qdrant/js-client-rest";
import { z } from "zod";

/**
 * A local server speaking Qdrant's REST protocol for exactly the calls Lectern makes: version
 * info, collection exists/get/create/delete, payload index creation, upsert, delete by ids or by
 * filter, count, and the Query API (nearest dense or sparse vector, prefetch + RRF fusion). It
 * holds points in memory and scores them as Qdrant does (cosine on normalised vectors; sparse dot
 * product with the IDF modifier; reciprocal rank fusion).
 *
 * Requests are validated strictly against the shapes of `@qdrant/js-client-rest`'s published
 * schema (the zod schemas below are type-checked against `Schemas`): an unknown field, a wrong
 * type, a point id that is neither an unsigned integer nor a UUID, or a vector of the wrong
 * dimension is refused with 400 and Qdrant's error body, as the real server would. A shape the
 * real API accepts but Lectern never sends is refused too, so a change in what Lectern sends shows
 * up here rather than passing unchecked. Responses are typed with the same schema.
 */

export interface QdrantStandIn {
  url: string;
  /** Every request: method, path (with query) and parsed body. */
  requests: { method: string; path: string; body: unknown }[];
  /** Stored points of a collection (for assertions), or undefined when it does not exist. */
  points(collection: string): StoredPoint[] | undefined;
  close(): Promise<void>;
}

export interface StoredPoint {
  id: string | number;
  dense: Map<string, number[]>;
  sparse: Map<string, Map<number, number>>;
  payload: Record<string, unknown>;
}

const SERVER_VERSION = "1.18.0";

// ---- request shapes (the subset of the OpenAPI schema Lectern uses), checked against Schemas ----

const pointId = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(
      /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
      "Unable to parse UUID",
    ),
]);
const sparseVector = z
  .strictObject({
    indices: z.array(z.number().int().min(0).max(4_294_967_295)),
    values: z.array(z.number()),
  })
  .refine((vector) => vector.indices.length === vector.values.length, {
    message: "indices and values must be the same length",
  })
  .refine((vector) => new Set(vector.indices).size === vector.indices.length, {
    message: "indices must be unique",
  });
const denseVector = z.array(z.number()).min(1);
const vectorParams = z.strictObject({
  size: z.number().int().min(1).max(65_536),
  distance: z.enum(["Cosine", "Euclid", "Dot", "Manhattan"]),
});
const sparseVectorParams = z.strictObject({ modifier: z.enum(["none", "idf"]).optional() });
const createCollection = z.strictObject({
  vectors: z.record(z.string().min(1), vectorParams),
  sparse_vectors: z.record(z.string().min(1), sparseVectorParams).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const createFieldIndex = z.strictObject({
  field_name: z.string().min(1),
  field_schema: z.enum(["keyword", "integer", "float", "bool", "text", "uuid", "datetime"]),
});
const matchValue = z.strictObject({ value: z.union([z.string(), z.number().int(), z.boolean()]) });
const matchAny = z.strictObject({ any: z.array(z.string()) });
const fieldCondition = z.strictObject({
  key: z.string().min(1),
  match: z.union([matchValue, matchAny]),
});
const hasIdCondition = z.strictObject({ has_id: z.array(pointId) });
const condition = z.union([fieldCondition, hasIdCondition]);
const filter = z.strictObject({
  must: z.array(condition).optional(),
  must_not: z.array(condition).optional(),
});
const pointStruct = z.strictObject({
  id: pointId,
  vector: z.record(z.string().min(1), z.union([denseVector, sparseVector])),
  payload: z.record(z.string(), z.unknown()).optional(),
});
const pointsList = z.strictObject({ points: z.array(pointStruct).min(1) });
const pointsSelector = z.union([
  z.strictObject({ points: z.array(pointId) }),
  z.strictObject({ filter }),
]);
const countRequest = z.strictObject({ filter: filter.optional(), exact: z.boolean().optional() });
const queryVector = z.union([denseVector, sparseVector]);
const prefetch = z.strictObject({
  query: queryVector,
  using: z.string().min(1),
  filter: filter.optional(),
  limit: z.number().int().min(1).optional(),
});
const withSelector = z.union([z.boolean(), z.array(z.string().min(1))]);
const queryRequest = z.strictObject({
  prefetch: z.array(prefetch).min(1).optional(),
  query: z.union([
    queryVector,
    z.strictObject({ fusion: z.enum(["rrf"]) }),
    z.strictObject({ rrf: z.strictObject({ k: z.number().int().min(1).optional() }) }),
  ]),
  using: z.string().min(1).optional(),
  filter: filter.optional(),
  limit: z.number().int().min(1).optional(),
  with_payload: withSelector.optional(),
  with_vector: withSelector.optional(),
});

// Compile-time checks: what the stand-in accepts is a valid request of the published schema.
// (A parsed JSON body never holds `undefined`; zod's optional keys say `| undefined`.)
type Json<T> = T extends object ? { [K in keyof T]: Json<Exclude<T[K], undefined>> } : T;
type Accepts<Published, Parsed extends Published> = Parsed;
export type CheckedShapes = [
  Accepts<Schemas["CreateCollection"], Json<z.infer<typeof createCollection>>>,
  Accepts<Schemas["CreateFieldIndex"], Json<z.infer<typeof createFieldIndex>>>,
  Accepts<Schemas["PointsList"], Json<z.infer<typeof pointsList>>>,
  Accepts<Schemas["PointsSelector"], Json<z.infer<typeof pointsSelector>>>,
  Accepts<Schemas["CountRequest"], Json<z.infer<typeof countRequest>>>,
  Accepts<Schemas["QueryRequest"], Json<z.infer<typeof queryRequest>>>,
  Accepts<Schemas["Filter"], Json<z.infer<typeof filter>>>,
];

type Filter = z.infer<typeof filter>;

interface Collection {
  vectors: Record<string, { size: number; distance: string }>;
  sparseVectors: Record<string, { modifier?: "none" | "idf" | undefined }>;
  metadata: Record<string, unknown> | undefined;
  payloadSchema: Record<string, Schemas["PayloadSchemaType"]>;
  points: Map<string, StoredPoint>;
  operationId: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startQdrantStandIn(
  options: { apiKey?: string; port?: number } = {},
): Promise<QdrantStandIn> {
  const collections = new Map<string, Collection>();
  const requests: QdrantStandIn["requests"] = [];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(request.url ?? "/", "http://stand-in");
    const method = request.method ?? "GET";
    const text = await readBody(request);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw new HttpError(400, "Format error in JSON body: expected value at line 1 column 1");
    }
    requests.push({ method, path: url.pathname + url.search, body });
    if (options.apiKey !== undefined) {
      const key = request.headers["api-key"];
      const bearer = request.headers.authorization;
      if (key !== options.apiKey && bearer !== `Bearer ${options.apiKey}`) {
        throw new HttpError(401, "Must provide an API key or an Authorization bearer token");
      }
    }
    checkQuery(url.searchParams);
    const result = route(method, url.pathname, body);
    const time = (performance.now() - started) / 1000;
    send(response, 200, { result, status: "ok", time });
  }

  function route(method: string, pathname: string, body: unknown): unknown {
    if (pathname === "/" && method === "GET") {
      const info: Schemas["VersionInfo"] = {
        title: "qdrant - vector search engine",
        version: SERVER_VERSION,
      };
      return info;
    }
    const match = /^\/collections\/([^/]+)(\/.*)?$/.exec(pathname);
    if (!match) throw new HttpError(404, `Not found: ${pathname}`);
    const name = decodeURIComponent(match[1] ?? "");
    const rest = match[2] ?? "";
    const key = `${method} ${rest}`;
    switch (key) {
      case "GET /exists": {
        const exists: Schemas["CollectionExistence"] = { exists: collections.has(name) };
        return exists;
      }
      case "GET ":
        return collectionInfo(name, existing(name));
      case "PUT ": {
        const parsed = parse(createCollection, body);
        if (collections.has(name))
          throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
        collections.set(name, {
          vectors: parsed.vectors,
          sparseVectors: parsed.sparse_vectors ?? {},
          metadata: parsed.metadata,
          payloadSchema: {},
          points: new Map(),
          operationId: 0,
        });
        return true;
      }
      case "DELETE ":
        noBody(body);
        return collections.delete(name);
      case "PUT /index": {
        const parsed = parse(createFieldIndex, body);
        const collection = existing(name);
        collection.payloadSchema[parsed.field_name] = parsed.field_schema;
        return updated(collection);
      }
      case "PUT /points": {
        const parsed = parse(pointsList, body);
        const collection = existing(name);
        // The whole batch is checked before any point is stored, as Qdrant does.
        const stored = parsed.points.map((point) => toStored(collection, point));
        for (const point of stored) collection.points.set(String(point.id), point);
        return updated(collection);
      }
      case "POST /points/delete": {
        const parsed = parse(pointsSelector, body);
        const collection = existing(name);
        if ("points" in parsed) {
          for (const id of parsed.points) collection.points.delete(String(normaliseId(id)));
        } else {
          checkIndexed(collection, parsed.filter);
          for (const [id, point] of collection.points) {
            if (matches(point, parsed.filter)) collection.points.delete(id);
          }
        }
        return updated(collection);
      }
      case "POST /points/count": {
        const parsed = parse(countRequest, body ?? {});
        const collection = existing(name);
        if (parsed.filter) checkIndexed(collection, parsed.filter);
        const count = [...collection.points.values()].filter(
          (point) => !parsed.filter || matches(point, parsed.filter),
        ).length;
        const result: Schemas["CountResult"] = { count };
        return result;
      }
      case "POST /points/query": {
        const parsed = parse(queryRequest, body);
        const result: Schemas["QueryResponse"] = { points: query(existing(name), parsed) };
        return result;
      }
      default:
        throw new HttpError(404, `Not found: ${method} ${pathname}`);
    }
  }

  function existing(name: string): Collection {
    const collection = collections.get(name);
    if (!collection) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return collection;
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      const body: Schemas["ErrorResponse"] = { status: { error: message }, time: 0 };
      send(response, status, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    points: (name) => {
      const collection = collections.get(name);
      return collection ? [...collection.points.values()] : undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- behaviour ----

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
  throw new HttpError(400, `Format error in JSON body: ${issue?.message ?? "invalid"}${where}`);
}

function noBody(body: unknown): void {
  if (body !== undefined) throw new HttpError(400, "Format error: this request takes no body");
}

const KNOWN_QUERY_PARAMETERS: Record<string, (value: string) => boolean> = {
  wait: (value) => value === "true" || value === "false",
  timeout: (value) => /^\d+$/.test(value),
  ordering: (value) => ["weak", "medium", "strong"].includes(value),
  consistency: (value) => /^\d+$/.test(value) || ["majority", "quorum", "all"].includes(value),
};

function checkQuery(parameters: URLSearchParams): void {
  for (const [name, value] of parameters) {
    const valid = KNOWN_QUERY_PARAMETERS[name];
    if (!valid) throw new HttpError(400, `Query deserialize error: unknown field \`${name}\``);
    if (!valid(value))
      throw new HttpError(400, `Query deserialize error: invalid value for ${name}`);
  }
}

function updated(collection: Collection): Schemas["UpdateResult"] {
  collection.operationId++;
  return { operation_id: collection.operationId, status: "completed" };
}

function normaliseId(id: string | number): string | number {
  if (typeof id === "number") return id;
  const hex = id.replaceAll("-", "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function toStored(collection: Collection, point: z.infer<typeof pointStruct>): StoredPoint {
  const stored: StoredPoint = {
    id: normaliseId(point.id),
    dense: new Map(),
    sparse: new Map(),
    payload: point.payload ?? {},
  };
  for (const [name, vector] of Object.entries(point.vector)) {
    const dense = collection.vectors[name];
    const sparse = collection.sparseVectors[name];
    if (Array.isArray(vector)) {
      if (!dense) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
      if (vector.length !== dense.size) {
        throw new HttpError(
          400,
          `Wrong input: Vector dimension error: expected dim: ${dense.size}, got ${vector.length}`,
        );
      }
      // Cosine collections store normalised vectors; the score is then a dot product.
      stored.dense.set(name, dense.distance === "Cosine" ? normalise(vector) : vector);
    } else {
      if (!sparse) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
      stored.sparse.set(
        name,
        new Map(vector.indices.map((index, position) => [index, vector.values[position] ?? 0])),
      );
    }
  }
  for (const name of Object.keys(collection.vectors)) {
    if (!stored.dense.has(name))
      throw new HttpError(400, `Wrong input: Vector with name ${name} is not specified`);
  }
  return stored;
}

function normalise(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** Filtering on a field without a payload index is refused, as Qdrant does in strict mode. */
function checkIndexed(collection: Collection, filterToCheck: Filter): void {
  for (const item of [...(filterToCheck.must ?? []), ...(filterToCheck.must_not ?? [])]) {
    if ("key" in item && !collection.payloadSchema[item.key]) {
      throw new HttpError(
        400,
        `Bad request: Index required but not found for "${item.key}" of one of the following types: [keyword]`,
      );
    }
  }
}

function matches(point: StoredPoint, filterToMatch: Filter): boolean {
  const holds = (item: z.infer<typeof condition>): boolean => {
    if ("has_id" in item) return item.has_id.map(normaliseId).includes(point.id);
    const value = point.payload[item.key];
    const values = Array.isArray(value) ? value : [value];
    if ("value" in item.match) return values.includes(item.match.value);
    const wanted = item.match.any;
    return values.some((entry) => typeof entry === "string" && wanted.includes(entry));
  };
  return (filterToMatch.must ?? []).every(holds) && !(filterToMatch.must_not ?? []).some(holds);
}

interface Ranked {
  point: StoredPoint;
  score: number;
}

function nearest(
  collection: Collection,
  vector: z.infer<typeof queryVector>,
  using: string | undefined,
  candidates: StoredPoint[],
  limit: number,
): Ranked[] {
  const name = using ?? "";
  let scored: Ranked[];
  if (Array.isArray(vector)) {
    const params = collection.vectors[name];
    if (!params) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
    if (vector.length !== params.size) {
      throw new HttpError(
        400,
        `Wrong input: Vector dimension error: expected dim: ${params.size}, got ${vector.length}`,
      );
    }
    const query = params.distance === "Cosine" ? normalise(vector) : vector;
    scored = candidates.flatMap((point) => {
      const stored = point.dense.get(name);
      return stored ? [{ point, score: dot(query, stored) }] : [];
    });
  } else {
    const params = collection.sparseVectors[name];
    if (!params) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
    const withVector = [...collection.points.values()].filter((point) => point.sparse.has(name));
    const idf = (index: number) => {
      if (params.modifier !== "idf") return 1;
      const total = withVector.length;
      const containing = withVector.filter((point) => point.sparse.get(name)?.has(index)).length;
      return Math.log((total - containing + 0.5) / (containing + 0.5) + 1);
    };
    const weights = vector.indices.map((index, position) => ({
      index,
      weight: (vector.values[position] ?? 0) * idf(index),
    }));
    scored = candidates.flatMap((point) => {
      const stored = point.sparse.get(name);
      if (!stored) return [];
      let score = 0;
      let overlap = false;
      for (const { index, weight } of weights) {
        const value = stored.get(index);
        if (value === undefined) continue;
        overlap = true;
        score += weight * value;
      }
      // Sparse search returns only points that share at least one index with the query.
      return overlap ? [{ point, score }] : [];
    });
  }
  return scored.sort(byScore).slice(0, limit);
}

function byScore(left: Ranked, right: Ranked): number {
  return right.score - left.score || String(left.point.id).localeCompare(String(right.point.id));
}

function dot(left: number[], right: number[]): number {
  let total = 0;
  for (let position = 0; position < left.length; position++)
    total += (left[position] ?? 0) * (right[position] ?? 0);
  return total;
}

/** Qdrant's default RRF constant when the query gives none. */
const DEFAULT_RRF_K = 2;

function query(
  collection: Collection,
  request: z.infer<typeof queryRequest>,
): Schemas["ScoredPoint"][] {
  const limit = request.limit ?? 10;
  const rootFilter = request.filter;
  if (rootFilter) checkIndexed(collection, rootFilter);
  const pool = (extra: Filter | undefined) =>
    [...collection.points.values()].filter(
      (point) => (!rootFilter || matches(point, rootFilter)) && (!extra || matches(point, extra)),
    );
  let ranked: Ranked[];
  const fusion =
    !Array.isArray(request.query) && ("fusion" in request.query || "rrf" in request.query);
  if (fusion) {
    if (!request.prefetch) throw new HttpError(400, "Wrong input: fusion needs prefetch queries");
    const k = "rrf" in request.query ? (request.query.rrf.k ?? DEFAULT_RRF_K) : DEFAULT_RRF_K;
    const fused = new Map<string, Ranked>();
    for (const stage of request.prefetch) {
      if (stage.filter) checkIndexed(collection, stage.filter);
      const found = nearest(
        collection,
        stage.query,
        stage.using,
        pool(stage.filter),
        stage.limit ?? 10,
      );
      for (const [rank, hit] of found.entries()) {
        const id = String(hit.point.id);
        const entry = fused.get(id) ?? { point: hit.point, score: 0 };
        entry.score += 1 / (k + rank + 1);
        fused.set(id, entry);
      }
    }
    ranked = [...fused.values()].sort(byScore).slice(0, limit);
  } else {
    if (request.prefetch)
      throw new HttpError(400, "Wrong input: the stand-in supports prefetch only with fusion");
    ranked = nearest(
      collection,
      request.query as z.infer<typeof queryVector>,
      request.using,
      pool(undefined),
      limit,
    );
  }
  return ranked.map(({ point, score }) => scoredPoint(point, score, request));
}

function scoredPoint(
  point: StoredPoint,
  score: number,
  request: z.infer<typeof queryRequest>,
): Schemas["ScoredPoint"] {
  const scored: Schemas["ScoredPoint"] = { id: point.id, version: 0, score };
  const payload = request.with_payload ?? false;
  if (payload === true) scored.payload = point.payload;
  else if (Array.isArray(payload)) {
    scored.payload = Object.fromEntries(
      Object.entries(point.payload).filter(([key]) => payload.includes(key)),
    );
  }
  const vectors = request.with_vector ?? false;
  if (vectors !== false) {
    const output: Record<string, number[] | Schemas["SparseVector"]> = {};
    for (const [name, vector] of point.dense) {
      if (vectors === true || vectors.includes(name)) output[name] = vector;
    }
    for (const [name, vector] of point.sparse) {
      if (vectors === true || vectors.includes(name))
        output[name] = { indices: [...vector.keys()], values: [...vector.values()] };
    }
    scored.vector = output;
  }
  return scored;
}

function collectionInfo(name: string, collection: Collection): Schemas["CollectionInfo"] {
  void name;
  const payloadSchema: Schemas["CollectionInfo"]["payload_schema"] = {};
  for (const [field, type] of Object.entries(collection.payloadSchema)) {
    payloadSchema[field] = {
      data_type: type,
      points: [...collection.points.values()].filter((point) => field in point.payload).length,
    };
  }
  return {
    status: "green",
    optimizer_status: "ok",
    indexed_vectors_count: 0,
    points_count: collection.points.size,
    segments_count: 1,
    config: {
      params: {
        vectors: Object.fromEntries(
          Object.entries(collection.vectors).map(([vectorName, params]) => [
            vectorName,
            { size: params.size, distance: params.distance as Schemas["Distance"] },
          ]),
        ),
        sparse_vectors: Object.fromEntries(
          Object.entries(collection.sparseVectors).map(([vectorName, params]) => [
            vectorName,
            params.modifier ? { modifier: params.modifier } : {},
          ]),
        ),
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: true,
      },
      hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10_000 },
      optimizer_config: { default_segment_number: 0, flush_interval_sec: 5 },
      ...(collection.metadata ? { metadata: collection.metadata } : {}),
    },
    payload_schema: payloadSchema,
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}
