import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "./pglite.ts";
import type { SqlClient } from "./sql-client.ts";
import { sqlLiteral, withLiterals } from "./sql-literal.ts";

const texts = [
  "",
  "plain",
  "it's",
  "''",
  "back\\slash",
  "\\'; DROP TABLE t; --",
  "E'\\x41'",
  "$$dollar$$ $v$",
  "line\nbreak\ttab\r",
  "ノード 🤖 👩🏽‍🚀 שלום \u2028",
  '{"a":"b\\"c","d":"\\\\"}',
];

describe("sqlLiteral", () => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => db.close());

  it.each([
    ["on", "on"],
    ["off", "off"],
  ])("reads every text back unchanged with standard_conforming_strings %s", async (setting) => {
    await db.query(`SET standard_conforming_strings = ${setting}`);
    for (const text of texts) {
      const rows = await db.query<{ value: string }>(`SELECT ${sqlLiteral(text)}::text AS value`);
      expect(rows[0]?.value).toBe(text);
    }
    await db.query("RESET standard_conforming_strings");
  });

  it("writes numbers, booleans and null as SQL values", async () => {
    const rows = await db.query<{ n: number; f: number; t: boolean; b: boolean; z: null }>(
      `SELECT ${sqlLiteral(-2.5)}::float8 AS n, ${sqlLiteral(1e21)}::float8 AS f,
              ${sqlLiteral(true)} AS t, ${sqlLiteral(false)} AS b, ${sqlLiteral(null)} AS z`,
    );
    expect(rows[0]).toEqual({ n: -2.5, f: 1e21, t: true, b: false, z: null });
  });

  it("refuses text with a NUL character and numbers SQL cannot hold", () => {
    expect(() => sqlLiteral("before\u0000after")).toThrow(/NUL/);
    expect(() => sqlLiteral(Number.NaN)).toThrow();
    expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow();
  });

  it("writes a statement's parameters in as literals, each where its number says", async () => {
    const sql = withLiterals(
      "SELECT $2::text AS b, $1::int AS a, $10::text AS j, $2::text AS again",
      [7, "it's \\ here", null, null, null, null, null, null, null, '{"k":"v"}'],
    );
    const rows = await db.query(sql);
    expect(rows[0]).toEqual({ b: "it's \\ here", a: 7, j: '{"k":"v"}', again: "it's \\ here" });
    expect(() => withLiterals("SELECT $1, $2", ["only one"])).toThrow(/\$2/);
  });

  it("runs a script's statements as one transaction: an error keeps none of them", async () => {
    await db.query("CREATE TABLE script_test (id int PRIMARY KEY, note text)");
    await db.script?.(
      `INSERT INTO script_test VALUES (1, ${sqlLiteral("one")}); INSERT INTO script_test VALUES (2, ${sqlLiteral("two's")})`,
    );
    await expect(
      db.script?.(
        `INSERT INTO script_test VALUES (3, ${sqlLiteral("three")}); INSERT INTO script_test VALUES (1, ${sqlLiteral("again")})`,
      ),
    ).rejects.toThrow();
    // The failed text left no transaction open: the next statement runs.
    const rows = await db.query<{ id: number; note: string }>(
      "SELECT id, note FROM script_test ORDER BY id",
    );
    expect(rows).toEqual([
      { id: 1, note: "one" },
      { id: 2, note: "two's" },
    ]);
  });
});
