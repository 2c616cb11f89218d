import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { readVersionedSite } from "../src/ingest/versioned-site.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { askChat, createTestApp, type TestApp } from "./http-fixture.ts";

/**
 * Jest's own site (versions.json: 30.4, 30.0, 29.7; `../docs` the unreleased docs), asked
 * questions whose answer differs between versions (fixtures/jest-versions.jsonl). Skipped where
 * the site is not at hand (JEST_SITE_DIR, default the development sets' copy).
 */
const SITE = process.env.JEST_SITE_DIR ?? "/work/shared/devsets/jest/website";

interface VersionQuestion {
  id: string;
  question: string;
  version: string;
  path_prefix: string;
  must_contain: string;
  must_not_contain: string | null;
  /** How the answer starts when it comes from another version than the one asked for. */
  other_version: string | null;
}

const questions = (
  await readFile(path.join(import.meta.dirname, "fixtures/jest-versions.jsonl"), "utf8")
)
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as VersionQuestion);

const run = existsSync(path.join(SITE, "versions.json")) ? describe : describe.skip;

run("Jest's versioned site", () => {
  let dataDir: string;
  let lectern: Lectern;
  let app: TestApp;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "lectern-jest-"));
    lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
    await lectern.ingest(await readVersionedSite(SITE, { docsPath: "../docs" }));
    app = createTestApp(lectern).app;
  }, 120_000);

  afterAll(async () => {
    await lectern?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("holds the four versions with Docusaurus's URLs", () => {
    expect(lectern.served.versions.map((version) => [version.name, version.urlSegment])).toEqual([
      ["current", "next"],
      ["30.4", ""],
      ["30.0", "30.0"],
      ["29.7", "29.7"],
    ]);
  });

  it.each(questions)("$id: $question ($version)", async (row) => {
    const body = await askChat(app, { query: row.question, filters: { version: row.version } });
    const answer = body.answer ?? "";
    const first = new URL(body.sources[0]?.source_url ?? "/", "http://localhost").pathname;
    expect(first.startsWith(row.path_prefix)).toBe(true);
    expect(answer).toContain(row.must_contain);
    if (row.must_not_contain) expect(answer).not.toContain(row.must_not_contain);
    if (row.other_version) expect(answer.startsWith(row.other_version)).toBe(true);
    else expect(answer).not.toMatch(/^Not in /);
  });
});
