import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../store/pglite.ts";
import { unavailableOr } from "../store/postgres.ts";
import type { SqlClient } from "../store/sql-client.ts";
import { classifyError, DATABASE_RETRY_AFTER_SECONDS } from "./error-classification.ts";

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

const socketError = (code: string) => Object.assign(new Error(`socket ${code}`), { code });

describe("a reader who goes away", () => {
  it.each([
    { name: "ECONNRESET", error: socketError("ECONNRESET") },
    { name: "EPIPE", error: socketError("EPIPE") },
    { name: "ECONNABORTED", error: socketError("ECONNABORTED") },
    { name: "a stream closed early", error: socketError("ERR_STREAM_PREMATURE_CLOSE") },
    { name: "an AbortError", error: new DOMException("aborted", "AbortError") },
    // The request signal's own reason, thrown as it is by an aborted fetch or stream.
    { name: "the abort reason", error: "Client connection prematurely closed." },
  ])("is a client disconnect (499), not a database failure, after $name", ({ error }) => {
    expect(classifyError(error, { clientGone: true })).toMatchObject({
      errorCode: "CLIENT_CLOSED_REQUEST",
      status: 499,
      errorType: "network",
    });
  });

  it.each(["ECONNRESET", "EPIPE"])("leaves %s of unknown origin out of the database", (code) => {
    expect(classifyError(socketError(code))).toMatchObject({
      errorType: "network",
      errorCode: "SERVICE_UNAVAILABLE",
      retryable: true,
    });
  });

  it("keeps a reset the database store reported as the database's, client gone or not", () => {
    const reset = unavailableOr(socketError("ECONNRESET"));
    for (const context of [{}, { clientGone: true }]) {
      expect(classifyError(reset, context)).toMatchObject({
        errorType: "database",
        errorCode: "DATABASE_UNAVAILABLE",
        status: 503,
      });
    }
  });
});

describe("a database out of resources (SQLSTATE class 53)", () => {
  it.each([
    { code: "53000", name: "insufficient_resources", message: "insufficient resources" },
    {
      code: "53100",
      name: "disk_full",
      message: 'could not extend file "base/16384/16397": No space left on device',
    },
    { code: "53200", name: "out_of_memory", message: "out of memory" },
    { code: "53300", name: "too_many_connections", message: "sorry, too many clients already" },
    {
      code: "53400",
      name: "configuration_limit_exceeded",
      message: "too many pending trigger events",
    },
  ])(
    "answers $code ($name) with 503 DATABASE_UNAVAILABLE and Retry-After, not INTERNAL_ERROR",
    ({ code, message }) => {
      const error = Object.assign(new Error(message), { code, severity: "ERROR" });
      expect(classifyError(error)).toMatchObject({
        errorType: "database",
        errorCode: "DATABASE_UNAVAILABLE",
        status: 503,
        retryable: true,
        retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      });
      // The message shown is the code's own, never the database's (paths, file names).
      expect(classifyError(error).userSafeMessage).not.toContain("base/");
    },
  );
});
