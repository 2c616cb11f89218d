import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LECTERN_BIN } from "./cli.ts";
import { openSampleBook } from "./http-fixture.ts";
import { portIsOpen, processesMentioning, startServeProcess } from "./serve-process.ts";

/**
 * `lectern serve` started through the published bin (the compiled CLI, `npm run build`) and
 * stopped as systemd, Docker or Ctrl-C stop it: the port closes, "shut down" is logged and no
 * process of it is left behind.
 */

const COMPILED_CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

let bookDir: string;
let workDir: string;
beforeAll(async () => {
  if (!existsSync(COMPILED_CLI)) {
    throw new Error(`${COMPILED_CLI} is missing: run npm run build first (npm test does).`);
  }
  const book = await openSampleBook();
  await book.lectern.close();
  bookDir = book.dataDir;
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-shutdown-"));
});
afterAll(async () => {
  if (bookDir) await rm(bookDir, { recursive: true, force: true });
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("stopping lectern serve with a signal", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s closes the port within 5 s, logs the shutdown and leaves no process",
    async (signal) => {
      const dataDir = path.join(workDir, `data-${signal}`);
      await cp(bookDir, dataDir, { recursive: true });
      const server = await startServeProcess(process.execPath, [
        LECTERN_BIN,
        "serve",
        "--data-dir",
        dataDir,
        "--port",
        "0",
      ]);
      try {
        expect((await fetch(`${server.url}/ready`)).status).toBe(200);
        // A keep-alive connection left open by a client must not hold the shutdown up.
        const idle = await fetch(`${server.url}/health`, { keepalive: true });
        expect(idle.status).toBe(200);

        server.child.kill(signal);
        const code = await server.exited(5_000);
        expect(code, server.output()).toBe(0);
        expect(server.output()).toContain(`${signal}: shutting down`);
        expect(server.output()).toContain("Lectern shut down");
        expect(await portIsOpen(server.port)).toBe(false);
        // Neither the CLI nor anything it started is still running with this data directory.
        expect(await processesMentioning(dataDir)).toEqual([]);
      } finally {
        server.child.kill("SIGKILL");
        // Whatever a failing run left behind (only this test's processes name its data directory).
        for (const pid of await processesMentioning(dataDir)) process.kill(pid, "SIGKILL");
      }
    },
  );
});

describe("stopping the quick start's server through npm", () => {
  it("SIGTERM sent to npm alone shuts the server down and leaves no process", async () => {
    // A process manager or `kill <pid>` may signal only the process it started: npm. Its script's
    // shell must hand the signal on (the scripts `exec` their last command), or the server is
    // left running without a parent.
    // A new data directory: `start` ingests the sample book into it first.
    const dataDir = path.join(workDir, "data-npm");
    const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
    const server = await startServeProcess(
      "npm",
      ["run", "start", "-w", "@lectern/server", "--", "--data-dir", dataDir, "--port", "0"],
      {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
        startTimeoutMs: 180_000,
      },
    );
    try {
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      server.child.kill("SIGTERM");
      await server.exited(10_000);
      // npm may exit before its child has finished: wait for the server's own last words.
      for (let waited = 0; waited < 10_000; waited += 100) {
        if (server.output().includes("Lectern shut down")) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(server.output()).toContain("Lectern shut down");
      expect(await portIsOpen(server.port)).toBe(false);
      expect(await processesMentioning(dataDir)).toEqual([]);
    } finally {
      server.child.kill("SIGKILL");
      for (const pid of await processesMentioning(dataDir)) process.kill(pid, "SIGKILL");
    }
  }, 240_000);
});
