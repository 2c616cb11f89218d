import { mkdir, open, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import type { ChunkRecord, DocumentStore } from "../store/document-store.ts";
import { TermStatistics } from "./term-statistics.ts";

/** Where the BM25 snapshot of a collection lives inside the data directory. */
export function snapshotPath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.bm25.json`);
}

/**
 * Returns the BM25 index matching the store: the snapshot when it is current, otherwise a rebuild
 * from the stored chunks (then saved, so the next start is fast).
 */
export async function loadLexicalIndex(
  store: DocumentStore,
  dataDir: string,
): Promise<{ index: LexicalIndex; indexVersion: number; rebuilt: boolean }> {
  const { indexVersion } = await store.indexState();
  const chunks = await store.allChunks();
  const file = snapshotPath(dataDir, store.collection);
  const loaded = await readLexicalSnapshot(file, indexVersion, chunks);
  if (loaded) return { index: loaded, indexVersion, rebuilt: false };
  const index = LexicalIndex.build(chunks);
  await saveLexicalIndex(index, dataDir, store.collection, indexVersion);
  return { index, indexVersion, rebuilt: true };
}

/** The BM25 snapshot over these chunks, when it was written at this index version for them. */
export function loadLexicalSnapshot(
  dataDir: string,
  collection: string,
  indexVersion: number,
  chunks: ChunkRecord[],
): Promise<LexicalIndex | undefined> {
  return readLexicalSnapshot(snapshotPath(dataDir, collection), indexVersion, chunks);
}

export async function saveLexicalIndex(
  index: LexicalIndex,
  dataDir: string,
  collection: string,
  indexVersion: number,
): Promise<void> {
  const file = snapshotPath(dataDir, collection);
  await mkdir(path.dirname(file), { recursive: true });
  await writeLexicalSnapshot(index, file, indexVersion);
}

/** The BM25 index from its snapshot file; undefined when the file is missing or does not match. */
export async function readLexicalSnapshot(
  file: string,
  indexVersion: number,
  chunks: ChunkRecord[],
): Promise<LexicalIndex | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  return LexicalIndex.fromSnapshot(text, indexVersion, chunks);
}

/**
 * Writes the snapshot atomically (temp file + rename): a crash never leaves half a file. The JSON
 * goes out in pieces of about a megabyte, never as one string.
 */
export async function writeLexicalSnapshot(
  index: LexicalIndex,
  file: string,
  indexVersion: number,
): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  const out = await open(temporary, "w");
  try {
    let pending: string[] = [];
    let length = 0;
    for (const piece of index.snapshotPieces(indexVersion)) {
      pending.push(piece);
      length += piece.length;
      if (length < 2 ** 20) continue;
      await out.write(pending.join(""));
      pending = [];
      length = 0;
    }
    if (pending.length > 0) await out.write(pending.join(""));
  } finally {
    await out.close();
  }
  await rename(temporary, file);
}

/** Brings a loaded index up to date with one ingest run, without re-tokenising unchanged chunks. */
export function applyToIndex(
  index: LexicalIndex,
  change: { removedChunkIds: string[]; addedChunks: ChunkRecord[] },
): void {
  index.remove(change.removedChunkIds);
  index.add(change.addedChunks);
}

/** Where the term-statistics table of a collection lives (LEXICAL_BACKEND=qdrant). */
export function termStatisticsPath(dataDir: string, collection: string): string {
  return path.join(dataDir, "index", `${collection}.terms.json`);
}

/**
 * The term statistics matching the store: the saved table when it is current, otherwise counted
 * from the stored chunks (then saved). No BM25 index is built.
 */
export async function loadTermStatistics(
  store: DocumentStore,
  dataDir: string,
): Promise<{ statistics: TermStatistics; indexVersion: number; rebuilt: boolean }> {
  const { indexVersion } = await store.indexState();
  const file = termStatisticsPath(dataDir, store.collection);
  const loaded = await TermStatistics.load(file, indexVersion);
  if (loaded) return { statistics: loaded, indexVersion, rebuilt: false };
  const statistics = TermStatistics.fromChunks(await store.allChunks());
  await saveTermStatistics(statistics, dataDir, store.collection, indexVersion);
  return { statistics, indexVersion, rebuilt: true };
}

export async function saveTermStatistics(
  statistics: TermStatistics,
  dataDir: string,
  collection: string,
  indexVersion: number,
): Promise<void> {
  const file = termStatisticsPath(dataDir, collection);
  await mkdir(path.dirname(file), { recursive: true });
  await statistics.save(file, indexVersion);
}
