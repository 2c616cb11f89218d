import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL server the integration suites use (the CI machine runs one on 127.0.0.1:5432). */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 2_000,
  });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Under CI=true a missing PostgreSQL fails the suite instead of skipping it, so CI can never pass
 * without having run the Postgres tests.
 */
export async function requirePostgres(): Promise<boolean> {
  const available = await postgresAvailable();
  if (!available && process.env.CI) {
    throw new Error(`PostgreSQL is required under CI but not reachable at ${TEST_DATABASE_URL}`);
  }
  return available;
}

/** A fresh schema for one suite, so runs never see each other's rows. */
export async function createTestSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `lectern_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
