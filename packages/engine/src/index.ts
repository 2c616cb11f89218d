/**
 * @lectern/engine: search, the no-results decision and the extractive answer over one immutable
 * book, with no Node built-in, database, clock or randomness of its own. Each module is also
 * reachable by its path (`@lectern/engine/search/analyzer`); this entry holds what a host needs
 * to open a book and ask it.
 */
export type { Synopsis } from "./answer/synopsis.ts";
export type {
  BookLocale,
  BookVersion,
  ChunkRecord,
  PageSummary,
  SectionAnchor,
} from "./book/records.ts";
export {
  type BookSnapshot,
  type Engine,
  type EngineAnswer,
  type EngineHost,
  type EngineQuestion,
  type EngineSettings,
  openEngine,
  openShardedEngine,
  SnapshotMismatchError,
} from "./engine/engine.ts";
export { type CoreFile, ShardedBook } from "./engine/sharded-book.ts";
export type { ChatInput, ChatOutcome } from "./pipeline/types.ts";
export { BOOK_FILE_FORMAT, type BookFile, parseBookJson } from "./search/book-json.ts";
export { LexicalIndex } from "./search/lexical-index.ts";
export { runtimeHost, type StaticHost } from "./static/host.ts";
export {
  openStaticBook,
  STATIC_FORMAT,
  StaticBookError,
  type StaticManifest,
} from "./static/static-book.ts";
export {
  type StaticReply,
  type StaticRequest,
  type StaticRouteOptions,
  staticRoutes,
} from "./static/static-routes.ts";
