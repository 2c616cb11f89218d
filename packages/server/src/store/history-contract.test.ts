// Over 300 lines on purpose: one contract suite that every history backend runs.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestSchema, requirePostgres } from "../../test/postgres.ts";
import type { HistoryExchange, HistoryStore } from "./history-store.ts";
import { MemoryHistoryStore } from "./memory-history-store.ts";
import { MIGRATIONS, migrate } from "./migrations.ts";
import { OffHistoryStore } from "./off-history-store.ts";
import { openPglite } from "./pglite.ts";
import { openPgliteThread } from "./pglite-thread.ts";
import { openPostgres } from "./postgres.ts";
import type { SqlClient } from "./sql-client.ts";
import { SqlHistoryStore } from "./sql-history-store.ts";

/**
 * One suite, run against every history backend that stores something: the SQL store on PGlite and
 * on PostgreSQL, and the in-memory store. Tests that need to look under the store (rows left
 * behind, a failure only the database raises) run on the SQL backends only.
 */

const DAY = 24 * 60 * 60 * 1000;

interface Harness {
  /** The store under test (the memory backend gets a fresh one per test). */
  readonly store: HistoryStore;
  /** The SQL client underneath, for SQL-only checks. */
  readonly db: SqlClient | undefined;
  /** The time as the store sees it. */
  now(): number;
  /** Empties the store before each test. */
  reset(): Promise<void>;
  /** Saves an exchange so that its session was last active `days` ago. */
  saveAged(exchange: HistoryExchange, days: number): Promise<void>;
  /** Gives every exchange of the session the same timestamp. */
  sameTimestamps(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

function sqlHarness(
  db: SqlClient,
  cleanup: () => Promise<void>,
  options: { literalBatches?: boolean } = {},
): Harness {
  const store = new SqlHistoryStore(db, options);
  return {
    store,
    db,
    now: () => Date.now(),
    async reset() {
      await db.query("DELETE FROM sessions");
    },
    async saveAged(exchange, days) {
      await store.saveExchange(exchange);
      await db.query(
        "UPDATE sessions SET last_active = now() - $2::int * interval '1 day' WHERE session_id = $1",
        [exchange.sessionId, days],
      );
    },
    async sameTimestamps(sessionId) {
      await db.query(
        `UPDATE conversations SET "timestamp" = '2026-01-15T12:00:00Z' WHERE session_id = $1`,
        [sessionId],
      );
    },
    close: cleanup,
  };
}

function memoryHarness(): Harness {
  // A clock that only moves when a test moves it: every exchange shares one timestamp unless aged.
  const start = Date.parse("2026-01-15T12:00:00Z");
  let current = start;
  const clock = () => new Date(current);
  let store = new MemoryHistoryStore(clock);
  return {
    get store() {
      return store;
    },
    db: undefined,
    now: () => current,
    async reset() {
      current = start;
      store = new MemoryHistoryStore(clock);
    },
    async saveAged(exchange, days) {
      const saved = current;
      current -= days * DAY;
      try {
        await store.saveExchange(exchange);
      } finally {
        current = saved;
      }
    },
    async sameTimestamps() {},
    async close() {},
  };
}

const backends: { name: string; sql: boolean; open: () => Promise<Harness> }[] = [
  {
    name: "SQL store on pglite",
    sql: true,
    async open() {
      const db = await openPglite();
      await migrate(db);
      return sqlHarness(db, () => db.close());
    },
  },
  {
    // PGlite writes groups as one text of statements by default; the parameter path too.
    name: "SQL store on pglite, with parameters",
    sql: true,
    async open() {
      const db = await openPglite();
      await migrate(db);
      return sqlHarness(db, () => db.close(), { literalBatches: false });
    },
  },
  {
    // The server's default: PGlite on a thread of its own, reached by messages.
    name: "SQL store on pglite on a worker thread",
    sql: true,
    async open() {
      const db = await openPgliteThread();
      await migrate(db);
      return sqlHarness(db, () => db.close());
    },
  },
  {
    name: "SQL store on postgres",
    sql: true,
    async open() {
      const schema = await createTestSchema();
      const db = await openPostgres(schema.url);
      await migrate(db);
      await migrate(db); // a second run is a no-op
      return sqlHarness(db, async () => {
        await db.close();
        await schema.drop();
      });
    },
  },
  { name: "memory store", sql: false, open: async () => memoryHarness() },
];

function exchange(
  sessionId: string,
  n = 1,
  overrides: Partial<HistoryExchange> = {},
): HistoryExchange {
  return {
    sessionId,
    messageId: randomUUID(),
    requestId: randomUUID(),
    query: `Question ${n}?`,
    response: `Answer ${n}.`,
    selectedText: null,
    sources: [{ title: `Page ${n}`, url: `https://book.example/docs/page-${n}`, score: 0.8 }],
    metadata: { mode: "full", query_time_ms: n, low_confidence: false },
    ...overrides,
  };
}

async function queriesOf(store: HistoryStore, sessionId: string, limit: number) {
  const history = await store.getHistory(sessionId, limit);
  return history?.entries.map((entry) => entry.query);
}

async function rowCounts(db: SqlClient, sessionId: string) {
  const rows = await db.query<{ sessions: string | number; conversations: string | number }>(
    `SELECT (SELECT count(*) FROM sessions WHERE session_id = $1) AS sessions,
            (SELECT count(*) FROM conversations WHERE session_id = $1) AS conversations`,
    [sessionId],
  );
  return { sessions: Number(rows[0]?.sessions), conversations: Number(rows[0]?.conversations) };
}

const postgresReady = await requirePostgres();

for (const backend of backends) {
  const run = backend.name.endsWith("postgres") && !postgresReady ? describe.skip : describe;
  // Skipped only outside CI when no PostgreSQL is reachable (requirePostgres throws under CI).
  run(`history contract: ${backend.name}`, () => {
    let h: Harness;

    beforeAll(async () => {
      h = await backend.open();
    });
    afterAll(async () => h?.close());
    beforeEach(async () => h.reset());

    it("has the expected kind and answers ping", async () => {
      expect(h.store.kind).toBe(backend.sql ? "sql" : "memory");
      await expect(h.store.ping()).resolves.toBeUndefined();
    });

    it("creates the session with the first exchange and returns it as saved", async () => {
      const sessionId = randomUUID();
      expect(await h.store.sessionExists(sessionId)).toBe(false);
      const saved = exchange(sessionId, 1, { selectedText: "Nodes talk over topics." });
      const before = h.now();
      await h.store.saveExchange(saved);
      const after = h.now();

      expect(await h.store.sessionExists(sessionId)).toBe(true);
      const history = await h.store.getHistory(sessionId, 10);
      expect(history?.total).toBe(1);
      const [entry] = history?.entries ?? [];
      expect(entry).toMatchObject({
        requestId: saved.requestId,
        query: saved.query,
        response: saved.response,
        selectedText: saved.selectedText,
        sources: saved.sources,
        metadata: saved.metadata,
      });
      expect(typeof entry?.id).toBe("string");
      expect(entry?.id).not.toBe("");
      expect(entry?.timestamp).toBeInstanceOf(Date);
      // The SQL timestamp comes from the database clock: allow for a little skew.
      const time = entry?.timestamp.getTime() ?? Number.NaN;
      expect(time).toBeGreaterThanOrEqual(before - 60_000);
      expect(time).toBeLessThanOrEqual(after + 60_000);
    });

    it("starts a session under an unknown well-formed id, in any letter case", async () => {
      const sessionId = randomUUID();
      const requestId = randomUUID();
      await h.store.saveExchange(
        exchange(sessionId.toUpperCase(), 1, { requestId: requestId.toUpperCase() }),
      );
      expect(await h.store.sessionExists(sessionId)).toBe(true);
      expect(await h.store.sessionExists(sessionId.toUpperCase())).toBe(true);
      await h.store.saveExchange(exchange(sessionId, 2));
      const history = await h.store.getHistory(sessionId.toUpperCase(), 10);
      expect(history?.total).toBe(2);
      expect(history?.entries[0]?.requestId).toBe(requestId);
    });

    it("opens a session before its first exchange, and ends it for good", async () => {
      const sessionId = randomUUID();
      expect(await h.store.sessionState(sessionId)).toBeUndefined();
      expect(await h.store.endSession(sessionId)).toBeUndefined();
      const opened = await h.store.openSession(sessionId.toUpperCase());
      expect(opened.endedAt).toBeUndefined();
      expect(await h.store.sessionExists(sessionId)).toBe(true);
      expect(await h.store.getHistory(sessionId, 10)).toEqual({
        entries: [],
        total: 0,
        ended: false,
      });
      // Opening again leaves it as it was.
      expect((await h.store.openSession(sessionId)).createdAt).toEqual(opened.createdAt);
      await h.store.saveExchange(exchange(sessionId, 1));
      const ended = await h.store.endSession(sessionId);
      expect(ended?.endedAt).toBeInstanceOf(Date);
      expect((await h.store.sessionState(sessionId))?.endedAt).toEqual(ended?.endedAt);
      // Ending again keeps the first time; the exchanges stay readable.
      expect((await h.store.endSession(sessionId))?.endedAt).toEqual(ended?.endedAt);
      const history = await h.store.getHistory(sessionId, 10);
      expect(history?.ended).toBe(true);
      expect(history?.total).toBe(1);
      for (const id of ["", "not-a-uuid"]) {
        expect(await h.store.sessionState(id)).toBeUndefined();
        await expect(h.store.openSession(id)).rejects.toThrow(/session id/);
      }
    });

    it("returns undefined for an unknown session", async () => {
      await h.store.saveExchange(exchange(randomUUID()));
      const unknown = randomUUID();
      expect(await h.store.getHistory(unknown, 10)).toBeUndefined();
      expect(await h.store.sessionExists(unknown)).toBe(false);
    });

    it("treats malformed ids as unknown sessions and refuses to save them", async () => {
      for (const id of ["", "not-a-uuid", "1234", `${randomUUID()}x`, `{${randomUUID()}}`]) {
        expect(await h.store.sessionExists(id)).toBe(false);
        expect(await h.store.getHistory(id, 10)).toBeUndefined();
        expect(await h.store.deleteSession(id)).toBe(false);
        await expect(h.store.saveExchange(exchange(id))).rejects.toThrow(/session id/);
      }
    });

    it("lists history oldest first; a limit returns the last n in order, with the total", async () => {
      const sessionId = randomUUID();
      for (let n = 1; n <= 5; n++) await h.store.saveExchange(exchange(sessionId, n));
      const all = await h.store.getHistory(sessionId, 10);
      expect(all?.total).toBe(5);
      expect(all?.entries.map((entry) => entry.query)).toEqual([
        "Question 1?",
        "Question 2?",
        "Question 3?",
        "Question 4?",
        "Question 5?",
      ]);
      expect(new Set(all?.entries.map((entry) => entry.id)).size).toBe(5);
      const times = all?.entries.map((entry) => entry.timestamp.getTime()) ?? [];
      expect(times).toEqual([...times].sort((a, b) => a - b));

      expect(await h.store.getHistory(sessionId, 2)).toMatchObject({
        total: 5,
        entries: [{ query: "Question 4?" }, { query: "Question 5?" }],
      });
      expect(await queriesOf(h.store, sessionId, 5)).toHaveLength(5);
      expect(await queriesOf(h.store, sessionId, 1)).toEqual(["Question 5?"]);
      const none = { entries: [], total: 5, ended: false };
      expect(await h.store.getHistory(sessionId, 0)).toEqual(none);
      expect(await h.store.getHistory(sessionId, -3)).toEqual(none);
      expect(await queriesOf(h.store, sessionId, 2.7)).toEqual(["Question 4?", "Question 5?"]);
    });

    it("keeps insertion order when exchanges share a timestamp", async () => {
      const sessionId = randomUUID();
      for (let n = 1; n <= 4; n++) await h.store.saveExchange(exchange(sessionId, n));
      await h.sameTimestamps(sessionId);
      const history = await h.store.getHistory(sessionId, 10);
      expect(new Set(history?.entries.map((entry) => entry.timestamp.getTime())).size).toBe(1);
      expect(history?.entries.map((entry) => entry.query)).toEqual([
        "Question 1?",
        "Question 2?",
        "Question 3?",
        "Question 4?",
      ]);
      expect(await queriesOf(h.store, sessionId, 2)).toEqual(["Question 3?", "Question 4?"]);
    });

    it("keeps many exchanges in order", async () => {
      const sessionId = randomUUID();
      for (let n = 1; n <= 120; n++) await h.store.saveExchange(exchange(sessionId, n));
      const expected = Array.from({ length: 120 }, (_, index) => `Question ${index + 1}?`);
      expect(await queriesOf(h.store, sessionId, 1000)).toEqual(expected);
      expect(await queriesOf(h.store, sessionId, 7)).toEqual(expected.slice(-7));
      expect((await h.store.getHistory(sessionId, 7))?.total).toBe(120);
    });

    it("keeps the server's message id apart from the request id, which may repeat", async () => {
      const sessionId = randomUUID();
      const requestId = randomUUID();
      const first = exchange(sessionId, 1, { requestId });
      const second = exchange(sessionId, 2, { requestId });
      await h.store.saveExchange(first);
      await h.store.saveExchange(second);
      const history = await h.store.getHistory(sessionId, 10);
      expect(history?.entries.map((entry) => [entry.messageId, entry.requestId])).toEqual([
        [first.messageId, requestId],
        [second.messageId, requestId],
      ]);
      expect(await h.store.hasMessage(sessionId, second.messageId)).toBe(true);
      expect(await h.store.hasMessage(sessionId, second.messageId.toUpperCase())).toBe(true);
      expect(await h.store.hasMessage(sessionId, randomUUID())).toBe(false);
      expect(await h.store.hasMessage(randomUUID(), second.messageId)).toBe(false);
      expect(await h.store.hasMessage(sessionId, "not-a-uuid")).toBe(false);
      await expect(
        h.store.saveExchange(exchange(sessionId, 3, { messageId: "not-a-uuid" })),
      ).rejects.toThrow(/message id/);
    });

    it("stores concurrent exchanges of a new session without losing any", async () => {
      const sessionId = randomUUID();
      const exchanges = Array.from({ length: 20 }, (_, index) => exchange(sessionId, index + 1));
      await Promise.all(exchanges.map((item) => h.store.saveExchange(item)));
      const history = await h.store.getHistory(sessionId, 100);
      expect(history?.total).toBe(20);
      expect(new Set(history?.entries.map((entry) => entry.requestId))).toEqual(
        new Set(exchanges.map((item) => item.requestId)),
      );
      expect(new Set(history?.entries.map((entry) => entry.id)).size).toBe(20);
    });

    it("lists concurrent exchanges of a session with their timestamps in the same order", async () => {
      // Writes that begin in one order and reach the session in another: a timestamp taken when
      // a transaction began would then run backwards down the list.
      for (let round = 0; round < 5; round++) {
        const sessionId = randomUUID();
        await h.store.saveExchange(exchange(sessionId, 0));
        const exchanges = Array.from({ length: 20 }, (_, index) => exchange(sessionId, index + 1));
        await Promise.all(exchanges.map((item) => h.store.saveExchange(item)));
        const times = (await h.store.getHistory(sessionId, 100))?.entries.map((entry) =>
          entry.timestamp.getTime(),
        );
        expect(times).toHaveLength(21);
        expect(times).toEqual([...(times ?? [])].sort((a, b) => a - b));
      }
    });

    it("deletes a session with all its exchanges, once", async () => {
      const doomed = randomUUID();
      const kept = randomUUID();
      for (let n = 1; n <= 3; n++) await h.store.saveExchange(exchange(doomed, n));
      await h.store.saveExchange(exchange(kept));

      expect(await h.store.deleteSession(doomed)).toBe(true);
      expect(await h.store.sessionExists(doomed)).toBe(false);
      expect(await h.store.getHistory(doomed, 10)).toBeUndefined();
      if (h.db) expect(await rowCounts(h.db, doomed)).toEqual({ sessions: 0, conversations: 0 });
      expect(await h.store.deleteSession(doomed)).toBe(false);
      expect((await h.store.getHistory(kept, 10))?.total).toBe(1);

      // The id can start over, with none of the old exchanges.
      await h.store.saveExchange(exchange(doomed, 9));
      expect(await queriesOf(h.store, doomed, 10)).toEqual(["Question 9?"]);
    });

    it("purges only sessions inactive since the cutoff", async () => {
      const stale = randomUUID();
      const revived = randomUUID();
      const active = randomUUID();
      await h.saveAged(exchange(stale, 1), 8);
      await h.saveAged(exchange(stale, 2), 8);
      await h.saveAged(exchange(revived, 1), 8);
      await h.store.saveExchange(exchange(revived, 2)); // active again: last_active moves on
      await h.store.saveExchange(exchange(active, 1));

      const cutoff = new Date(h.now() - 7 * DAY);
      expect(await h.store.purgeInactiveSince(cutoff)).toBe(1);
      expect(await h.store.sessionExists(stale)).toBe(false);
      expect(await h.store.getHistory(stale, 10)).toBeUndefined();
      if (h.db) expect(await rowCounts(h.db, stale)).toEqual({ sessions: 0, conversations: 0 });
      expect((await h.store.getHistory(revived, 10))?.total).toBe(2);
      expect((await h.store.getHistory(active, 10))?.total).toBe(1);

      expect(await h.store.purgeInactiveSince(cutoff)).toBe(0);
      expect(await h.store.purgeInactiveSince(new Date(h.now() + DAY))).toBe(2);
      expect(await h.store.sessionExists(active)).toBe(false);
      await expect(h.store.purgeInactiveSince(new Date(Number.NaN))).rejects.toThrow();
    });

    it("stores nothing when an exchange is refused", async () => {
      const fresh = randomUUID();
      await expect(
        h.store.saveExchange(exchange(fresh, 1, { requestId: "not-a-uuid" })),
      ).rejects.toThrow(/request id/);
      expect(await h.store.sessionExists(fresh)).toBe(false);

      const existing = randomUUID();
      await h.store.saveExchange(exchange(existing, 1));
      await expect(
        h.store.saveExchange(exchange(existing, 2, { requestId: "not-a-uuid" })),
      ).rejects.toThrow();
      // A value JSON cannot hold is refused too.
      await expect(
        h.store.saveExchange(exchange(existing, 3, { metadata: { size: 10n } })),
      ).rejects.toThrow();
      expect(await queriesOf(h.store, existing, 10)).toEqual(["Question 1?"]);
    });

    it.runIf(backend.sql)(
      "rolls back the session when the database refuses the conversation",
      async () => {
        const db = h.db as SqlClient;
        // PostgreSQL text cannot hold a NUL byte: the session upsert succeeds, the insert fails.
        const fresh = randomUUID();
        await expect(
          h.store.saveExchange(exchange(fresh, 1, { query: "before\u0000after" })),
        ).rejects.toThrow();
        expect(await h.store.sessionExists(fresh)).toBe(false);
        expect(await rowCounts(db, fresh)).toEqual({ sessions: 0, conversations: 0 });

        // On an existing session the failed save neither adds a row nor touches last_active.
        const existing = randomUUID();
        await h.saveAged(exchange(existing, 1), 8);
        await expect(
          h.store.saveExchange(exchange(existing, 2, { response: "\u0000" })),
        ).rejects.toThrow();
        expect(await rowCounts(db, existing)).toEqual({ sessions: 1, conversations: 1 });
        const stale = await db.query(
          "SELECT 1 FROM sessions WHERE session_id = $1 AND last_active < now() - interval '7 days'",
          [existing],
        );
        expect(stale).toHaveLength(1);
      },
    );

    it("round-trips sources and metadata as JSON, unicode and nesting included", async () => {
      const sessionId = randomUUID();
      const sources = [
        {
          kind: "source",
          title: "Über ROS 2 — ノード 🤖",
          url: "https://book.example/docs/über#ノード",
          score: 0.9375,
          heading_path: ["Intro", 'Nodes & "Topics"', "back\\slash", "line\nbreak\ttab"],
          nested: { deeper: { deepest: [1, -2.5, 1e21, true, false, null, [], {}] } },
        },
        { kind: "selected_text", text: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and emoji 👩🏽‍🚀 and RTL שלום" },
      ];
      const metadata = {
        mode: "full",
        request_id: randomUUID(),
        timings: { retrieve: 12.5, generate: 830 },
        flags: { low_confidence: false, injection_flagged: null },
        note: "Ω≈ç√∫ ‘quotes’ «guillemets» \u2028 separator",
        dropped: undefined,
      };
      await h.store.saveExchange(
        exchange(sessionId, 1, {
          query: "Wie funktionieren Knoten? 🤔 \"quoted\" 'single' \\ back",
          response: "ノードは…\n\n```python\nprint('hi')\n```",
          sources,
          metadata,
        }),
      );
      const [entry] = (await h.store.getHistory(sessionId, 1))?.entries ?? [];
      expect(entry?.sources).toEqual(sources);
      expect(entry?.metadata).toEqual(metadata);
      expect(entry?.metadata).not.toHaveProperty("dropped");
      expect(entry?.query).toBe("Wie funktionieren Knoten? 🤔 \"quoted\" 'single' \\ back");
      expect(entry?.response).toBe("ノードは…\n\n```python\nprint('hi')\n```");

      // Neither the caller's objects nor returned ones are shared with the store.
      (sources[0] as { title: string }).title = "changed after saving";
      const first = (await h.store.getHistory(sessionId, 1))?.entries[0];
      (first?.metadata as { mode: string }).mode = "changed after reading";
      const again = (await h.store.getHistory(sessionId, 1))?.entries[0];
      expect(again?.sources[0]).toMatchObject({ title: "Über ROS 2 — ノード 🤖" });
      expect(again?.metadata).toMatchObject({ mode: "full" });
    });

    it("keeps large texts whole", async () => {
      const sessionId = randomUUID();
      const query = "ä".repeat(32_000);
      const selectedText = "€".repeat(64_000);
      const response = "Long answer. ".repeat(5_000);
      await h.store.saveExchange(exchange(sessionId, 1, { query, selectedText, response }));
      const [entry] = (await h.store.getHistory(sessionId, 1))?.entries ?? [];
      expect(entry?.query).toBe(query);
      expect(entry?.selectedText).toBe(selectedText);
      expect(entry?.response).toBe(response);
    });

    it("keeps selected text null, empty or a string", async () => {
      const sessionId = randomUUID();
      await h.store.saveExchange(exchange(sessionId, 1, { selectedText: null }));
      await h.store.saveExchange(exchange(sessionId, 2, { selectedText: "" }));
      await h.store.saveExchange(exchange(sessionId, 3, { selectedText: "A quoted passage." }));
      const entries = (await h.store.getHistory(sessionId, 10))?.entries ?? [];
      expect(entries.map((entry) => entry.selectedText)).toEqual([null, "", "A quoted passage."]);
    });

    it("stores half of an emoji in sources and metadata as U+FFFD instead of failing", async () => {
      const sessionId = randomUUID();
      await h.store.saveExchange(
        exchange(sessionId, 1, {
          sources: [{ snippet: "cut inside \ud83e", rest: "\udd16 and a whole 🤖" }],
          metadata: { original_query: "a lone \ud83d" },
        }),
      );
      const [entry] = (await h.store.getHistory(sessionId, 1))?.entries ?? [];
      expect(entry?.sources).toEqual([
        { snippet: "cut inside \ufffd", rest: "\ufffd and a whole 🤖" },
      ]);
      expect(entry?.metadata).toEqual({ original_query: "a lone \ufffd" });
    });

    it("keeps empty sources and metadata", async () => {
      const sessionId = randomUUID();
      await h.store.saveExchange(exchange(sessionId, 1, { sources: [], metadata: {} }));
      const [entry] = (await h.store.getHistory(sessionId, 1))?.entries ?? [];
      expect(entry?.sources).toEqual([]);
      expect(entry?.metadata).toEqual({});
    });
  });
}

describe("memory history store limits", () => {
  const now = () => new Date("2026-01-15T12:00:00Z");

  it("uses the injected clock for timestamps and activity", async () => {
    let current = Date.parse("2026-03-01T08:00:00Z");
    const store = new MemoryHistoryStore(() => new Date(current));
    const sessionId = randomUUID();
    await store.saveExchange(exchange(sessionId, 1));
    current += 1_000;
    await store.saveExchange(exchange(sessionId, 2));
    const entries = (await store.getHistory(sessionId, 10))?.entries ?? [];
    expect(entries.map((entry) => entry.timestamp.toISOString())).toEqual([
      "2026-03-01T08:00:00.000Z",
      "2026-03-01T08:00:01.000Z",
    ]);
    // Inactive since strictly before the cutoff: the last activity itself is not before it.
    expect(await store.purgeInactiveSince(new Date(current))).toBe(0);
    expect(await store.purgeInactiveSince(new Date(current + 1))).toBe(1);
  });

  it("drops a session's oldest exchanges past the per-session cap", async () => {
    const store = new MemoryHistoryStore(now, { maxExchangesPerSession: 3 });
    const sessionId = randomUUID();
    for (let n = 1; n <= 5; n++) await store.saveExchange(exchange(sessionId, n));
    expect(await store.getHistory(sessionId, 10)).toMatchObject({
      total: 3,
      entries: [{ query: "Question 3?" }, { query: "Question 4?" }, { query: "Question 5?" }],
    });
  });

  it("evicts the least recently active session past the session cap", async () => {
    const store = new MemoryHistoryStore(now, { maxSessions: 2 });
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await store.saveExchange(exchange(a, 1));
    await store.saveExchange(exchange(b, 1));
    await store.saveExchange(exchange(a, 2)); // a is now more recent than b
    await store.saveExchange(exchange(c, 1));
    expect(await store.sessionExists(a)).toBe(true);
    expect(await store.sessionExists(b)).toBe(false);
    expect(await store.sessionExists(c)).toBe(true);
    expect((await store.getHistory(a, 10))?.total).toBe(2);
  });

  it("evicts old sessions, then old exchanges, past the byte budget", async () => {
    const store = new MemoryHistoryStore(now, { maxBytes: 50_000 });
    const [a, b] = [randomUUID(), randomUUID()];
    const big = (sessionId: string, n: number) =>
      exchange(sessionId, n, { response: "x".repeat(10_000) });
    await store.saveExchange(big(a, 1));
    await store.saveExchange(big(b, 1));
    expect(await store.sessionExists(a)).toBe(true);
    await store.saveExchange(big(b, 2)); // about 60 kB in all: a goes
    expect(await store.sessionExists(a)).toBe(false);
    expect((await store.getHistory(b, 10))?.total).toBe(2);
    await store.saveExchange(big(b, 3)); // b alone is over: its oldest goes, never the newest
    expect(await queriesOf(store, b, 10)).toEqual(["Question 2?", "Question 3?"]);
    const huge = randomUUID();
    await store.saveExchange(exchange(huge, 1, { query: "y".repeat(100_000) }));
    expect((await store.getHistory(huge, 10))?.total).toBe(1);
    expect(await store.sessionExists(b)).toBe(false);
  });
});

describe("off history store", () => {
  const store = new OffHistoryStore();

  it("stores nothing and knows no sessions", async () => {
    const sessionId = randomUUID();
    expect(store.kind).toBe("off");
    const saved = exchange(sessionId);
    await expect(store.saveExchange(saved)).resolves.toBeUndefined();
    expect(await store.sessionExists(sessionId)).toBe(false);
    expect(await store.hasMessage(sessionId, saved.messageId)).toBe(false);
    expect(await store.getHistory(sessionId, 10)).toBeUndefined();
    expect(await store.deleteSession(sessionId)).toBe(false);
    await store.openSession(sessionId);
    expect(await store.sessionState(sessionId)).toBeUndefined();
    expect(await store.endSession(sessionId)).toBeUndefined();
    expect(await store.purgeInactiveSince(new Date(Date.now() + DAY))).toBe(0);
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe("history migration on pglite", () => {
  let db: SqlClient;

  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => db.close());

  it("runs twice without error and records every version", async () => {
    await migrate(db);
    await migrate(db);
    const rows = await db.query<{ version: number }>(
      "SELECT version FROM lectern_migrations ORDER BY version",
    );
    expect(rows.map((row) => row.version)).toEqual(
      MIGRATIONS.map((migration) => migration.version),
    );
    expect(rows.map((row) => row.version)).toContain(2);
  });

  it("keeps an exchange of a few kilobytes whole, its sources as uncompressed JSON text", async () => {
    await migrate(db);
    const store = new SqlHistoryStore(db);
    const sessionId = randomUUID();
    // Five sources with 200-character snippets and their page details, as an answer cites them.
    const sources = Array.from({ length: 5 }, (_, index) => ({
      title: `Page ${index}`,
      section: `Section ${index}`,
      snippet: `${"A robot senses its environment, decides and acts. ".repeat(4)}${index}`,
      file_path: `chapter-${index}/page-${index}.md`,
      source_url: `/docs/chapter-${index}/page-${index}`,
      section_path: [`Page ${index}`, `Section ${index}`],
      citation_number: index + 1,
      similarity_score: 0.5,
    }));
    await store.saveExchange(
      exchange(sessionId, 1, { sources, response: "An answer. ".repeat(40) }),
    );
    // Text, not JSONB: PostgreSQL does not parse what only this store reads back.
    const [row] = await db.query<{ compression: string | null; text: number; type: string }>(
      `SELECT pg_column_compression(sources_text) AS compression, length(sources_text) AS text,
              pg_typeof(sources_text)::text AS type
         FROM conversations WHERE session_id = $1`,
      [sessionId],
    );
    expect(row).toEqual({ compression: null, text: expect.any(Number), type: "text" });
    expect(row?.text).toBeGreaterThan(2_000);
    expect((await store.getHistory(sessionId, 1))?.entries[0]?.sources).toEqual(sources);
  });

  it("reads exchanges stored before with their sources and metadata as JSONB", async () => {
    await migrate(db);
    const store = new SqlHistoryStore(db);
    const sessionId = randomUUID();
    await store.saveExchange(exchange(sessionId, 2));
    const sources = [{ title: "Über → café", url: "https://book.example/a", score: 0.5 }];
    const metadata = { mode: "full", nested: { list: [1, "two", null] } };
    await db.query("INSERT INTO sessions (session_id) VALUES ($1) ON CONFLICT DO NOTHING", [
      sessionId,
    ]);
    await db.query(
      `INSERT INTO conversations (session_id, message_id, request_id, query, response, sources,
                                  metadata, "timestamp")
       VALUES ($1, $2, $3, 'Earlier?', 'Before.', $4, $5, now() - interval '1 hour')`,
      [sessionId, randomUUID(), randomUUID(), JSON.stringify(sources), JSON.stringify(metadata)],
    );
    const entries = (await store.getHistory(sessionId, 10))?.entries ?? [];
    expect(entries.map((entry) => entry.query)).toEqual(["Question 2?", "Earlier?"]);
    expect(entries[1]).toMatchObject({ sources, metadata });
    const { sources: newer, metadata: newerMetadata } = exchange(sessionId, 2);
    expect(entries[0]).toMatchObject({ sources: newer, metadata: newerMetadata });
  });

  it("upgrades a version-1 database without touching its documents", async () => {
    await db.query(
      `INSERT INTO documents (collection, file_path, title, url, source_hash, chunk_count)
       VALUES ('default', 'a.md', 'A', 'https://book.example/a', 'h', 0)`,
    );
    await db.query("DROP TABLE conversations");
    await db.query("DROP TABLE sessions");
    await db.query("DELETE FROM lectern_migrations WHERE version >= 2");
    await migrate(db);
    const store = new SqlHistoryStore(db);
    const sessionId = randomUUID();
    await store.saveExchange(exchange(sessionId));
    expect((await store.getHistory(sessionId, 10))?.total).toBe(1);
    expect(await db.query("SELECT file_path FROM documents")).toEqual([{ file_path: "a.md" }]);
  });

  it("gives exchanges stored before message ids one each, unique in their session", async () => {
    const sessionId = randomUUID();
    const repeated = randomUUID();
    const other = randomUUID();
    await db.query("DROP INDEX conversations_message_idx");
    await db.query("ALTER TABLE conversations DROP COLUMN message_id");
    await db.query("DELETE FROM lectern_migrations WHERE version = 8");
    await db.query("INSERT INTO sessions (session_id) VALUES ($1)", [sessionId]);
    for (const requestId of [repeated, repeated, other]) {
      await db.query(
        "INSERT INTO conversations (session_id, request_id, query, response) VALUES ($1, $2, 'q', 'a')",
        [sessionId, requestId],
      );
    }
    await migrate(db);
    const rows = await db.query<{ message_id: string; request_id: string }>(
      "SELECT message_id, request_id FROM conversations WHERE session_id = $1 ORDER BY id",
      [sessionId],
    );
    // The first exchange of each request id keeps it, so feedback given by it still points at it.
    expect(rows[0]?.message_id).toBe(repeated);
    expect(rows[2]?.message_id).toBe(other);
    expect(new Set(rows.map((row) => row.message_id)).size).toBe(3);
  });

  it("fails ping once the database is closed", async () => {
    const closed = await openPglite();
    const store = new SqlHistoryStore(closed);
    await expect(store.ping()).resolves.toBeUndefined();
    await closed.close();
    await expect(store.ping()).rejects.toThrow();
  });
});
