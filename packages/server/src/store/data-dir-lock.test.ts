import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireDataDirLock, commandLine, ownerLockPath } from "./data-dir-lock.ts";

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-owner-lock-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

let count = 0;
const freshDir = () => path.join(workDir, `data-${++count}`);

async function lockOf(dataDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(ownerLockPath(dataDir), "utf8")) as Record<string, unknown>;
}

async function writeLock(dataDir: string, owner: Record<string, unknown>): Promise<void> {
  await writeFile(ownerLockPath(dataDir), JSON.stringify(owner));
}

/** The id of a process that has exited (and was reaped): nothing runs under it any more. */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid ?? 0;
}

describe("the owner lock of a data directory", () => {
  it("is taken with who holds it, records a server's URL, and is gone once released", async () => {
    const dataDir = freshDir();
    const lock = await acquireDataDirLock(dataDir, { command: "lectern serve --docs docs" });
    expect(await lockOf(dataDir)).toEqual({
      pid: process.pid,
      command: "lectern serve --docs docs",
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      hostname: hostname(),
    });
    await lock.update({ url: "http://127.0.0.1:3000" });
    expect(await lockOf(dataDir)).toMatchObject({ url: "http://127.0.0.1:3000" });
    await lock.release();
    expect(existsSync(ownerLockPath(dataDir))).toBe(false);

    // Closed, then opened again by the same process.
    const again = await acquireDataDirLock(dataDir);
    await again.release();
  });

  it("refuses a second open in the same process while the first holds it", async () => {
    const dataDir = freshDir();
    const lock = await acquireDataDirLock(dataDir);
    try {
      await expect(acquireDataDirLock(dataDir)).rejects.toMatchObject({
        code: "DATA_DIR_IN_USE",
        message: expect.stringMatching(/in use by this process/),
      });
    } finally {
      await lock.release();
    }
  });

  it("refuses while another live process holds it, naming that process, and leaves its lock", async () => {
    const dataDir = freshDir();
    await acquireDataDirLock(dataDir).then((lock) => lock.release()); // creates the directory
    // The parent of this test's process is alive for as long as the test runs.
    const owner = {
      pid: process.ppid,
      command: "lectern serve --docs docs",
      url: "http://127.0.0.1:4321",
      startedAt: "2024-05-01T10:00:00.000Z",
      hostname: hostname(),
    };
    await writeLock(dataDir, owner);
    const refusal = acquireDataDirLock(dataDir);
    await expect(refusal).rejects.toMatchObject({
      code: "DATA_DIR_IN_USE",
      details: { pid: process.ppid, url: owner.url },
    });
    const message = (await refusal.catch((error: Error) => error)) as Error;
    expect(message.message).toContain(`pid ${process.ppid} (lectern serve --docs docs)`);
    expect(message.message).toContain("answering at http://127.0.0.1:4321");
    expect(message.message).toMatch(/restart that server with --docs/);
    expect(await lockOf(dataDir)).toEqual(owner);
  });

  it("refuses a lock held from another host, whose process cannot be checked from here", async () => {
    const dataDir = freshDir();
    await acquireDataDirLock(dataDir).then((lock) => lock.release());
    await writeLock(dataDir, {
      pid: await exitedPid(),
      command: "lectern ingest",
      startedAt: "2024-05-01T10:00:00.000Z",
      hostname: `not-${hostname()}`,
    });
    await expect(acquireDataDirLock(dataDir)).rejects.toMatchObject({
      code: "DATA_DIR_IN_USE",
      message: expect.stringContaining(`on host not-${hostname()}`),
    });
  });

  it("takes over the lock of a process that is gone, with a notice", async () => {
    const dataDir = freshDir();
    await acquireDataDirLock(dataDir).then((lock) => lock.release());
    const deadPid = await exitedPid();
    await writeLock(dataDir, {
      pid: deadPid,
      command: "lectern serve",
      startedAt: "2024-05-01T10:00:00.000Z",
      hostname: hostname(),
    });
    const notices: string[] = [];
    const lock = await acquireDataDirLock(dataDir, {
      onNotice: (notice) => notices.push(notice),
    });
    try {
      expect(await lockOf(dataDir)).toMatchObject({ pid: process.pid });
      expect(notices).toEqual([expect.stringContaining(`of pid ${deadPid} (lectern serve`)]);
    } finally {
      await lock.release();
    }
  });

  it("takes over a lock left under this process's own id by an earlier process", async () => {
    // A container restarted after a kill runs its server as pid 1 again.
    const dataDir = freshDir();
    await acquireDataDirLock(dataDir).then((lock) => lock.release());
    await writeLock(dataDir, {
      pid: process.pid,
      command: "lectern serve",
      startedAt: "2024-05-01T10:00:00.000Z",
      hostname: hostname(),
    });
    const lock = await acquireDataDirLock(dataDir, { onNotice: () => {} });
    expect(await lockOf(dataDir)).not.toMatchObject({ startedAt: "2024-05-01T10:00:00.000Z" });
    await lock.release();
  });

  it("is removed when the process exits without releasing it", async () => {
    const dataDir = freshDir();
    const source = `
      import { acquireDataDirLock } from ${JSON.stringify(path.resolve(import.meta.dirname, "data-dir-lock.ts"))};
      await acquireDataDirLock(${JSON.stringify(dataDir)});
      process.exit(3);
    `;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", source],
      { stdio: "ignore" },
    );
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(3);
    expect(existsSync(path.join(dataDir))).toBe(true);
    expect(existsSync(ownerLockPath(dataDir))).toBe(false);
  });

  it("names the command by the script's file name", () => {
    expect(commandLine(["/usr/bin/node", "/app/node_modules/.bin/lectern", "ingest"])).toBe(
      "lectern ingest",
    );
    expect(commandLine(["/usr/bin/node", "/repo/src/cli/main.ts", "serve", "--port", "0"])).toBe(
      "lectern serve --port 0",
    );
  });
});
