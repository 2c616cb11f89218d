import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { createError } from "../errors.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/** Opens (or creates) an embedded PGlite database in `directory`, or in memory when omitted. */
export async function openPglite(
  directory?: string,
  options: { vector?: boolean } = {},
): Promise<SqlClient> {
  let db: PGlite;
  try {
    if (directory) mkdirSync(directory, { recursive: true });
    // pgvector is loaded only when dense retrieval is on: it adds to start-up time.
    const extensions = options.vector ? { extensions: { vector } } : {};
    db = directory ? new PGlite(directory, extensions) : new PGlite(extensions);
    await db.waitReady;
    await db.query("SELECT 1");
  } catch (error) {
    throw createError(
      "DATA_DIR_CORRUPT",
      `Cannot open the database in ${directory ?? "memory"}: its files are damaged or from an incompatible version (${shortReason(error)}). Move the directory away and run "lectern ingest" again to rebuild it.`,
      { cause: error },
    );
  }
  const wrap = (target: Pick<PGlite, "query">): SqlQueryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await target.query<Row>(sql, params);
      return result.rows;
    },
  });
  return {
    kind: "pglite",
    ...wrap(db),
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  };
}

function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "unknown error")
    .replace(/\.?\s*Build with -s\w+.*$/, "")
    .slice(0, 120);
}
