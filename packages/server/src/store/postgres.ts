import { createError } from "@lectern/engine/errors";
import pg from "pg";
import type { SqlClient, SqlQueryable } from "./sql-client.ts";

/** Connections the server keeps to PostgreSQL at most. */
export const POSTGRES_POOL_SIZE = 10;

/** Connects to PostgreSQL (`DATABASE_URL`) with a small pool. */
export async function openPostgres(
  connectionString: string,
  poolSize = POSTGRES_POOL_SIZE,
): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 5_000 });
  // A connection can die at any moment (a backend terminated, the server stopped or failing
  // over). pg then emits 'error' on the client, a second time when the socket closes, and on the
  // pool for an idle client; an 'error' event nobody listens to ends the process. pg-pool listens
  // only while a client is idle, and only once around pool.query, so every client gets a listener
  // of its own for its whole life. The query that was running fails with the error and the pool
  // drops the broken client when it is released.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
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
      const result = await target.query(sql, params).catch((error: unknown) => {
        throw unavailableOr(error);
      });
      return result.rows as Row[];
    },
  });
  return {
    kind: "postgres",
    ...wrap(pool),
    async transaction(work) {
      const client = await pool.connect().catch((error: unknown) => {
        throw unavailableOr(error);
      });
      // A client whose ROLLBACK failed is in an unknown state: the pool must not hand it out again.
      let broken: Error | undefined;
      const tx = wrap(client);
      try {
        await tx.query("BEGIN");
        const result = await work(tx);
        await tx.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * A system error of the socket to PostgreSQL (ECONNRESET, EPIPE, ETIMEDOUT…: a code but no
 * SQLSTATE) becomes DATABASE_UNAVAILABLE here, where its origin is known: the same codes from a
 * reader's socket are a client going away, not the database.
 */
export function unavailableOr(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== "string" || !/^E[A-Z]+$/.test(code)) {
    return error;
  }
  return createError("DATABASE_UNAVAILABLE", undefined, { cause: error });
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
