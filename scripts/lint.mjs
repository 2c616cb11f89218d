#!/usr/bin/env node
// `npm run lint`: `biome check --error-on-warnings` over the files git tracks, so that scratch
// files in a clone (untracked, not ignored) never fail the check. Biome's own git integration
// only reads .gitignore. Outside a git checkout (a source tarball) it checks the whole folder.
// Extra arguments go to Biome: `npm run lint -- --write`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const biome = require.resolve("@biomejs/biome/bin/biome");

const listed = spawnSync("git", ["ls-files", "-z", "--cached"], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024, // 64 MB of file names
});
const inGit = listed.status === 0;
// A tracked file deleted in the working tree is not there to check.
const files = inGit ? listed.stdout.split("\0").filter((file) => file && existsSync(file)) : ["."];
// Biome given no path would check the whole folder, untracked files too.
if (files.length === 0) process.exit(0);

const result = spawnSync(
  process.execPath,
  [
    biome,
    "check",
    "--error-on-warnings",
    // Tracked files that biome.json leaves out (Markdown, fixtures) are skipped, not errors.
    "--no-errors-on-unmatched",
    ...process.argv.slice(2),
    ...files,
  ],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
