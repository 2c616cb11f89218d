import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.ts";
import type { HistoryExchange } from "./history-store.ts";
import { migrate } from "./migrations.ts";
import { openPglite } from "./pglite.ts";
import type { SqlClient } from "./sql-client.ts";
import { SqlHistoryStore } from "./sql-history-store.ts";

/** A write the test releases by hand, so batches form exactly as they would under load. */
function controlledWriter() {
  const batches: number[][] = [];
  const pending: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      pending.push({ resolve, reject });
    });
  const next = async () => {
    // Let the group commit reach its next write.
    for (let turn = 0; turn < 5 && pending.length === 0; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const write = pending.shift();
    if (!write) throw new Error("no write is waiting");
    return write;
  };
  return { batches, write, next };
}

function settled(promise: Promise<void>) {
  const state = {
    value: "pending" as "pending" | "resolved" | "rejected",
    error: undefined as unknown,
  };
  promise.then(
    () => {
      state.value = "resolved";
    },
    (error: unknown) => {
      state.value = "rejected";
      state.error = error;
    },
  );
  return state;
}

const flushPromises = () => new Promise((resolve) => setImmediate(resolve));

describe("GroupCommit", () => {
  it("writes what arrives together in one batch, and what arrives meanwhile in the next, in order", async () => {
    const writer = controlledWriter();
    const group = new GroupCommit(writer.write);
    const first = [1, 2, 3].map((item) => settled(group.submit(item)));
    const firstWrite = await writer.next();
    // Submitted while the first batch is being written: they wait for the next one.
    const second = [4, 5].map((item) => settled(group.submit(item)));
    await flushPromises();
    expect(writer.batches).toEqual([[1, 2, 3]]);
    expect(first.map((state) => state.value)).toEqual(["pending", "pending", "pending"]);

    firstWrite.resolve();
    const secondWrite = await writer.next();
    expect(first.map((state) => state.value)).toEqual(["resolved", "resolved", "resolved"]);
    // Nobody is acknowledged before the commit holding their write.
    expect(second.map((state) => state.value)).toEqual(["pending", "pending"]);
    expect(writer.batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    secondWrite.resolve();
    await flushPromises();
    expect(second.map((state) => state.value)).toEqual(["resolved", "resolved"]);
  });

  it("rejects exactly the waiters of a batch that fails, and keeps serving the next", async () => {
    const writer = controlledWriter();
    const group = new GroupCommit(writer.write);
    const first = [1, 2].map((item) => settled(group.submit(item)));
    const firstWrite = await writer.next();
    const second = [3].map((item) => settled(group.submit(item)));
    const down = new Error("database down");
    firstWrite.reject(down);
    // Each write of the failed batch is tried alone; the database is still down.
    (await writer.next()).reject(down);
    (await writer.next()).reject(down);
    (await writer.next()).resolve();
    await flushPromises();
    expect(first.map((state) => [state.value, state.error])).toEqual([
      ["rejected", down],
      ["rejected", down],
    ]);
    expect(second.map((state) => state.value)).toEqual(["resolved"]);
    expect(writer.batches).toEqual([[1, 2], [1], [2], [3]]);
  });

  it("fails only the bad write of a batch that fails because of it", async () => {
    const group = new GroupCommit<number>(async (items) => {
      if (items.includes(13)) throw new Error("13 is refused");
    });
    const results = await Promise.allSettled([12, 13, 14].map((item) => group.submit(item)));
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("holds at most maxBatch writes in one batch", async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number>(
      async (items) => {
        batches.push(items);
      },
      { maxBatch: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((item) => group.submit(item)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });
});

// Both ways of writing a group: one text of statements (the default on PGlite) and parameters.
describe.each([
  { writes: "as one text of statements", literalBatches: true },
  { writes: "with parameters", literalBatches: false },
])("SqlHistoryStore on PGlite: group commit, written $writes", ({ literalBatches }) => {
  let db: SqlClient;
  let transactions = 0;
  beforeAll(async () => {
    const pglite = await openPglite();
    await migrate(pglite);
    db = {
      ...pglite,
      kind: "pglite",
      query: pglite.query.bind(pglite),
      transaction: (work) => {
        transactions++;
        return pglite.transaction(work);
      },
      script: (sql) => {
        transactions++;
        return pglite.script?.(sql) ?? Promise.reject(new Error("no script"));
      },
      close: () => pglite.close(),
    };
  });
  afterAll(async () => db.close());

  const exchange = (sessionId: string, query: string): HistoryExchange => ({
    sessionId,
    messageId: randomUUID(),
    requestId: randomUUID(),
    query,
    response: `answer to ${query}`,
    selectedText: null,
    sources: [],
    metadata: {},
  });

  it("stores exchanges that finish together in fewer transactions, every one of them, in order", async () => {
    const store = new SqlHistoryStore(db, { literalBatches });
    const sessions = [randomUUID(), randomUUID(), randomUUID()];
    transactions = 0;
    const saves = Array.from({ length: 30 }, (_, index) =>
      store.saveExchange(exchange(sessions[index % 3] ?? "", `question ${index}`)),
    );
    await Promise.all(saves);
    expect(transactions).toBeGreaterThan(0);
    expect(transactions).toBeLessThan(30);
    for (const [offset, sessionId] of sessions.entries()) {
      const history = await store.getHistory(sessionId, 100);
      expect(history?.entries.map((entry) => entry.query)).toEqual(
        Array.from({ length: 10 }, (_, index) => `question ${index * 3 + offset}`),
      );
    }
  });

  it("fails only the exchange that cannot be stored; the others of its group are kept", async () => {
    const store = new SqlHistoryStore(db, { literalBatches });
    const sessionId = randomUUID();
    const duplicate = exchange(sessionId, "first");
    await store.saveExchange(duplicate);
    const results = await Promise.allSettled([
      store.saveExchange(exchange(sessionId, "second")),
      store.saveExchange({ ...duplicate, query: "again" }),
      store.saveExchange(exchange(sessionId, "third")),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const history = await store.getHistory(sessionId, 100);
    expect(history?.entries.map((entry) => entry.query)).toEqual(["first", "second", "third"]);
  });

  it("stores a session's id given in capitals once (sessions compare case-insensitively)", async () => {
    const store = new SqlHistoryStore(db, { literalBatches });
    const sessionId = randomUUID();
    await Promise.all([
      store.saveExchange(exchange(sessionId, "lower")),
      store.saveExchange(exchange(sessionId.toUpperCase(), "upper")),
    ]);
    expect((await store.getHistory(sessionId, 10))?.entries.map((entry) => entry.query)).toEqual([
      "lower",
      "upper",
    ]);
  });
});
