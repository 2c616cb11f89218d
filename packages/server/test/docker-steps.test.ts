import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatResponseSchema } from "../src/http/wire.ts";
import { childEnv, REPO_ROOT, run, runOk } from "./npm.ts";
import { portIsOpen, startServeProcess } from "./serve-process.ts";

/**
 * The container image's steps (scripts/docker-steps.sh, which the Dockerfile runs) run here
 * without Docker: install and build in a copy of the repository, the application installed into
 * a directory of its own, started, asked a question and stopped as `docker stop` stops it. Slow
 * (an npm ci and a build, a few minutes); SKIP_DOCKER_STEPS=1 skips it outside CI.
 */

const skip = process.env.SKIP_DOCKER_STEPS === "1" && process.env.CI !== "true";

let workDir: string;
let sourceDir: string;
let appDir: string;
let script: string;

/** A port nothing listens on now, for a server whose health check must know it in advance. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe.skipIf(skip)("the container image's steps, run in a temporary directory", () => {
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "lectern-image-"));
    sourceDir = path.join(workDir, "src");
    appDir = path.join(workDir, "app");
    // The build context: the repository's files (as .dockerignore leaves them, without installs or builds).
    const files = execFileSync(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      { cwd: REPO_ROOT, encoding: "utf8" },
    )
      .split("\0")
      .filter(Boolean);
    for (const file of files) {
      await mkdir(path.dirname(path.join(sourceDir, file)), { recursive: true });
      await copyFile(path.join(REPO_ROOT, file), path.join(sourceDir, file)).catch((error) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // deleted, not committed
      });
    }
    script = path.join(sourceDir, "scripts", "docker-steps.sh");
    // Packages come from npm's cache when it has them, as in a Docker build with a cache mount.
    const env = childEnv({ npm_config_prefer_offline: "true" });
    await runOk(script, ["install"], sourceDir, env);
    await runOk(script, ["build", appDir], sourceDir, env);
  }, 15 * 60_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("installs the application with production dependencies only", async () => {
    const installed = await runOk("npm", ["ls", "--all", "--parseable"], appDir);
    expect(installed).toContain(path.join("node_modules", "@lectern", "server"));
    for (const devOnly of ["typescript", "vitest", "tsx", "vite", "@huggingface/transformers"]) {
      expect(installed, devOnly).not.toContain(path.join("node_modules", devOnly));
    }
  });

  it("starts, ingests the mounted book, answers and reports healthy, then stops on SIGTERM", async () => {
    const port = await freePort();
    const env = childEnv({
      HOST: "127.0.0.1",
      PORT: String(port),
      LECTERN_DATA_DIR: path.join(workDir, "data"),
      LECTERN_DOCS_DIR: path.join(sourceDir, "examples", "robotics-primer", "docs"),
      LECTERN_TITLE: "Robotics Primer in a box",
    });
    const server = await startServeProcess("sh", [script, "start", appDir], {
      env,
      cwd: workDir,
    });
    try {
      expect(server.port).toBe(port);
      expect((await run(script, ["health"], workDir, env)).code).toBe(0);
      const response = await fetch(`${server.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "How do I publish messages on a topic?" }),
      });
      expect(response.status).toBe(200);
      const answer = ChatResponseSchema.parse(await response.json());
      expect(answer.sources[0]?.source_url).toMatch(/^http:\/\/[^/]+\/docs\//);
      const page = await fetch(server.url, { headers: { accept: "text/html" } });
      expect(await page.text()).toContain("Robotics Primer in a box");

      server.child.kill("SIGTERM");
      expect(await server.exited(5_000), server.output()).toBe(0);
      expect(server.output()).toContain("Lectern shut down");
      expect(await portIsOpen(port)).toBe(false);
      expect((await run(script, ["health"], workDir, env)).code).toBe(1);
    } finally {
      server.child.kill("SIGKILL");
    }
  });
});
