/** Lectern as a library: configuration, the assembled book, the HTTP server and the wire format. */
export { type Config, loadConfig } from "./config/config.ts";
export { createError, ERROR_CODES, type ErrorCode, LecternError } from "./errors.ts";
export { buildApp } from "./http/app.ts";
export { type RunningServer, startServer } from "./http/server.ts";
export * from "./http/wire.ts";
export { type Lectern, openLectern } from "./lectern.ts";
export { createReranker } from "./llm/rerankers.ts";
export type { Reranker } from "./search/reranker.ts";
