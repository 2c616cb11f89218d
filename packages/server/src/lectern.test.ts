import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "./config/config.ts";
import { type OpenOptions, openLectern } from "./lectern.ts";

/** The V8 settings changed while a Lectern opens (passed on to V8 as well). */
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

/** How many times the embedded database was opened on a worker thread. */
const threadOpens = vi.hoisted(() => ({ count: 0 }));
vi.mock("./store/pglite-thread.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("./store/pglite-thread.ts")>();
  return {
    ...original,
    openPgliteThread: (...args: Parameters<typeof original.openPgliteThread>) => {
      threadOpens.count++;
      return original.openPgliteThread(...args);
    },
  };
});

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-open-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Whether opening a Lectern compiled the embedded database with the baseline compiler alone. */
async function compiledBaselineOnly(
  env: Record<string, string>,
  options: OpenOptions,
): Promise<boolean> {
  v8Settings.length = 0;
  const lectern = await openLectern(loadConfig({ env, overrides: { dataDir } }), options);
  await lectern.close();
  return v8Settings.includes("--liftoff-only");
}

describe("the embedded database's compiler", () => {
  it.each([
    ["an ingest", { workload: "ingest" }, true],
    ["a one-shot command", {}, true],
    ["a server", { workload: "serve" }, false],
    ["a session without HTTP", { workload: "session" }, false],
  ] as const)("is the baseline one only for %s, by default", async (_, options, baseline) => {
    expect(await compiledBaselineOnly({}, options)).toBe(baseline);
  });

  it("is the one configured, whatever the workload", async () => {
    expect(await compiledBaselineOnly({ LECTERN_PGLITE_COMPILER: "baseline" }, {})).toBe(true);
    expect(
      await compiledBaselineOnly({ LECTERN_PGLITE_COMPILER: "optimizing" }, { workload: "ingest" }),
    ).toBe(false);
  });
});

describe("the embedded database's thread", () => {
  async function onWorker(env: Record<string, string>, options: OpenOptions): Promise<boolean> {
    const before = threadOpens.count;
    const lectern = await openLectern(loadConfig({ env, overrides: { dataDir } }), options);
    await lectern.close();
    return threadOpens.count > before;
  }

  it("is a worker of its own for a server and the calling thread otherwise, unless configured", async () => {
    // A server on one core keeps it on its own thread: a second one would only pass messages.
    expect(await onWorker({}, { workload: "serve" })).toBe(availableParallelism() > 1);
    expect(await onWorker({}, {})).toBe(false);
    expect(await onWorker({}, { workload: "ingest" })).toBe(false);
    expect(await onWorker({ LECTERN_PGLITE_THREAD: "worker" }, {})).toBe(true);
    expect(await onWorker({ LECTERN_PGLITE_THREAD: "main" }, { workload: "serve" })).toBe(false);
  });
});
