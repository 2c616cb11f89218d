import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openPglite, queryMessage } from "./pglite.ts";

/** The V8 settings changed while the test runs, in order (passed on to V8 as well). */
const v8Settings = vi.hoisted(() => [] as string[]);
vi.mock("node:v8", async (importOriginal) => {
  const v8 = await importOriginal<typeof import("node:v8")>();
  return {
    ...v8,
    setFlagsFromString: (flags: string) => {
      v8Settings.push(flags);
      v8.setFlagsFromString(flags);
    },
  };
});
beforeEach(() => {
  v8Settings.length = 0;
});

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

  // docs/reliability.md: a commit on PGlite reaches the operating system's files, not the disk.
  // Should PGlite start flushing, this fails and that page's row changes with it.
  it("does not flush commits to the disk, even when PostgreSQL's fsync is asked for", async () => {
    const db = new PGlite(path.join(workDir, "fsync"), { postgresqlconf: ["fsync = on"] });
    try {
      expect((await db.query<{ fsync: string }>("SHOW fsync")).rows[0]).toEqual({ fsync: "off" });
    } finally {
      await db.close();
    }
  });

  it("compiles PostgreSQL's WebAssembly with the baseline compiler alone when asked to", async () => {
    // The optimising compiler's background work is what leaves tens of megabytes more in the
    // process (docs/reliability.md); the setting is V8's, so it is put back once compiled.
    const instantiate = WebAssembly.instantiate;
    const spy = vi
      .spyOn(WebAssembly, "instantiate")
      .mockImplementation((...args: Parameters<typeof instantiate>) => {
        v8Settings.push("(compiled)");
        return instantiate(...args);
      });
    try {
      const db = await openPglite(path.join(workDir, "baseline"), { optimize: false });
      expect(v8Settings).toEqual(["--liftoff-only", "(compiled)", "--no-liftoff-only"]);
      await db.close();
    } finally {
      spy.mockRestore();
    }

    v8Settings.length = 0;
    const optimized = await openPglite(path.join(workDir, "optimized"));
    expect(v8Settings).toEqual([]);
    await optimized.close();
  });

  it("sends a script as one Query message of its UTF-8 text", () => {
    const message = queryMessage("SELECT 'é🚀'");
    const text = Buffer.from("SELECT 'é🚀'");
    expect(message[0]).toBe("Q".charCodeAt(0));
    expect(Buffer.from(message).readInt32BE(1)).toBe(4 + text.length + 1);
    expect(Buffer.from(message.subarray(5, -1)).equals(text)).toBe(true);
    expect(message.at(-1)).toBe(0);
  });
});
