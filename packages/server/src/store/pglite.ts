import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { createError } from "@lectern/engine/errors";
import { cutText } from "@lectern/engine/util/cut-text";
import { defaultTemplateFile, makeTemplate, unpackTemplate } from "./data-dir-template.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/**
 * PostgreSQL's buffer pool lives in PGlite's WebAssembly memory, which never shrinks: with the
 * default 128 MB, every page touched under load (history rows, chunks) stays in the process's
 * RSS for good, ~160 MB more after a few rounds of load. The files are read through the
 * operating system, whose page cache already keeps them, so a small pool costs little.
 */
export const PGLITE_SETTINGS = ["shared_buffers = 16MB"] as const;

/**
 * V8 compiles PGlite's WebAssembly (PostgreSQL, 8.7 MB) with its baseline compiler, then
 * recompiles the functions that run often with its optimising compiler on background threads.
 * That second compilation costs 35–120 MB more RSS from the moment the database is open, which the
 * process keeps (docs/reliability.md, "Memory while ingesting"); in exchange PostgreSQL's own work
 * runs 10–30 % faster. An ingest spends its time in Lectern's JavaScript, not in SQL, so it takes
 * the baseline code alone (`optimize: false`); a server keeps V8's default.
 */
export async function compileWith<T>(optimize: boolean, open: () => Promise<T>): Promise<T> {
  // The setting is V8's, read when a module is compiled: it is on only while PGlite compiles
  // its module, and left alone when the process was started with it.
  const baselineOnly = !optimize && !process.execArgv.includes("--liftoff-only");
  if (baselineOnly) setFlagsFromString("--liftoff-only");
  try {
    return await open();
  } finally {
    if (baselineOnly) setFlagsFromString("--no-liftoff-only");
  }
}

/** Opens (or creates) an embedded PGlite database in `directory`, or in memory when omitted. */
export async function openPglite(
  directory?: string,
  options: { vector?: boolean; optimize?: boolean } = {},
): Promise<SqlClient> {
  let db: PGlite;
  try {
    if (directory) await prepareDirectory(directory);
    // pgvector is loaded only when dense retrieval is on: it adds to start-up time.
    const extensions = options.vector ? { extensions: { vector } } : {};
    const settings = { ...extensions, postgresqlconf: [...PGLITE_SETTINGS] };
    db = await compileWith(options.optimize ?? true, async () => {
      const opened = directory ? new PGlite(directory, settings) : new PGlite(settings);
      await opened.waitReady;
      return opened;
    });
    await db.query("SELECT 1");
  } catch (error) {
    throw cannotOpen(directory, error);
  }
  const wrap = (target: Pick<PGlite, "query">): SqlQueryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      try {
        const result = await target.query<Row>(sql, params);
        return result.rows;
      } catch (error) {
        throw corruptionOr(error);
      }
    },
  });
  return {
    kind: "pglite",
    ...wrap(db),
    transaction: async (work) => {
      try {
        return await db.transaction((tx) =>
          work({ ...wrap(tx), script: (sql) => runInTransaction(db, queryMessage(sql)) }),
        );
      } catch (error) {
        throw corruptionOr(error);
      }
    },
    script: async (sql) => {
      try {
        await runQueryMessage(db, queryMessage(sql));
      } catch (error) {
        throw corruptionOr(error);
      }
    },
    close: () => db.close(),
  };
}

const utf8 = new TextEncoder();

/**
 * PostgreSQL's Query message for `sql` (simple query protocol: its statements run as one implicit
 * transaction): "Q", the length, the text in UTF-8 and a NUL. A NUL inside the text would end it
 * early; `sqlLiteral` refuses text holding one.
 */
export function queryMessage(sql: string): Uint8Array {
  const length = Buffer.byteLength(sql, "utf8");
  // Its own ArrayBuffer (not Node's shared pool), so it can be transferred to the worker.
  const message = new Uint8Array(length + 6);
  message[0] = 0x51;
  new DataView(message.buffer).setInt32(1, length + 5);
  utf8.encodeInto(sql, message.subarray(5, 5 + length));
  return message;
}

// PostgreSQL's Sync message, which ends the round of a Query as PGlite's exec ends it.
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Runs a built Query message as PGlite's `exec` runs its text, without `exec` measuring the text's
 * UTF-8 length in a JavaScript loop and copying it character by character (a few percent of the
 * database's CPU under history load). The locks and the Sync after the Query are exec's own; an
 * error is PGlite's DatabaseError, as from exec. The same steps run in the worker of
 * pglite-thread.ts.
 */
async function runQueryMessage(db: PGlite, message: Uint8Array): Promise<void> {
  await db._runExclusiveTransaction(() =>
    db._runExclusiveQuery(async () => {
      try {
        await db.execProtocol(message, { syncToFs: false });
      } finally {
        await db.execProtocol(SYNC, { syncToFs: false });
      }
      await db.syncToFs();
    }),
  );
}

/**
 * Runs a built Query message inside the transaction that holds PGlite (see `runQueryMessage`):
 * only the query lock is taken, as PGlite's own queries in a transaction take it.
 */
async function runInTransaction(db: PGlite, message: Uint8Array): Promise<void> {
  await db._runExclusiveQuery(async () => {
    try {
      await db.execProtocol(message, { syncToFs: false });
    } finally {
      await db.execProtocol(SYNC, { syncToFs: false });
    }
  });
}

/** The error for a data directory PGlite cannot open, with what to do about it. */
export function cannotOpen(directory: string | undefined, error: unknown): Error {
  return createError(
    "DATA_DIR_CORRUPT",
    `Cannot open the database in ${directory ?? "memory"}: its files are damaged or from an incompatible version (${shortReason(error)}). Move the directory away and run "lectern ingest" again to rebuild it.`,
    { cause: error },
  );
}

/**
 * Makes `directory` ready for PGlite: created, with a data directory inside if new, unpacked from
 * the template of initdb's files (`data-dir-template.ts`), made first when there is none yet. Should
 * the template be out of reach (a folder that cannot be written), initdb runs as before.
 */
export async function prepareDirectory(
  directory: string,
  templateFile: string = defaultTemplateFile(),
): Promise<void> {
  mkdirSync(directory, { recursive: true });
  if (existsSync(path.join(directory, "PG_VERSION"))) return;
  if (existsSync(templateFile) || (await makeTemplate(templateFile, PGLITE_SETTINGS))) {
    try {
      unpackTemplate(templateFile, directory);
      return;
    } catch {
      // A damaged template: initdb below makes the directory.
    }
  }
  await createDataDirectory(directory);
}

/**
 * Creates a new data directory (initdb) in a short-lived child process, when there is no template
 * to unpack. initdb runs in a WebAssembly instance of its own: creating a directory in this
 * process left ~770 MB of RSS for good (both instances' memory), against ~290 MB for opening an
 * existing directory, and made initdb's peak this process's peak. If the child fails, opening the
 * directory afterwards runs initdb in this process as before.
 */
async function createDataDirectory(directory: string): Promise<void> {
  const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const source = `
    const [pgliteEntry, directory, settings] = process.argv.slice(1);
    const { PGlite } = require(pgliteEntry);
    (async () => {
      const db = new PGlite(directory, { postgresqlconf: JSON.parse(settings) });
      await db.waitReady;
      await db.close();
    })().catch((error) => {
      process.stderr.write(String(error && error.message));
      process.exitCode = 1;
    });
  `;
  await new Promise<void>((resolve) => {
    // Whatever the outcome, opening the directory afterwards tells whether it is usable.
    execFile(
      process.execPath,
      ["-e", source, pgliteEntry, directory, JSON.stringify(PGLITE_SETTINGS)],
      { env: { PATH: process.env.PATH ?? "" }, timeout: 300_000 },
      () => resolve(),
    );
  });
}

/** SQLSTATEs of damaged files: data_corrupted, index_corrupted. */
const CORRUPTION_CODES = new Set(["XX001", "XX002"]);
const CORRUPTION_MESSAGE = /could not read blocks?|invalid page in block|could not open file/i;

/**
 * A query that found a damaged table file (truncated or overwritten on disk) gets the same
 * guidance as a data directory that cannot be opened, instead of PostgreSQL's raw message as an
 * internal error. The message names no server path: it may reach an API client.
 */
export function corruptionOr(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const damaged =
    (typeof code === "string" && CORRUPTION_CODES.has(code)) ||
    (typeof message === "string" && CORRUPTION_MESSAGE.test(message));
  if (!damaged) return error;
  return createError(
    "DATA_DIR_CORRUPT",
    `The book's database is damaged (${shortReason(error)}). Move the data directory away and run "lectern ingest" again to rebuild it.`,
    { cause: error },
  );
}

function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return cutText(
    (message.split("\n")[0] ?? "unknown error").replace(/\.?\s*Build with -s\w+.*$/, ""),
    120,
  );
}
