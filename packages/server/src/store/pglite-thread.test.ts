import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isLecternError } from "@lectern/engine/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "./pglite.ts";
import { openPgliteThread } from "./pglite-thread.ts";
import type { SqlClient } from "./sql-client.ts";
import { sqlLiteral } from "./sql-literal.ts";

// The stores' own contracts run on this client too (history, documents, vectors); these cases
// are about what only the thread adds: errors, transactions and ordering across the messages.
describe("PGlite on a worker thread", () => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await openPgliteThread();
    await db.query("CREATE TABLE items (id int PRIMARY KEY, label text, meta jsonb)");
  });
  afterAll(() => db.close());

  it("returns rows with PostgreSQL's types as PGlite gives them", async () => {
    await db.query("INSERT INTO items VALUES ($1, $2, $3)", [1, "one", { tags: ["a"] }]);
    const [row] = await db.query<{ id: number; label: string; meta: unknown; at: Date }>(
      "SELECT id, label, meta, now() AS at FROM items WHERE id = $1",
      [1],
    );
    expect(row).toMatchObject({ id: 1, label: "one", meta: { tags: ["a"] } });
    expect(row?.at).toBeInstanceOf(Date);
  });

  it("rejects with PostgreSQL's error and its SQLSTATE", async () => {
    await expect(db.query("INSERT INTO items VALUES (1, 'again', null)")).rejects.toMatchObject({
      code: "23505",
      message: expect.stringContaining("duplicate key"),
    });
  });

  it("commits a transaction whole, and rolls it back whole when the work fails", async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO items VALUES (2, 'two', null)");
      await tx.query("INSERT INTO items VALUES (3, 'three', null)");
      return "done";
    });
    expect(result).toBe("done");
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES (4, 'four', null)");
        throw new Error("the work failed");
      }),
    ).rejects.toThrow("the work failed");
    const rows = await db.query<{ id: number }>("SELECT id FROM items ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual([1, 2, 3]);
  });

  it("makes other statements wait for a transaction in flight, as PGlite does in-process", async () => {
    let releaseWork!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseWork = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("UPDATE items SET label = 'changed' WHERE id = 1");
      await held;
      await tx.query("UPDATE items SET label = 'changed twice' WHERE id = 1");
    });
    // Sent while the transaction is open: it sees the transaction's final state, never a middle.
    const outside = db.query<{ label: string }>("SELECT label FROM items WHERE id = 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    releaseWork();
    await transaction;
    expect((await outside)[0]?.label).toBe("changed twice");
  });

  it("runs a script as one transaction that an error rolls back whole", async () => {
    await db.script?.(
      "INSERT INTO items VALUES (10, 'ten', null); INSERT INTO items VALUES (11, 'eleven', null)",
    );
    await expect(
      db.script?.(
        "INSERT INTO items VALUES (12, 'twelve', null); INSERT INTO items VALUES (10, 'dup', null)",
      ),
    ).rejects.toMatchObject({ code: "23505" });
    const rows = await db.query<{ id: number }>("SELECT id FROM items WHERE id >= 10 ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual([10, 11]);
  });

  it("writes a script's text unchanged whatever its characters, after the transaction open when it was sent", async () => {
    const text = "naïve — 日本語 🚀 it's";
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO items VALUES (20, 'in the transaction', null)");
      await held;
    });
    const script = db.script?.(
      `INSERT INTO items VALUES (21, ${sqlLiteral(text)}, null); UPDATE items SET label = label || '!' WHERE id = 20`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([transaction, script]);
    const rows = await db.query<{ id: number; label: string }>(
      "SELECT id, label FROM items WHERE id IN (20, 21) ORDER BY id",
    );
    expect(rows).toEqual([
      { id: 20, label: "in the transaction!" },
      { id: 21, label: text },
    ]);
  });

  it("keeps the order statements were sent in", async () => {
    await db.query("CREATE TABLE sequence_check (n int)");
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => db.query("INSERT INTO sequence_check VALUES ($1)", [n])),
    );
    const rows = await db.query<{ n: number }>("SELECT n FROM sequence_check");
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });
});

describe("PGlite on a worker thread, on disk", () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "lectern-pglite-thread-"));
  });
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it("writes a data directory the calling thread's PGlite reads, and the other way round", async () => {
    const directory = path.join(workDir, "db");
    const threaded = await openPgliteThread(directory);
    await threaded.query("CREATE TABLE notes (body text)");
    await threaded.query("INSERT INTO notes VALUES ('from the worker')");
    await threaded.close();
    const local = await openPglite(directory);
    expect(await local.query("SELECT body FROM notes")).toEqual([{ body: "from the worker" }]);
    await local.query("INSERT INTO notes VALUES ('from the caller')");
    await local.close();
    const again = await openPgliteThread(directory);
    expect((await again.query("SELECT body FROM notes ORDER BY body")).length).toBe(2);
    await again.close();
  });

  it("answers every statement after close with DATABASE_UNAVAILABLE, not a hang", async () => {
    const db = await openPgliteThread();
    await db.close();
    const error = await db.query("SELECT 1").catch((caught: unknown) => caught);
    expect(isLecternError(error) && error.code).toBe("DATABASE_UNAVAILABLE");
  });

  it("does not keep a process alive that forgets to close it", async () => {
    // A command that opens the database, queries, and returns without closing it still ends.
    const source = `
      import { openPgliteThread } from ${JSON.stringify(path.resolve(import.meta.dirname, "pglite-thread.ts"))};
      const db = await openPgliteThread();
      const [row] = await db.query("SELECT 40 + 2 AS answer");
      process.stdout.write(String(row.answer));
    `;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", source],
        { timeout: 60_000, cwd: import.meta.dirname },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(output).toBe("42");
  });
});
