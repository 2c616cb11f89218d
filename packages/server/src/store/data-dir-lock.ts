import { randomUUID } from "node:crypto";
import { unlinkSync } from "node:fs";
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { createError } from "@lectern/engine/errors";

/**
 * The embedded database (PGlite) has one owner process. PGlite is PostgreSQL without its
 * postmaster: two processes that open the same data directory each believe they are alone, and
 * their writes destroy each other's pages and WAL (an unreadable database, or answers missing from
 * history after a crash). The owner holds `owner.lock` in the data directory, created exclusively,
 * with who it is; every other process is refused (DATA_DIR_IN_USE) before it opens anything. A
 * lock whose process is gone (a crash, a kill -9) is taken over. PostgreSQL (DATABASE_URL) takes
 * no such lock: it is made for many processes.
 */

export interface DataDirOwner {
  pid: number;
  /** The owner's command line (`lectern serve --docs docs`). */
  command: string;
  /** Where a server owner answers, once it listens. */
  url?: string;
  startedAt: string;
  hostname: string;
}

export interface DataDirLock {
  readonly file: string;
  /** Records more about the owner (a server's URL, once it listens). */
  update(fields: { url: string }): Promise<void>;
  release(): Promise<void>;
}

export const OWNER_LOCK_FILE = "owner.lock";

/** The lock files this process holds: a second open here is refused too, as from another process. */
const held = new Set<string>();

function releaseAllOnExit(): void {
  for (const file of held) {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  }
}

export function ownerLockPath(dataDir: string): string {
  return path.join(dataDir, OWNER_LOCK_FILE);
}

/** True when a process with this id exists on this host. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This process's command line, as `ps` shows it, with the script named by its file name only. */
export function commandLine(argv: readonly string[] = process.argv): string {
  const [, script, ...args] = argv;
  const name = script ? path.basename(script) : "node";
  return [name.replace(/^main\.[jt]s$/, "lectern").replace(/\.js$/, ""), ...args]
    .join(" ")
    .slice(0, 300);
}

async function readOwner(file: string): Promise<DataDirOwner | "unreadable" | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<DataDirOwner>;
    if (typeof owner.pid !== "number") return "unreadable";
    return {
      pid: owner.pid,
      command: String(owner.command ?? "unknown"),
      ...(typeof owner.url === "string" ? { url: owner.url } : {}),
      startedAt: String(owner.startedAt ?? "unknown"),
      hostname: String(owner.hostname ?? ""),
    };
  } catch {
    return "unreadable";
  }
}

/** Writes `owner` under another name first: the lock never appears without its owner in it. */
async function writeDraft(file: string, owner: DataDirOwner): Promise<string> {
  const draft = `${file}.${process.pid}.${randomUUID()}`;
  await writeFile(draft, `${JSON.stringify(owner)}\n`);
  return draft;
}

function sameOwner(a: DataDirOwner | "unreadable" | undefined, b: DataDirOwner | "unreadable") {
  if (a === undefined || a === "unreadable" || b === "unreadable") return a === b;
  return a.pid === b.pid && a.startedAt === b.startedAt && a.hostname === b.hostname;
}

export function dataDirInUse(dataDir: string, owner: DataDirOwner, self = false): Error {
  const file = ownerLockPath(dataDir);
  const where = owner.hostname === hostname() ? "on this host" : `on host ${owner.hostname}`;
  const who = self
    ? "this process (it is already open here)"
    : `another process: pid ${owner.pid} (${owner.command}) ${where}${owner.url ? `, answering at ${owner.url}` : ""}, since ${owner.startedAt}`;
  const server = owner.url !== undefined || /\b(serve|start)\b/.test(owner.command);
  const instead = server
    ? 'To update the book, restart that server with --docs <dir> (it ingests at start; unchanged pages take seconds), or set DATABASE_URL so that "lectern ingest" and the servers share a PostgreSQL database.'
    : "Wait for it to finish, or set DATABASE_URL so that several processes share a PostgreSQL database.";
  const stale = self ? "" : ` If no such process exists, delete ${file}.`;
  return createError(
    "DATA_DIR_IN_USE",
    `The data directory ${path.resolve(dataDir)} is in use by ${who}. Its embedded database can be open in one process only. ${instead}${stale}`,
    {
      details: {
        pid: owner.pid,
        command: owner.command,
        url: owner.url ?? null,
        hostname: owner.hostname,
        lockFile: file,
      },
    },
  );
}

/**
 * Takes the owner lock of `dataDir`, or throws DATA_DIR_IN_USE naming the process that holds it.
 * A lock left by a process that no longer runs on this host is taken over, with `onNotice`.
 */
export async function acquireDataDirLock(
  dataDir: string,
  options: { command?: string; onNotice?: (message: string) => void } = {},
): Promise<DataDirLock> {
  const file = ownerLockPath(dataDir);
  const self: DataDirOwner = {
    pid: process.pid,
    command: options.command ?? commandLine(),
    startedAt: new Date().toISOString(),
    hostname: hostname(),
  };
  await mkdir(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (held.has(file)) throw dataDirInUse(dataDir, self, true);
    const draft = await writeDraft(file, self);
    try {
      await link(draft, file);
      return holdLock(file, self);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(draft).catch(() => {});
    }
    const owner = await readOwner(file);
    if (owner === undefined) continue; // released in between
    if (owner !== "unreadable") {
      // A process on another host (a shared volume) cannot be checked from here: it may be alive.
      if (owner.hostname !== self.hostname) throw dataDirInUse(dataDir, owner);
      // The same pid as this process, not held here: the lock of an earlier life of this process
      // id (a container restarted after a kill, whose server is pid 1 again).
      if (owner.pid !== process.pid && isRunning(owner.pid)) throw dataDirInUse(dataDir, owner);
    }
    // Stale. Moved aside rather than deleted, so that of two processes taking it over at once
    // the second sees that what it moved is the first one's new lock, and puts it back.
    const aside = `${file}.stale.${process.pid}.${randomUUID()}`;
    try {
      await rename(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    const moved = await readOwner(aside);
    if (!sameOwner(moved, owner)) {
      await link(aside, file).catch(() => {});
      await unlink(aside).catch(() => {});
      continue;
    }
    await unlink(aside).catch(() => {});
    options.onNotice?.(
      owner === "unreadable"
        ? `Took over the unreadable lock ${file}.`
        : `Took over the lock ${file} of pid ${owner.pid} (${owner.command}, since ${owner.startedAt}), which is no longer running.`,
    );
  }
  throw createError(
    "DATA_DIR_IN_USE",
    `Could not take the lock ${file}: other processes keep taking it; try again.`,
    { details: { lockFile: file } },
  );
}

function holdLock(file: string, owner: DataDirOwner): DataDirLock {
  if (held.size === 0) process.on("exit", releaseAllOnExit);
  held.add(file);
  let current = owner;
  let released = false;
  return {
    file,
    async update(fields) {
      if (released) return;
      current = { ...current, ...fields };
      const draft = await writeDraft(file, current);
      await rename(draft, file); // replaces the lock in one step
    },
    async release() {
      if (released) return;
      released = true;
      held.delete(file);
      if (held.size === 0) process.off("exit", releaseAllOnExit);
      // Only this process's own lock: one taken over meanwhile (by hand) is someone else's.
      if (sameOwner(await readOwner(file).catch(() => undefined), current)) {
        await unlink(file).catch(() => {});
      }
    },
  };
}
