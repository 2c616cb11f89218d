/**
 * Lectern as a library: configuration, the assembled book, the HTTP server and the wire format,
 * and the interfaces another backend implements (DocSource, Embedder, VectorIndex).
 */

export { createError, ERROR_CODES, type ErrorCode, LecternError } from "@lectern/engine/errors";
export type { Embedder } from "@lectern/engine/search/embedder";
export type { Reranker } from "@lectern/engine/search/reranker";
export { type Config, loadConfig } from "./config/config.ts";
export { buildApp } from "./http/app.ts";
export { type RunningServer, startServer } from "./http/server.ts";
export * from "./http/wire.ts";
export type { DocListing, DocSource } from "./ingest/doc-source.ts";
export { FileSystemDocSource } from "./ingest/files.ts";
export { MemoryDocSource } from "./ingest/memory-doc-source.ts";
export { type DenseVectors, type Lectern, openLectern } from "./lectern.ts";
export { createReranker } from "./llm/rerankers.ts";
export type {
  DenseHit,
  EmbeddingBacklog,
  EmbeddingModelInfo,
  VectorIndex,
} from "./store/vector-index.ts";
export { VERSION } from "./version.ts";
