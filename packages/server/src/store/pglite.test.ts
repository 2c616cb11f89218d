import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "./pglite.ts";

/**
 * The embedded database's buffer pool lives in WebAssembly memory, which is never given back:
 * it is kept small so that load does not leave the server's RSS a pool-size higher for good
 * (docs/reliability.md has the measurements).
 */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-pglite-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function sharedBuffers(directory: string): Promise<string | undefined> {
  const db = await openPglite(directory);
  try {
    const rows = await db.query<{ shared_buffers: string }>("SHOW shared_buffers");
    return rows[0]?.shared_buffers;
  } finally {
    await db.close();
  }
}

describe("the embedded database", () => {
  it("keeps a small buffer pool, also in a data directory made by an earlier version", async () => {
    expect(await sharedBuffers(path.join(workDir, "new"))).toBe("16MB");

    const older = path.join(workDir, "older");
    const plain = new PGlite(older);
    expect((await plain.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]).toEqual({
      shared_buffers: "128MB",
    });
    await plain.close();
    expect(await sharedBuffers(older)).toBe("16MB");
  });
});
