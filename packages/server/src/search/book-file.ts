import { open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { BOOK_FILE_FORMAT, type BookFile, parseBookJson } from "@lectern/engine/search/book-json";
import type { ChunkRecord } from "../store/document-store.ts";

/**
 * The book as one file beside its BM25 snapshot (`index/<collection>.book.json`; its contents in
 * book-json.ts). A one-shot reading command (`lectern ask`) answers from it and the snapshot
 * without starting the database.
 *
 * The file exists only while it matches the database: an ingest sets it aside before it writes
 * and writes it again after, so an ingest that stops half-way leaves no file, and the next open
 * of the database (which reads the chunks anyway) writes it again.
 */
export type { BookFile };

/** Chunks per write: the file is written in pieces, never as one string of the whole book. */
const CHUNKS_PER_WRITE = 256;

export function bookFilePath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.book.json`);
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
    return parseBookJson(await readFile(bookFilePath(dataDir, collection), "utf8"));
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
