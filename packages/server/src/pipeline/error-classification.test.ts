import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../store/pglite.ts";
import type { SqlClient } from "../store/sql-client.ts";
import { classifyError } from "./error-classification.ts";

/** What the database throws for this statement. */
async function rejection(db: SqlClient, sql: string, params: unknown[]): Promise<unknown> {
  return db.query(sql, params).then(
    () => {
      throw new Error(`expected ${sql} to fail`);
    },
    (error: unknown) => error,
  );
}

describe("text the database refuses", () => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(async () => db?.close());

  it.each([
    // What a snippet cut inside an emoji becomes once written as JSON.
    { name: "half of an emoji in JSON", sql: "SELECT $1::jsonb", params: ['{"s":"\\ud83e"}'] },
    { name: "NUL in JSON", sql: "SELECT $1::jsonb", params: ['{"s":"\\u0000"}'] },
    { name: "a malformed uuid", sql: "SELECT $1::uuid", params: ["not-a-uuid"] },
  ])("answers $name with 422 TEXT_NOT_STORABLE, not a bare 500", async ({ sql, params }) => {
    const error = await rejection(db, sql, params);
    expect((error as { code?: string }).code).toMatch(/^22/);
    expect(classifyError(error)).toMatchObject({
      errorType: "validation",
      errorCode: "TEXT_NOT_STORABLE",
      status: 422,
      retryable: false,
    });
  });

  it.each(["22P02", "22021", "22P05"])("classifies SQLSTATE %s from PostgreSQL alike", (code) => {
    const error = Object.assign(new Error("invalid input syntax for type json"), {
      code,
      severity: "ERROR",
    });
    expect(classifyError(error).errorCode).toBe("TEXT_NOT_STORABLE");
  });
});
