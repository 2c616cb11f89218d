import type { Synopsis } from "../answer/synopsis.ts";
import { type ChunkBlock, chunkBlocks } from "../book/chunk-blocks.ts";
import type {
  BookLocale,
  BookVersion,
  ChunkRecord,
  PackedTerms,
  PageSummary,
} from "../book/records.ts";
import type { BookFile } from "../search/book-json.ts";
import { type IndexReads, LexicalIndex, type TermPostings } from "../search/lexical-index.ts";
import { type CoreChunks, readCoreChunks } from "./core-chunks.ts";
import { type CoreIndex, readCoreIndex } from "./core-index.ts";

export type { CoreChunks } from "./core-chunks.ts";
export type { CoreIndex } from "./core-index.ts";

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
 * missing shard is never kept. So that a question takes few such rounds, the page shards of the
 * chunks the index gives (a search's best hits, a page, a heading's sections) are fetched with
 * the missing ones: they are what a question reads next.
 *
 * Shards fetched with the core (a small book's, all of them: see `hold`) are held as fetched and
 * taken in on their first read, in the run that reads them: such a question runs once.
 */

/**
 * Changes when the core's or the shards' shape changes (2: term shards keyed by term; 3: the
 * chunks as rows, the index's tables in denser forms).
 */
export const SHARD_FORMAT = 3;

/**
 * A term shard's JSON: each term → its postings (TermPostings without the term) as JSON text of
 * their own. Parsed, the shard is a table of short strings: a question parses its own few terms'
 * postings, and nothing walks or builds the rest.
 */
export type TermShard = Record<string, string>;

/** The synopsis as the core holds it: its introduction by chunk id. */
export type CoreSynopsis = Omit<Synopsis, "intro"> & { intro: string };

export interface CoreFile {
  format: typeof SHARD_FORMAT;
  indexVersion: number;
  pages: PageSummary[];
  versions?: BookVersion[];
  locales?: BookLocale[];
  chunks: CoreChunks;
  index: CoreIndex;
  synopsis: CoreSynopsis | null;
  /** How many page shards (`pages-<n>.json`) and term shards (`terms-<n>.json`) there are. */
  pageShards: number;
  termShards: number;
}

/**
 * A page shard's JSON: chunk id → its text, its blocks, its content hash and its sections'
 * analysed terms. Blocks are 0 when they are what `chunkBlocks` reads from the text (nearly always:
 * half a shard's size saved), null for a chunk stored without. The terms are the answer code's own
 * analysis, run at build time (a build of an older format has none; they are analysed then).
 */
export type PageShard = Record<
  string,
  | [string, ChunkBlock[] | 0 | null, string]
  | [string, ChunkBlock[] | 0 | null, string, PackedTerms[]]
>;

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

/** How many of a search's hits, best first, have their page shards fetched with a round's. */
const HITS_READ_AHEAD = 8;

export class ShardedBook implements IndexReads {
  readonly book: BookFile;
  readonly index: LexicalIndex;
  readonly synopsis: Synopsis | undefined;
  /** The shards read since `missing` was last cleared and not loaded. */
  readonly missing = new Set<string>();
  /** The page shards of the chunks the index gave since then, not loaded (see HITS_READ_AHEAD). */
  readonly ahead = new Set<string>();
  private readonly loaded = new Set<string>();
  private readonly chunksById = new Map<string, ChunkRecord>();
  private readonly shardOf = new Map<string, string>();
  /** How many chunks each page shard holds. */
  private readonly shardSizes = new Map<string, number>();
  /** Shards fetched and not yet read: each gives its JSON on its first read (see `hold`). */
  private readonly held = new Map<string, () => unknown>();
  /** Held term shards read, by term: the postings not yet added (see `heldTerms`). */
  private readonly termsHeld = new Map<string, TermShard>();
  /** The error a held shard that is not one of this book's raises when it is read. */
  private readonly invalid: (name: string) => Error;

  constructor(
    private readonly core: CoreFile,
    options: { invalid?: (name: string) => Error } = {},
  ) {
    this.invalid =
      options.invalid ?? ((name) => new ShardFormatError(`${name} is not a shard of this book`));
    if (core.format !== SHARD_FORMAT || !Array.isArray(core.chunks?.rows) || !core.index)
      throw new ShardFormatError("not a core file of this format");
    const chunks = readCoreChunks(core.chunks, (blocks) =>
      Object.create(blocks ? this.lazy.withBlocks : this.lazy.plain),
    ).map(({ fields, shard }) => this.lazyChunk(fields as unknown as ChunkRecord, shard));
    const index = LexicalIndex.fromCore(
      readCoreIndex(core.index, (at) => chunks[at]?.id ?? ""),
      chunks,
      this,
    );
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
      if (!isTermShard(json)) throw new ShardFormatError(`${name} is not a term shard`);
      this.index.addPostings(
        Object.entries(json).map(([term, postings]) => [term, postingsOf(postings, name)]),
      );
    } else {
      if (!json || typeof json !== "object")
        throw new ShardFormatError(`${name} is not a page shard`);
      const entries = Object.entries(json as PageShard);
      // A shard of another build would leave chunks of this one without text for good.
      if (entries.length !== this.shardSizes.get(name))
        throw new ShardFormatError(`${name} does not hold the chunks the core puts there`);
      for (const [id, [text, blocks, contentHash, sectionTerms]] of entries) {
        const chunk = this.chunksById.get(id);
        if (!chunk) throw new ShardFormatError(`${name} holds a chunk the core does not`);
        // Plain values from now on.
        define(chunk, "contentHash", { value: contentHash });
        if ("blocks" in chunk) {
          if (blocks === 0) blocksFromText(chunk, text);
          else define(chunk, "blocks", { value: blocks ?? undefined });
        }
        define(chunk, "text", { value: text });
        if (sectionTerms) define(chunk, "sectionTerms", { value: sectionTerms });
      }
    }
    this.loaded.add(name);
  }

  /**
   * Keeps a fetched shard to take in when a run first reads it: `json` gives its JSON then (and
   * raises what the book's `invalid` gives, if it cannot). Parsing and adding the shards a
   * question never reads costs nothing.
   */
  hold(name: string, json: () => unknown): void {
    if (!this.loaded.has(name)) this.held.set(name, json);
  }

  /** Takes a held shard in, if it is held: whether it was. */
  private take(name: string): boolean {
    const json = this.held.get(name);
    if (!json) return false;
    this.held.delete(name);
    const value = json();
    try {
      this.add(name, value);
    } catch {
      throw this.invalid(name);
    }
    return true;
  }

  /**
   * The prototypes of chunks without their text: reading their text, blocks or content hash
   * needs their page shard; when it is not held, the run stops until it is loaded (see `add`,
   * which gives each chunk these fields as its own). One accessor for every chunk, not one each:
   * a thousand pages' chunks open in a few milliseconds.
   */
  private readonly lazy = lazyPrototypes((chunk, key) => {
    const name = this.shardOf.get(chunk.id) ?? pageShardName(0);
    if (this.take(name)) return chunk[key];
    this.missing.add(name);
    throw new ShardsMissingError(`${name} is not loaded`);
  });

  /** Keeps a chunk read from the core (on one of `lazy`'s prototypes) and its page shard. */
  private lazyChunk(chunk: ChunkRecord, shard: number): ChunkRecord {
    const name = pageShardName(shard);
    this.chunksById.set(chunk.id, chunk);
    this.shardOf.set(chunk.id, name);
    this.shardSizes.set(name, (this.shardSizes.get(name) ?? 0) + 1);
    return chunk;
  }

  /** Forgets what the last run missed, before the next. */
  clear(): void {
    this.missing.clear();
    this.ahead.clear();
  }

  /** The shards to fetch after a run: what it missed and what it would read next. */
  toFetch(): string[] {
    return [...new Set([...this.missing, ...this.ahead])].sort();
  }

  found(chunks: readonly ChunkRecord[]): void {
    for (const chunk of chunks.slice(0, HITS_READ_AHEAD)) {
      const name = this.shardOf.get(chunk.id);
      if (name && !this.loaded.has(name) && !this.held.has(name)) this.ahead.add(name);
    }
  }

  /** A search needs its terms' postings: the shards not loaded are recorded, and it stops. */
  searching(terms: string[]): void {
    for (const term of terms) {
      const name = termShardName(termShard(term, this.core.termShards));
      if (this.loaded.has(name)) continue;
      const held = this.heldTerms(name);
      if (!held) this.missing.add(name);
      else if (Object.hasOwn(held, term)) {
        const postings = held[term];
        delete held[term];
        try {
          this.index.addPostings([[term, postingsOf(postings, name)]]);
        } catch {
          throw this.invalid(name);
        }
      }
    }
    if (this.missing.size > 0) throw new ShardsMissingError("postings not loaded");
  }

  /**
   * A held term shard's postings by term, read when a search first needs one of them: each term
   * is added when searched for (and forgotten here), so a whole book's postings cost a question
   * only its own terms'.
   */
  private heldTerms(name: string): TermShard | undefined {
    let terms = this.termsHeld.get(name);
    const json = this.held.get(name);
    if (terms || !json) return terms;
    this.held.delete(name);
    const value = json();
    if (!isTermShard(value)) throw this.invalid(name);
    terms = value;
    this.termsHeld.set(name, terms);
    return terms;
  }
}

function isTermShard(json: unknown): json is TermShard {
  return typeof json === "object" && json !== null && !Array.isArray(json);
}

/** A term's postings from their JSON text in a term shard. */
function postingsOf(text: unknown, name: string): TermPostings[1] {
  const postings: unknown = typeof text === "string" ? JSON.parse(text) : undefined;
  if (!Array.isArray(postings)) throw new ShardFormatError(`${name} holds postings that are not`);
  return postings as TermPostings[1];
}

type ShardField = "text" | "blocks" | "contentHash";

/** Chunk prototypes whose text, content hash (and blocks) are what `read` gives (or raises). */
function lazyPrototypes(read: (chunk: ChunkRecord, key: ShardField) => unknown): {
  plain: object;
  withBlocks: object;
} {
  const field = (key: ShardField) => ({
    get(this: ChunkRecord): unknown {
      return read(this, key);
    },
    enumerable: true,
    configurable: true,
  });
  const plain = Object.create(Object.prototype, {
    contentHash: field("contentHash"),
    text: field("text"),
  });
  return { plain, withBlocks: Object.create(plain, { blocks: field("blocks") }) };
}

/** The chunk's blocks as reading its text gives them, read on first use (most never are). */
function blocksFromText(chunk: ChunkRecord, text: string): void {
  Object.defineProperty(chunk, "blocks", {
    get(this: ChunkRecord) {
      const blocks = chunkBlocks(text);
      define(this, "blocks", { value: blocks });
      return blocks;
    },
    set(this: ChunkRecord, value: unknown) {
      define(this, "blocks", { value });
    },
    enumerable: true,
    configurable: true,
  });
}

function define(
  chunk: ChunkRecord,
  key: ShardField | "sectionTerms",
  property: { value: unknown },
): void {
  Object.defineProperty(chunk, key, {
    ...property,
    enumerable: true,
    configurable: true,
    writable: true,
  });
}
