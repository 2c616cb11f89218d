import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { ConversationHistoryResponseSchema, ErrorBodySchema } from "../src/http/wire.ts";
import { openLectern } from "../src/lectern.ts";
import { POSTGRES_POOL_SIZE } from "../src/store/postgres.ts";
import { SAMPLE_DOCS } from "./cli.ts";
import { createTestSchema, requirePostgres } from "./postgres.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";
import { postgresBinaries, startThrowawayPostgres } from "./throwaway-postgres.ts";

/**
 * PostgreSQL connections lost while `lectern serve` is busy: the process must survive, the chats
 * caught in it answer 503 DATABASE_UNAVAILABLE with Retry-After and store nothing, and the server
 * answers again once the database is back, without a restart. The load is made deterministic by
 * holding a lock on `sessions`: every chat's transaction waits inside its INSERT, with its pooled
 * connection checked out, until the test kills the connections.
 */

/** The server's pool holds this many connections, so this many chats wait on the lock at once. */
const POOL_SIZE = POSTGRES_POOL_SIZE;
const CHATS = 20;

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-db-loss-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** Ingests the sample book into the database at `databaseUrl`; returns the data directory. */
async function ingestSampleBook(databaseUrl: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(workDir, "data-"));
  const config = loadConfig({
    env: { LOG_LEVEL: "silent", DATABASE_URL: databaseUrl },
    overrides: { dataDir },
  });
  const lectern = await openLectern(config);
  try {
    const report = await lectern.ingest(SAMPLE_DOCS);
    if (report.failures.length > 0) throw new Error("the sample book failed to ingest");
  } finally {
    await lectern.close();
  }
  return dataDir;
}

function serve(dataDir: string, databaseUrl: string): Promise<ServerProcess> {
  return startServerProcess(["--port", "0", "--data-dir", dataDir], {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "error",
    RATE_LIMIT_ENABLED: "false",
  });
}

function ask(server: ServerProcess, sessionId: string) {
  return fetch(`${server.url}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "What is a node?", session_id: sessionId }),
  });
}

/** The answer a chat caught in the outage must give. */
async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  const body = ErrorBodySchema.parse(await response.json());
  expect(body.error_code).toBe("DATABASE_UNAVAILABLE");
  expect(body.message).not.toMatch(/terminat|connection|SQL|pg/i);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
}

/** A chat answered and recorded once the database is back. */
async function expectRecovered(server: ServerProcess) {
  const sessionId = randomUUID();
  const response = await ask(server, sessionId);
  expect(response.status).toBe(200);
  const history = ConversationHistoryResponseSchema.parse(
    await (await fetch(`${server.url}/history/${sessionId}`)).json(),
  );
  expect(history.total_entries).toBe(1);
}

/** Holds the lock that makes every chat's INSERT INTO sessions wait. */
async function lockSessions(connectionString: string) {
  const admin = new pg.Client({ connectionString });
  // The immediate stop kills this connection too.
  admin.on("error", () => {});
  await admin.connect();
  await admin.query("BEGIN");
  await admin.query("LOCK TABLE sessions IN EXCLUSIVE MODE");
  return admin;
}

/** Run outside a transaction: pg_stat_activity keeps one snapshot per transaction. */
async function waitingOnLock(observer: pg.Client, applicationName: string): Promise<number> {
  const { rows } = await observer.query<{ waiting: string }>(
    `SELECT count(*) AS waiting FROM pg_stat_activity
      WHERE application_name = $1 AND wait_event_type = 'Lock'`,
    [applicationName],
  );
  return Number(rows[0]?.waiting ?? 0);
}

async function storedRows(connectionString: string, sessionIds: string[]) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ sessions: string; conversations: string }>(
      `SELECT (SELECT count(*) FROM sessions WHERE session_id = ANY($1::uuid[])) AS sessions,
              (SELECT count(*) FROM conversations WHERE session_id = ANY($1::uuid[])) AS conversations`,
      [sessionIds],
    );
    return { sessions: Number(rows[0]?.sessions), conversations: Number(rows[0]?.conversations) };
  } finally {
    await client.end();
  }
}

function withApplicationName(connectionString: string, applicationName: string): string {
  const url = new URL(connectionString);
  url.searchParams.set("application_name", applicationName);
  return url.toString();
}

const postgresReady = await requirePostgres();

describe.runIf(postgresReady)("PostgreSQL connections terminated under load", () => {
  it("keeps the process up, answers 503 with Retry-After, stores nothing half-written and recovers", async () => {
    const schema = await createTestSchema();
    // Only this test's backends carry this name, so only they are terminated.
    const applicationName = `lectern_test_${randomBytes(6).toString("hex")}`;
    const databaseUrl = withApplicationName(schema.url, applicationName);
    const observer = new pg.Client({ connectionString: schema.url });
    await observer.connect();
    let server: ServerProcess | undefined;
    let admin: pg.Client | undefined;
    try {
      server = await serve(await ingestSampleBook(databaseUrl), databaseUrl);
      const running = server;
      admin = await lockSessions(schema.url);
      const sessionIds = Array.from({ length: CHATS }, () => randomUUID());
      const chats = Promise.all(sessionIds.map((sessionId) => ask(running, sessionId)));
      chats.catch(() => {});
      // The first ten chats hold every pooled connection; the rest wait for one. Killing the
      // connections twice catches both groups inside their transactions.
      for (let round = 0; round < CHATS / POOL_SIZE; round++) {
        await server.whileAlive(
          vi.waitFor(
            async () => expect(await waitingOnLock(observer, applicationName)).toBe(POOL_SIZE),
            { timeout: 30_000, interval: 25 },
          ),
        );
        await observer.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
          [applicationName],
        );
      }
      for (const response of await server.whileAlive(chats)) await expectUnavailable(response);
      await admin.query("ROLLBACK");

      expect(server.alive(), server.stderr()).toBe(true);
      expect(await storedRows(schema.url, sessionIds)).toEqual({ sessions: 0, conversations: 0 });
      await expectRecovered(server);
      expect(server.stderr()).not.toMatch(/Unhandled 'error' event/);
    } finally {
      await server?.stop();
      await admin?.end();
      await observer.end();
      await schema.drop();
    }
  });
});

const binaries = postgresBinaries();
if (!binaries && process.env.CI) throw new Error("CI needs the PostgreSQL server binaries");

describe.runIf(binaries)("PostgreSQL stopped with -m immediate under load", () => {
  it("keeps the process up, answers 503 while the database is down and recovers when it is back", async () => {
    const cluster = await startThrowawayPostgres(binaries ?? "");
    const applicationName = "lectern_server";
    const databaseUrl = withApplicationName(cluster.url, applicationName);
    let server: ServerProcess | undefined;
    try {
      server = await serve(await ingestSampleBook(databaseUrl), databaseUrl);
      const running = server;
      // Both die with the cluster; neither is used after the stop.
      await lockSessions(cluster.url);
      const observer = new pg.Client({ connectionString: cluster.url });
      observer.on("error", () => {});
      await observer.connect();
      const sessionIds = Array.from({ length: CHATS }, () => randomUUID());
      const chats = Promise.all(sessionIds.map((sessionId) => ask(running, sessionId)));
      chats.catch(() => {});
      await server.whileAlive(
        vi.waitFor(
          async () => expect(await waitingOnLock(observer, applicationName)).toBe(POOL_SIZE),
          { timeout: 30_000, interval: 25 },
        ),
      );
      await cluster.stop("immediate");
      for (const response of await server.whileAlive(chats)) await expectUnavailable(response);
      // While the database is down, new chats are refused the same way.
      await expectUnavailable(await ask(server, randomUUID()));
      expect(server.alive(), server.stderr()).toBe(true);

      await cluster.start();
      await expectRecovered(server);
      expect(await storedRows(cluster.url, sessionIds)).toEqual({ sessions: 0, conversations: 0 });
      expect(server.alive(), server.stderr()).toBe(true);
    } finally {
      await server?.stop();
      await cluster.remove();
    }
  });
});
