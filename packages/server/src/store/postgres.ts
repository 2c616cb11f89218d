import pg from "pg";
import { createError } from "../errors.ts";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/** Connects to PostgreSQL (`DATABASE_URL`) with a small pool. */
export async function openPostgres(connectionString: string, poolSize = 10): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection must not crash the process.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw createError(
      "DATABASE_UNAVAILABLE",
      `Cannot connect to PostgreSQL at ${redact(connectionString)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const wrap = (target: Pick<pg.Pool | pg.PoolClient, "query">): SqlQueryable => ({
    async query<Row>(sql: string, params: unknown[] = []) {
      const result = await target.query(sql, params);
      return result.rows as Row[];
    },
  });
  return {
    kind: "postgres",
    ...wrap(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Hides the password of a connection string in messages. */
export function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "the configured DATABASE_URL";
  }
}
