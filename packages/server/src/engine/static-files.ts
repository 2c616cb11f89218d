import type { Synopsis } from "../answer/synopsis.ts";
import type { BookFile, ChunkContent } from "../search/book-json.ts";
import type { LexicalIndex, TermPostings } from "../search/lexical-index.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import {
  type CoreChunk,
  type CoreFile,
  type PageShard,
  pageShardName,
  SHARD_FORMAT,
  termShard,
  termShardName,
} from "./sharded-book.ts";

/**
 * The files of a sharded static book (see sharded-book.ts), by name relative to the core file:
 * `core.json`, `pages-<n>.json` and `terms-<n>.json`. Built in memory: `lectern build-static`
 * writes them, the parity check reads them as the browser would.
 */

/** About how much of the chunks' JSON a page shard holds (a page is never split). */
const PAGE_SHARD_CHARS = 64 * 1024;
/** About how much of the postings' JSON a term shard holds, on average. */
const TERM_SHARD_CHARS = 24 * 1024;

export const CORE_FILE = "core.json";

export function staticBookFiles(
  book: BookFile,
  index: LexicalIndex,
  synopsis: Synopsis | undefined,
  /** About how much of the chunks' JSON a page shard holds (a page is never split). */
  { pageShardChars = PAGE_SHARD_CHARS } = {},
): Map<string, string> {
  const files = new Map<string, string>();
  const { shardOf, shards: pageShards } = pageShardsOf(book.chunks, files, pageShardChars);
  const termShards = termShardsOf(index, files);
  const core: CoreFile = {
    format: SHARD_FORMAT,
    indexVersion: book.indexVersion,
    pages: book.pages,
    ...(book.versions?.length ? { versions: book.versions } : {}),
    ...(book.locales?.length ? { locales: book.locales } : {}),
    chunks: book.chunks.map((chunk) => coreChunk(chunk, shardOf.get(chunk.id) ?? 0)),
    index: index.core(book.indexVersion),
    synopsis: synopsis ? { ...synopsis, intro: synopsis.intro.id } : null,
    pageShards,
    termShards,
  };
  files.set(CORE_FILE, JSON.stringify(core));
  return files;
}

/** The chunk without its text and blocks, in the key order the book file gives. */
function coreChunk(chunk: ChunkRecord, shard: number): CoreChunk {
  const { text: _text, blocks, ...rest } = chunk;
  return { ...rest, shard, ...(blocks ? { blocks: 1 as const } : {}) };
}

/** Whole pages, in the book's order, grouped until a shard holds about `shardChars`. */
function pageShardsOf(
  chunks: ChunkRecord[],
  files: Map<string, string>,
  shardChars: number,
): { shardOf: Map<string, number>; shards: number } {
  const shardOf = new Map<string, number>();
  let shard: PageShard = {};
  let chars = 0;
  let shards = 0;
  const close = () => {
    files.set(pageShardName(shards), JSON.stringify(shard));
    shards += 1;
    shard = {};
    chars = 0;
  };
  chunks.forEach((chunk, at) => {
    const content: ChunkContent = [chunk.text, chunk.blocks ?? null];
    shard[chunk.id] = content;
    shardOf.set(chunk.id, shards);
    chars += JSON.stringify(content).length;
    const next = chunks[at + 1];
    if (chars >= shardChars && next?.filePath !== chunk.filePath) close();
  });
  if (chars > 0 || shards === 0) close();
  return { shardOf, shards };
}

/** Each term's postings in the shard its hash names; as many shards as the postings' size asks. */
function termShardsOf(index: LexicalIndex, files: Map<string, string>): number {
  let chars = 0;
  for (const postings of index.postings()) chars += JSON.stringify(postings).length;
  const shards = Math.max(1, Math.round(chars / TERM_SHARD_CHARS));
  const buckets: TermPostings[][] = Array.from({ length: shards }, () => []);
  for (const postings of index.postings()) buckets[termShard(postings[0], shards)]?.push(postings);
  buckets.forEach((bucket, shard) => {
    files.set(termShardName(shard), JSON.stringify(bucket));
  });
  return shards;
}
