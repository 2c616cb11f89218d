import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { createError, ERROR_CODES } from "@lectern/engine/errors";
import {
  cannotOpen,
  compileWith,
  corruptionOr,
  PGLITE_SETTINGS,
  prepareDirectory,
  queryMessage,
} from "./pglite.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/**
 * PGlite runs PostgreSQL as WebAssembly on the thread that calls it. In a server, every answer
 * reads and writes its conversation there, so the database's work (planning, executing, parsing
 * JSONB) competes with HTTP, retrieval and answering for one core. Here the database runs on a
 * worker thread of its own, and the server's thread only sends SQL and receives rows, so a
 * machine with two cores uses both (docs/benchmarks.md, "History on PGlite on a thread of its
 * own").
 *
 * The worker's code is plain JavaScript given as text, so it runs the same from the TypeScript
 * sources, the compiled package and the test runner, none of which would load the others' files.
 * It loads modules with `import()` alone: the text runs as CommonJS or as an ES module depending
 * on the flags the process was started with (`--input-type`), and `import()` works in both.
 * Statements reach PGlite in the order they were called, as on one thread; a transaction holds
 * PGlite's lock from BEGIN until the calling side ends it, so other statements wait for it, as
 * PGlite's own `transaction` makes them wait in-process.
 */
const WORKER_SOURCE = `
let parentPort;
let workerData;
const ROLLBACK = Symbol("rollback");
const transactions = new Map();
let nextTransaction = 1;
let db;

function plain(error) {
  const fields = {};
  if (error && typeof error === "object") {
    for (const [key, value] of Object.entries(error)) {
      if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
    }
  }
  return {
    name: error && error.name ? String(error.name) : "Error",
    message: error && error.message !== undefined ? String(error.message) : String(error),
    fields,
  };
}

function begin() {
  return new Promise((started, failed) => {
    const id = nextTransaction++;
    const entry = { tx: undefined, finish: undefined, done: undefined };
    const ended = new Promise((resolve, reject) => {
      entry.finish = { resolve, reject };
    });
    transactions.set(id, entry);
    entry.done = db.transaction(async (tx) => {
      entry.tx = tx;
      started(id);
      await ended;
    });
    entry.done.catch((error) => {
      if (entry.tx === undefined) {
        transactions.delete(id);
        failed(error);
      }
    });
  });
}

async function end(id, commit) {
  const entry = transactions.get(id);
  if (!entry) throw new Error("The transaction has already ended.");
  if (commit) entry.finish.resolve();
  else entry.finish.reject(ROLLBACK);
  try {
    await entry.done;
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  } finally {
    transactions.delete(id);
  }
}

// The Query message arrives built by the calling thread; run as runQueryMessage in pglite.ts runs
// it (exec's locks, then Sync), sparing exec's character-by-character copy of the text.
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

async function runScript(bytes) {
  await db._runExclusiveTransaction(() =>
    db._runExclusiveQuery(async () => {
      try {
        await db.execProtocol(bytes, { syncToFs: false });
      } finally {
        await db.execProtocol(SYNC, { syncToFs: false });
      }
      await db.syncToFs();
    }),
  );
}

async function handle(message) {
  switch (message.op) {
    case "query": {
      const target = message.tx === undefined ? db : transactions.get(message.tx)?.tx;
      if (!target) throw new Error("The transaction has already ended.");
      return (await target.query(message.sql, message.params)).rows;
    }
    case "script":
      await runScript(message.bytes);
      return undefined;
    case "begin":
      return await begin();
    case "end":
      return await end(message.tx, message.commit);
    case "close":
      await db.close();
      return undefined;
    default:
      throw new Error("Unknown operation " + message.op);
  }
}

async function load(url, name) {
  const loaded = await import(url);
  return loaded[name] ?? loaded.default[name];
}

(async () => {
  ({ parentPort, workerData } = await import("node:worker_threads"));
  const PGlite = await load(workerData.pgliteUrl, "PGlite");
  const options = { postgresqlconf: workerData.settings };
  if (workerData.vectorUrl) options.extensions = { vector: await load(workerData.vectorUrl, "vector") };
  db = workerData.directory ? new PGlite(workerData.directory, options) : new PGlite(options);
  await db.waitReady;
  await db.query("SELECT 1");
  parentPort.on("message", (message) => {
    handle(message).then(
      (result) => parentPort.postMessage({ id: message.id, result }),
      (error) => parentPort.postMessage({ id: message.id, error: plain(error) }),
    );
  });
  parentPort.postMessage({ ready: true });
})().catch(async (error) => {
  const { parentPort } = await import("node:worker_threads");
  parentPort.postMessage({ ready: false, error: plain(error) });
});
`;

interface WorkerError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

type Reply =
  | { ready: true }
  | { ready: false; error: WorkerError }
  | { id: number; result?: unknown; error?: WorkerError };

type Operation =
  | { op: "query"; sql: string; params: unknown[]; tx?: number }
  | { op: "script"; bytes: Uint8Array }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "close" };

/** The file URL of a package's entry, resolved from here, for the worker's `import()`. */
function moduleUrl(name: string): string {
  return pathToFileURL(createRequire(import.meta.url).resolve(name)).href;
}

/** An error from the worker, with PostgreSQL's fields (`code`, `detail`, …) as PGlite gave them. */
function revive(error: WorkerError): Error {
  const revived = Object.assign(new Error(error.message), error.fields);
  revived.name = error.name;
  return revived;
}

/**
 * Opens (or creates) an embedded PGlite database in `directory` (in memory when omitted) on a
 * worker thread. The same `SqlClient` as `openPglite`, so every store works unchanged on it.
 */
export async function openPgliteThread(
  directory?: string,
  options: { vector?: boolean; optimize?: boolean } = {},
): Promise<SqlClient> {
  try {
    if (directory) await prepareDirectory(directory);
  } catch (error) {
    throw cannotOpen(directory, error);
  }
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      pgliteUrl: moduleUrl("@electric-sql/pglite"),
      // pgvector is loaded only when dense retrieval is on: it adds to start-up time.
      vectorUrl: options.vector ? moduleUrl("@electric-sql/pglite-pgvector") : undefined,
      directory,
      settings: [...PGLITE_SETTINGS],
    },
  });
  try {
    await compileWith(
      options.optimize ?? true,
      () =>
        new Promise<void>((resolve, reject) => {
          const onMessage = (reply: Reply) => {
            if (!("ready" in reply)) return;
            worker.off("message", onMessage);
            worker.off("error", reject);
            if (reply.ready) resolve();
            else reject(revive(reply.error));
          };
          worker.on("message", onMessage);
          worker.once("error", reject);
        }),
    );
  } catch (error) {
    // A worker that failed to open the directory is not left running.
    await worker.terminate();
    throw cannotOpen(directory, error);
  }

  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let stopped: Error | undefined;
  // The worker keeps the process alive only while a statement is in flight, as PGlite on the
  // calling thread does: a command that forgets to close the database still ends.
  worker.unref();

  // What a client sees is the code's own message; the reason goes to the log with the cause.
  const unavailable = (reason: string) =>
    createError("DATABASE_UNAVAILABLE", ERROR_CODES.DATABASE_UNAVAILABLE.message, {
      cause: new Error(reason),
    });
  const stop = (reason: string) => {
    stopped ??= unavailable(`The embedded database stopped: ${reason}`);
    for (const waiting of pending.values()) waiting.reject(stopped);
    pending.clear();
  };
  worker.on("message", (reply: Reply) => {
    if (!("id" in reply)) return;
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.error) waiting.reject(revive(reply.error));
    else waiting.resolve(reply.result);
  });
  worker.on("error", (error) => stop(error.message.split("\n")[0] ?? "error"));
  worker.on("exit", (code) => stop(`its thread exited with code ${code}`));

  const call = <T>(operation: Operation, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ id, ...operation }, transfer);
    });
  };
  const queryable = (tx?: number): SqlQueryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      try {
        return await call<Row[]>({ op: "query", sql, params, ...(tx === undefined ? {} : { tx }) });
      } catch (error) {
        throw corruptionOr(error);
      }
    },
  });

  let closing: Promise<void> | undefined;
  return {
    kind: "pglite",
    ...queryable(),
    transaction: async (work) => {
      const tx = await call<number>({ op: "begin" });
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work(queryable(tx));
      } catch (error) {
        await call({ op: "end", tx, commit: false }).catch(() => {});
        throw corruptionOr(error);
      }
      try {
        await call({ op: "end", tx, commit: true });
      } catch (error) {
        throw corruptionOr(error);
      }
      return result;
    },
    script: async (sql) => {
      try {
        const bytes = queryMessage(sql);
        // Handed over, not copied: the calling thread does not use it again.
        await call({ op: "script", bytes }, [bytes.buffer as ArrayBuffer]);
      } catch (error) {
        throw corruptionOr(error);
      }
    },
    close: () => {
      closing ??= (async () => {
        try {
          if (!stopped) await call({ op: "close" });
        } finally {
          stopped ??= unavailable("The embedded database is closed");
          await worker.terminate();
        }
      })();
      return closing;
    },
  };
}
