import { existsSync } from "node:fs";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { Retriever } from "@lectern/engine/search/retriever";
import type { Config } from "../config/config.ts";
import {
  type BookReader,
  type Lectern,
  type OpenOptions,
  openLectern,
  readBookFromFiles,
} from "../lectern.ts";
import { createChatPipeline } from "../pipeline/answering.ts";
import { createSafeLogger } from "../util/safe-log.ts";

/** What the commands share: opening the index and the `/chat` pipeline. */

/** For read-only commands: a data directory that was never created holds nothing to search. */
export function requireDataDir(config: Config): void {
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, "db"))) {
    throw createError(
      "INDEX_EMPTY",
      `Nothing has been ingested into ${path.resolve(config.dataDir)} yet. Run: lectern ingest --docs <dir>`,
    );
  }
}

export function requireIndex(lectern: Pick<BookReader, "served" | "config">): void {
  if (lectern.served.terms.size === 0) {
    throw createError(
      "INDEX_EMPTY",
      `Nothing has been ingested into ${configLocation(lectern.config)} yet. Run: lectern ingest --docs <dir>`,
    );
  }
}

function configLocation(config: Config): string {
  return config.databaseUrl ? "the database" : path.resolve(config.dataDir);
}

export async function withLectern<T>(
  config: Config,
  work: (lectern: Lectern) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const lectern = await openLectern(config, options);
  try {
    return await work(lectern);
  } finally {
    await lectern.close();
  }
}

/**
 * For a command that only answers: the book read from its files when they are there and current
 * (no database started, no lock taken), else the opened library.
 */
export async function withBook<T>(
  config: Config,
  work: (book: BookReader) => Promise<T>,
): Promise<T> {
  const book = await readBookFromFiles(config);
  if (!book) return withLectern(config, work);
  try {
    return await work(book);
  } finally {
    await book.close();
  }
}

/** The pipeline `/chat` runs, for the CLI's commands (logs go to stderr, warnings only). */
export function pipelineOf(lectern: BookReader, retriever?: Retriever): ChatPipeline {
  const logger = createSafeLogger("warn");
  return createChatPipeline(lectern, logger, retriever ? { retriever } : {}).pipeline;
}
