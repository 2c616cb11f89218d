import path from "node:path";
import type { Config } from "../config/config.ts";
import { migrate } from "./migrations.ts";
import type { SqlClient } from "./sql-client.ts";

/** Opens the configured database (PostgreSQL when `databaseUrl` is set, else PGlite) and migrates it. */
export async function openDatabase(
  config: Pick<Config, "dataDir" | "databaseUrl"> & {
    /** V8's optimising compiler for PGlite's WebAssembly (store/pglite.ts); V8's own default. */
    pgliteOptimize?: boolean;
    /** PGlite on a worker thread of its own (store/pglite-thread.ts), not the calling thread. */
    pgliteWorker?: boolean;
    vector?: boolean;
  },
): Promise<SqlClient> {
  // Each database loads only when it is used: a command answering from the book's files starts
  // neither.
  const db = config.databaseUrl
    ? await (await import("./postgres.ts")).openPostgres(config.databaseUrl)
    : await (config.pgliteWorker
        ? (await import("./pglite-thread.ts")).openPgliteThread
        : (await import("./pglite.ts")).openPglite)(path.join(config.dataDir, "db"), {
        vector: config.vector ?? false,
        optimize: config.pgliteOptimize ?? true,
      });
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}
