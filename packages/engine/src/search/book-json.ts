import type { BookLocale, BookVersion, ChunkRecord, PageSummary } from "../book/records.ts";

/**
 * The book as one file beside its BM25 snapshot (`index/<collection>.book.json`): the pages and
 * chunks an embedded database held at one index version, in the store's order. A one-shot reading
 * command (`lectern ask`) answers from it and the snapshot without starting the database.
 *
 * A chunk's text and blocks are written once however many chunks hold them alike (the pages two
 * docs versions or locales share): `contents` lists each once, and a chunk names its entry there.
 *
 * The file exists only while it matches the database: an ingest sets it aside before it writes
 * and writes it again after, so an ingest that stops half-way leaves no file, and the next open
 * of the database (which reads the chunks anyway) writes it again.
 */
export interface BookFile {
  indexVersion: number;
  pages: PageSummary[];
  chunks: ChunkRecord[];
  /** The book's docs versions; absent for a book without versions. */
  versions?: BookVersion[];
  /** The book's locales; absent for an untranslated book. */
  locales?: BookLocale[];
}

/** Raised when what the file holds changes shape; an older file is then read from the database. */
export const BOOK_FILE_FORMAT = 2;
/** A chunk as the file holds it: its text and blocks in `contents`, at `content`. */
export type StoredChunk = Omit<ChunkRecord, "text" | "blocks"> & { content: number };
/** One entry of `contents`: a text and its blocks (null for a chunk stored without). */
export type ChunkContent = [string, ChunkRecord["blocks"] | null];

/** The chunks with their text and blocks put back; undefined when one names no entry. */
function withContents(stored: StoredChunk[], contents: ChunkContent[]): ChunkRecord[] | undefined {
  const chunks: ChunkRecord[] = [];
  for (const { content, ...rest } of stored) {
    const entry = contents[content];
    if (!Array.isArray(entry) || typeof entry[0] !== "string") return undefined;
    const [text, blocks] = entry;
    // The chunk's own fields first and its content after, as the store returns them.
    chunks.push({ ...rest, ...(blocks ? { blocks } : {}), text } as ChunkRecord);
  }
  return chunks;
}

/**
 * The book from the file's JSON text: undefined when it is not JSON, of another format, or a chunk
 * names no entry of `contents`. Reads no file: the text comes from a file or a download.
 */
export function parseBookJson(text: string): BookFile | undefined {
  try {
    const parsed = JSON.parse(text) as {
      format?: unknown;
      contents?: unknown;
      chunks?: unknown;
    } & Partial<Omit<BookFile, "chunks">>;
    if (
      parsed.format !== BOOK_FILE_FORMAT ||
      typeof parsed.indexVersion !== "number" ||
      !Array.isArray(parsed.pages) ||
      !Array.isArray(parsed.chunks) ||
      !Array.isArray(parsed.contents)
    )
      return undefined;
    const chunks = withContents(parsed.chunks as StoredChunk[], parsed.contents as ChunkContent[]);
    if (!chunks) return undefined;
    return {
      indexVersion: parsed.indexVersion,
      pages: parsed.pages,
      chunks,
      ...(Array.isArray(parsed.versions) ? { versions: parsed.versions } : {}),
      ...(Array.isArray(parsed.locales) ? { locales: parsed.locales } : {}),
    };
  } catch {
    return undefined;
  }
}
