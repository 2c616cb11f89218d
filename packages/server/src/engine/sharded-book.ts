import type { Synopsis } from "../answer/synopsis.ts";
import type { BookFile, ChunkContent } from "../search/book-json.ts";
import { type IndexCore, LexicalIndex, type TermPostings } from "../search/lexical-index.ts";
import type { BookLocale, BookVersion, ChunkRecord, PageSummary } from "../store/document-store.ts";

/**
 * A static build's book in pieces, so that a question fetches only what it reads. The core file
 * holds what every question needs: the pages, each chunk without its text, the index without its
 * postings (document tables, document frequencies, the pages' openings) and the synopsis, worked
 * out at build time. The chunks' text and blocks come in page shards (whole pages, in path order,
 * grouped to tens of kilobytes), the postings in term shards (each term in the shard its hash
 * names).
 *
 * Opened over the core alone, the book records every shard a computation reads and it does not
 * hold, and stops that computation (`ShardsMissingError`); the caller fetches what was recorded and
 * runs it again. The answers are the same as over the whole book, since a run that needed a
 * missing shard is never kept.
 */

/** Raised when the files a static build writes change shape. */
export const SHARD_FORMAT = 1;

/** A chunk as the core holds it: no text or blocks; `shard` names its page shard. */
export type CoreChunk = Omit<ChunkRecord, "text" | "blocks"> & { shard: number; blocks?: 1 };

/** The synopsis as the core holds it: its introduction by chunk id. */
export type CoreSynopsis = Omit<Synopsis, "intro"> & { intro: string };

export interface CoreFile {
  format: typeof SHARD_FORMAT;
  indexVersion: number;
  pages: PageSummary[];
  versions?: BookVersion[];
  locales?: BookLocale[];
  chunks: CoreChunk[];
  index: IndexCore;
  synopsis: CoreSynopsis | null;
  /** How many page shards (`pages-<n>.json`) and term shards (`terms-<n>.json`) there are. */
  pageShards: number;
  termShards: number;
}

/** A page shard's JSON: chunk id → its text and blocks. */
export type PageShard = Record<string, ChunkContent>;

/** The name of a page shard and of a term shard, relative to the core file. */
export const pageShardName = (shard: number) => `pages-${shard}.json`;
export const termShardName = (shard: number) => `terms-${shard}.json`;

/** The term shard a term's postings are in: FNV-1a of its UTF-16 code units. */
export function termShard(term: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < term.length; at++) {
    hash ^= term.charCodeAt(at);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** Raised by a read of a shard that is not loaded; the book's `missing` lists what to fetch. */
export class ShardsMissingError extends Error {
  readonly code = "STATIC_SHARDS_MISSING";
}

/** Raised when a core or a shard is not one this engine reads. */
export class ShardFormatError extends Error {}

export class ShardedBook {
  readonly book: BookFile;
  readonly index: LexicalIndex;
  readonly synopsis: Synopsis | undefined;
  /** The shards read since `missing` was last cleared and not loaded. */
  readonly missing = new Set<string>();
  private readonly loaded = new Set<string>();
  private readonly chunksById = new Map<string, ChunkRecord>();

  constructor(private readonly core: CoreFile) {
    if (core.format !== SHARD_FORMAT || !Array.isArray(core.chunks) || !core.index)
      throw new ShardFormatError("not a core file of this format");
    const chunks = core.chunks.map((stored) => this.lazyChunk(stored));
    const index = LexicalIndex.fromCore(core.index, chunks, (terms) => this.needTerms(terms));
    if (!index || core.index.indexVersion !== core.indexVersion)
      throw new ShardFormatError("its index is not the one of its chunks");
    this.index = index;
    this.book = {
      indexVersion: core.indexVersion,
      pages: core.pages,
      chunks,
      ...(core.versions ? { versions: core.versions } : {}),
      ...(core.locales ? { locales: core.locales } : {}),
    };
    const synopsis = core.synopsis;
    const intro = synopsis && this.chunksById.get(synopsis.intro);
    this.synopsis = synopsis && intro ? { ...synopsis, intro } : undefined;
  }

  /** Takes a fetched shard in: its chunks' text or its terms' postings. */
  add(name: string, json: unknown): void {
    if (this.loaded.has(name)) return;
    if (name.startsWith("terms-")) {
      if (!Array.isArray(json)) throw new ShardFormatError(`${name} is not a term shard`);
      this.index.addPostings(json as TermPostings[]);
    } else {
      if (!json || typeof json !== "object")
        throw new ShardFormatError(`${name} is not a page shard`);
      for (const [id, [text, blocks]] of Object.entries(json as PageShard)) {
        const chunk = this.chunksById.get(id);
        if (!chunk) throw new ShardFormatError(`${name} holds a chunk the core does not`);
        // Plain values from now on, in the order the book file gives them.
        if ("blocks" in chunk) define(chunk, "blocks", { value: blocks ?? undefined });
        define(chunk, "text", { value: text });
      }
    }
    this.loaded.add(name);
  }

  /** The chunk without its text: reading its text or blocks needs its page shard. */
  private lazyChunk(stored: CoreChunk): ChunkRecord {
    const { shard, blocks, ...rest } = stored;
    const chunk = { ...rest } as ChunkRecord;
    const name = pageShardName(shard);
    const read = () => {
      this.missing.add(name);
      throw new ShardsMissingError(`${name} is not loaded`);
    };
    if (blocks) define(chunk, "blocks", { get: read });
    define(chunk, "text", { get: read });
    this.chunksById.set(chunk.id, chunk);
    return chunk;
  }

  /** A search needs its terms' postings: the shards not loaded are recorded, and it stops. */
  private needTerms(terms: string[]): void {
    for (const term of terms) {
      const name = termShardName(termShard(term, this.core.termShards));
      if (!this.loaded.has(name)) this.missing.add(name);
    }
    if (this.missing.size > 0) throw new ShardsMissingError("postings not loaded");
  }
}

function define(
  chunk: ChunkRecord,
  key: "text" | "blocks",
  property: { value: unknown } | { get: () => never },
): void {
  Object.defineProperty(chunk, key, {
    ...property,
    enumerable: true,
    configurable: true,
    ...("value" in property ? { writable: true } : {}),
  });
}
