import { randomUUID } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import { isRunning } from "../store/data-dir-lock.ts";

/**
 * One ingest at a time per book and data directory. Two runs at once would each compare the
 * docs with the same stored state and then both write, and both rewrite the BM25 snapshot. The
 * lock is a file created exclusively in the data directory, holding the owner's pid; a lock
 * whose process is gone (a crash, a kill -9) is taken over.
 */

export interface IngestLock {
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  since: string;
}

export function lockPath(dataDir: string, collection: string): string {
  return path.join(dataDir, `ingest-${collection}.lock`);
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, "utf8")) as Partial<LockOwner>;
    return typeof owner.pid === "number"
      ? { pid: owner.pid, since: String(owner.since) }
      : undefined;
  } catch {
    return undefined;
  }
}

export async function acquireIngestLock(dataDir: string, collection: string): Promise<IngestLock> {
  const file = lockPath(dataDir, collection);
  await mkdir(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    // The lock appears with its owner already written in it: it is written under another name
    // and linked into place, which fails if a lock is there. Created empty and written after,
    // another run could read it in between, find no owner and take it over as stale.
    const draft = `${file}.${process.pid}.${randomUUID()}`;
    await writeFile(draft, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
    try {
      await link(draft, file);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await unlink(file).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(draft).catch(() => {});
    }
    await refuseIfLocked(dataDir, collection);
    // The owner is gone: its lock is stale.
    await unlink(file).catch(() => {});
  }
  throw createError("INGEST_LOCKED", `Could not take the ingest lock ${file}; try again.`);
}

/**
 * INGEST_LOCKED when a live process holds the lock. The CLI asks before it opens the database:
 * the embedded database must not be opened by a second process while an ingest writes to it.
 */
export async function refuseIfLocked(dataDir: string, collection: string): Promise<void> {
  const file = lockPath(dataDir, collection);
  const owner = await readOwner(file);
  if (owner && isRunning(owner.pid)) {
    throw createError(
      "INGEST_LOCKED",
      `Another ingest of "${collection}" is running on ${dataDir} (pid ${owner.pid}, since ${owner.since}); wait for it to finish. If no such process exists, delete ${file}.`,
      { details: { pid: owner.pid } },
    );
  }
}
