import { open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { BookLocale, BookVersion, ChunkRecord, PageSummary } from "../store/document-store.ts";

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
const BOOK_FILE_FORMAT = 2;
/** Chunks per write: the file is written in pieces, never as one string of the whole book. */
const CHUNKS_PER_WRITE = 256;

export function bookFilePath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.book.json`);
}

/** A chunk as the file holds it: its text and blocks in `contents`, at `content`. */
type StoredChunk = Omit<ChunkRecord, "text" | "blocks"> & { content: number };
/** One entry of `contents`: a text and its blocks (null for a chunk stored without). */
type ChunkContent = [string, ChunkRecord["blocks"] | null];

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

/** Where an ingest sets the file aside while it writes (restored when nothing changed). */
function asidePath(file: string): string {
  return `${file}.aside`;
}

/** The book file, or undefined when there is none, it cannot be read, or it is of another format. */
export async function readBookFile(
  dataDir: string,
  collection: string,
): Promise<BookFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(bookFilePath(dataDir, collection), "utf8")) as {
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

/** Writes the file atomically (temp file + rename) and drops one set aside by an ingest. */
export async function writeBookFile(
  dataDir: string,
  collection: string,
  book: BookFile,
): Promise<void> {
  const file = bookFilePath(dataDir, collection);
  await writeBookJson(file, book);
  await rm(asidePath(file), { force: true });
}

/**
 * Writes the book as JSON to a file atomically (temp file + rename), chunks a few hundred at a time
 * (never the whole book as one string): the book file, and a static build's copy of it.
 */
export async function writeBookJson(file: string, book: BookFile): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const out = await open(temporary, "w");
    try {
      await out.write(
        `{"format":${BOOK_FILE_FORMAT},"indexVersion":${book.indexVersion},${book.versions?.length ? `"versions":${JSON.stringify(book.versions)},` : ""}${book.locales?.length ? `"locales":${JSON.stringify(book.locales)},` : ""}"pages":${JSON.stringify(book.pages)},"chunks":[`,
      );
      const contents = new Map<string, number>();
      const pieces: string[] = [];
      for (let start = 0; start < book.chunks.length; start += CHUNKS_PER_WRITE) {
        const piece = book.chunks.slice(start, start + CHUNKS_PER_WRITE).map((chunk) => {
          const { text, blocks, ...rest } = chunk;
          const content = JSON.stringify([text, blocks ?? null]);
          let entry = contents.get(content);
          if (entry === undefined) {
            entry = contents.size;
            contents.set(content, entry);
            pieces.push(content);
          }
          return JSON.stringify({ ...rest, content: entry });
        });
        await out.write(`${start > 0 ? "," : ""}${piece.join(",")}`);
      }
      await out.write(`],"contents":[`);
      for (let start = 0; start < pieces.length; start += CHUNKS_PER_WRITE) {
        const piece = pieces.slice(start, start + CHUNKS_PER_WRITE);
        await out.write(`${start > 0 ? "," : ""}${piece.join(",")}`);
      }
      await out.write("]}");
    } finally {
      await out.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Before an ingest writes the database: no reader may take the file for the book meanwhile. */
export async function setBookFileAside(dataDir: string, collection: string): Promise<void> {
  const file = bookFilePath(dataDir, collection);
  await rename(file, asidePath(file)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** After an ingest that changed nothing: the file set aside still matches the database. */
export async function restoreBookFile(dataDir: string, collection: string): Promise<void> {
  const file = bookFilePath(dataDir, collection);
  await rename(asidePath(file), file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** The index version the file was written at, read from its first bytes; undefined without one. */
export async function bookFileVersion(
  dataDir: string,
  collection: string,
): Promise<number | undefined> {
  try {
    const handle = await open(bookFilePath(dataDir, collection), "r");
    try {
      const head = Buffer.alloc(80);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const match = /^\{"format":(\d+),"indexVersion":(\d+),/.exec(
        head.subarray(0, bytesRead).toString("utf8"),
      );
      return match && Number(match[1]) === BOOK_FILE_FORMAT ? Number(match[2]) : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Chunks in the order the embedded database returns them (file path in its C collation, i.e. by
 * UTF-8 bytes, then position), so a book read from the file is the book read from the database.
 */
export function inStoreOrder(chunks: Iterable<ChunkRecord>): ChunkRecord[] {
  return [...chunks].sort(
    (a, b) =>
      (a.filePath === b.filePath
        ? 0
        : Buffer.compare(Buffer.from(a.filePath), Buffer.from(b.filePath))) ||
      a.chunkIndex - b.chunkIndex,
  );
}
