import { execFileSync } from "node:child_process";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, run } from "./npm.ts";

/**
 * `npm run lint` (scripts/lint.mjs) checks what git tracks: a scratch file in a clone never fails
 * it, the same file committed does. Run in a repository of its own with the project's biome.json.
 */

const LINT = path.join(REPO_ROOT, "scripts", "lint.mjs");
const BADLY_FORMATTED = "const  scratch = {a:1}\nexport default scratch\n";

let repo: string;
beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), "lectern-lint-"));
  await copyFile(path.join(REPO_ROOT, "biome.json"), path.join(repo, "biome.json"));
  await writeFile(path.join(repo, "good.ts"), 'export const good = "formatted";\n');
  await writeFile(path.join(repo, "scratch.ts"), BADLY_FORMATTED);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  git("init", "-q");
  git("add", "biome.json", "good.ts");
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe("npm run lint", () => {
  it("leaves out an untracked file and fails on the same file once tracked", async () => {
    const untracked = await run(process.execPath, [LINT], repo);
    expect(untracked.code, untracked.output).toBe(0);
    expect(untracked.output).not.toContain("scratch.ts");
    expect(untracked.output).toContain("Checked 2 files");

    execFileSync("git", ["add", "scratch.ts"], { cwd: repo });
    const tracked = await run(process.execPath, [LINT], repo);
    expect(tracked.code).not.toBe(0);
    expect(tracked.output).toMatch(/scratch\.ts format/);
  });
});
