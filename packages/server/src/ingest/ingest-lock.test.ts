import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireIngestLock, lockPath } from "./ingest-lock.ts";

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-lock-"));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("the ingest lock file", () => {
  it("is taken by exactly one of many runs that start together", async () => {
    for (let round = 0; round < 50; round++) {
      const attempts = await Promise.allSettled(
        Array.from({ length: 16 }, () => acquireIngestLock(dataDir, "default")),
      );
      const held = attempts.filter((attempt) => attempt.status === "fulfilled");
      expect(held, `round ${round}`).toHaveLength(1);
      for (const attempt of attempts)
        if (attempt.status === "rejected")
          expect(attempt.reason).toMatchObject({ code: "INGEST_LOCKED" });
      await (held[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
  });

  it("names its owner from the moment it exists", async () => {
    const lock = await acquireIngestLock(dataDir, "default");
    const owner = JSON.parse(await readFile(lockPath(dataDir, "default"), "utf8"));
    expect(owner).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it("takes over a lock whose process is gone", async () => {
    await writeFile(
      lockPath(dataDir, "default"),
      JSON.stringify({ pid: 2_147_483_000, since: "2020-01-01T00:00:00Z" }),
    );
    const lock = await acquireIngestLock(dataDir, "default");
    await lock.release();
  });
});
