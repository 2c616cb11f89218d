import { packedSectionTerms } from "@lectern/engine/answer/section-card";
import type { Synopsis } from "@lectern/engine/answer/synopsis";
import { chunkBlocks } from "@lectern/engine/book/chunk-blocks";
import { writeCoreChunks } from "@lectern/engine/engine/core-chunks";
import { type CoreIndex, writeCoreIndex } from "@lectern/engine/engine/core-index";
import {
  type CoreFile,
  type PageShard,
  pageShardName,
  SHARD_FORMAT,
  type TermShard,
  termShard,
  termShardName,
} from "@lectern/engine/engine/sharded-book";
import type { BookFile } from "@lectern/engine/search/book-json";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import type { ChunkRecord } from "../store/document-store.ts";

/**
 * The files of a sharded static book (see sharded-book.ts), by name relative to the core file:
 * `core.json`, `pages-<n>.json` and `terms-<n>.json`. Built in memory: `lectern build-static`
 * writes them, the parity check reads them as the browser would.
 */

/** About how much of the chunks' JSON (their text, mostly) a page shard holds: about two pages. */
const PAGE_SHARD_CHARS = 16 * 1024;
/** About how much of the postings' JSON a term shard holds, on average. */
const TERM_SHARD_CHARS = 24 * 1024;

/**
 * A book whose chunks' text and postings come to at most this much JSON (about 200 KB gzipped) is
 * written in one page shard and one term shard, fetched with its core (`shardsWithCore`): its
 * first question then needs no other fetch, and runs once.
 */
const WHOLE_BOOK_CHARS = 768 * 1024;

export const CORE_FILE = "core.json";

/**
 * The shards a manifest has fetched with the core (`withCore`): a book written whole (one page
 * shard, one term shard: see WHOLE_BOOK_CHARS), or none.
 */
export function shardsWithCore(files: Map<string, string>): string[] {
  const shards = [...files.keys()].filter((name) => name !== CORE_FILE).sort();
  const whole = [pageShardName(0), termShardName(0)];
  return shards.length === 2 && whole.every((name) => shards.includes(name)) ? shards : [];
}

export function staticBookFiles(
  book: BookFile,
  index: LexicalIndex,
  synopsis: Synopsis | undefined,
  {
    /** About how much of the chunks' JSON a page shard holds (a page is never split). */
    pageShardChars = PAGE_SHARD_CHARS,
    /** A book of at most this much is written in one page shard and one term shard. */
    wholeBookChars = WHOLE_BOOK_CHARS,
  } = {},
): Map<string, string> {
  const files = new Map<string, string>();
  const contents = book.chunks.map(shardContent);
  let postingsChars = 0;
  for (const postings of index.postings()) postingsChars += JSON.stringify(postings).length;
  const whole = contentsChars(contents) + postingsChars <= wholeBookChars;
  const { shardOf, shards: pageShards } = pageShardsOf(
    book.chunks,
    contents,
    files,
    whole ? Number.POSITIVE_INFINITY : pageShardChars,
  );
  const termShards = termShardsOf(
    index,
    files,
    whole ? 1 : Math.max(1, Math.round(postingsChars / TERM_SHARD_CHARS)),
  );
  const core: CoreFile = {
    format: SHARD_FORMAT,
    indexVersion: book.indexVersion,
    pages: book.pages,
    ...(book.versions?.length ? { versions: book.versions } : {}),
    ...(book.locales?.length ? { locales: book.locales } : {}),
    chunks: coreChunks(book.chunks, shardOf),
    index: coreIndex(index, book),
    synopsis: synopsis ? { ...synopsis, intro: synopsis.intro.id } : null,
    pageShards,
    termShards,
  };
  files.set(CORE_FILE, JSON.stringify(core));
  return files;
}

/** The chunks without what their page shard holds (sharded-book.ts, core-chunks.ts). */
function coreChunks(chunks: ChunkRecord[], shardOf: Map<string, number>) {
  const pages = [...pagesOf(chunks)].map((page) =>
    page.map(({ text: _text, blocks, contentHash: _hash, ...rest }) =>
      blocks ? { ...rest, blocks: 1 } : (rest as Record<string, unknown>),
    ),
  );
  return writeCoreChunks(pages, (at) => shardOf.get(chunks[at]?.id ?? "") ?? 0);
}

/** The book's chunks, a page's together (they come so, in the book's order). */
function* pagesOf(chunks: ChunkRecord[]): Generator<ChunkRecord[]> {
  let page: ChunkRecord[] = [];
  for (const chunk of chunks) {
    if (page.length > 0 && page[0]?.filePath !== chunk.filePath) {
      yield page;
      page = [];
    }
    page.push(chunk);
  }
  if (page.length > 0) yield page;
}

/** The index's core with chunks named by their place in the book's chunks (shorter than ids). */
function coreIndex(index: LexicalIndex, book: BookFile): CoreIndex {
  const at = new Map(book.chunks.map((chunk, position) => [chunk.id, position]));
  return writeCoreIndex(index.core(book.indexVersion), (id) => at.get(id) ?? -1);
}

/** What a page shard holds of a chunk: its sections' terms analysed here, once for every reader. */
function shardContent(chunk: ChunkRecord): PageShard[string] {
  return [chunk.text, storedBlocks(chunk), chunk.contentHash, packedSectionTerms(chunk)];
}

function contentsChars(contents: PageShard[string][]): number {
  let chars = 0;
  for (const content of contents) chars += contentChars(content);
  return chars;
}

/** A chunk's size in a page shard by its text (its terms, a function of the text, left out). */
function contentChars([text, blocks, contentHash]: PageShard[string]): number {
  return JSON.stringify([text, blocks, contentHash]).length;
}

/** Whole pages, in the book's order, grouped until a shard holds about `shardChars`. */
function pageShardsOf(
  chunks: ChunkRecord[],
  contents: PageShard[string][],
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
    const content = contents[at] as PageShard[string];
    shard[chunk.id] = content;
    shardOf.set(chunk.id, shards);
    chars += contentChars(content);
    const next = chunks[at + 1];
    if (chars >= shardChars && next?.filePath !== chunk.filePath) close();
  });
  if (chars > 0 || shards === 0) close();
  return { shardOf, shards };
}

/** The chunk's blocks as a page shard holds them: 0 when reading its text gives them alike. */
function storedBlocks(chunk: ChunkRecord): PageShard[string][1] {
  if (!chunk.blocks) return null;
  const blocks = JSON.stringify(chunk.blocks);
  return JSON.stringify(chunkBlocks(chunk.text)) === blocks ? 0 : chunk.blocks;
}

/** Each term's postings in the term shard its hash names, of `shards`. */
function termShardsOf(index: LexicalIndex, files: Map<string, string>, shards: number): number {
  const buckets: TermShard[] = Array.from({ length: shards }, () => ({}));
  for (const [term, postings] of index.postings()) {
    // Defined, not assigned: a term such as "__proto__" is a key like any other.
    Object.defineProperty(buckets[termShard(term, shards)], term, {
      value: JSON.stringify(postings),
      enumerable: true,
    });
  }
  buckets.forEach((bucket, shard) => {
    files.set(termShardName(shard), JSON.stringify(bucket));
  });
  return shards;
}
