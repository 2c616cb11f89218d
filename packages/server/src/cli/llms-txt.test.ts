import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, SAMPLE_DOCS } from "../../test/cli.ts";
import { loadConfig } from "../config/config.ts";
import { openLectern } from "../lectern.ts";

/** `lectern llms-txt --out`: the files a static host serves, from an ingested book. */

const BASE_URL = "https://primer.example.com/book/";
let dir: string;
const dataDir = () => path.join(dir, "index");

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lectern-llms-txt-"));
  const ingest = await runCli([
    "ingest",
    "--docs",
    SAMPLE_DOCS,
    "--data-dir",
    dataDir(),
    "--base-url",
    BASE_URL,
  ]);
  expect(ingest.code).toBe(0);
}, 120_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe("lectern llms-txt", () => {
  it("writes llms.txt, llms-full.txt and every page's .md under the base URL's path", async () => {
    const out = path.join(dir, "build");
    const result = await runCli([
      "llms-txt",
      "--out",
      out,
      "--data-dir",
      dataDir(),
      "--base-url",
      BASE_URL,
      "--json",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { out: string; files: string[] };
    expect(report.out).toBe(out);
    expect(await filesUnder(out)).toEqual([...report.files].sort());

    const llms = await readFile(path.join(out, "llms.txt"), "utf8");
    const links = Array.from(llms.matchAll(/^- \[.+?\]\((\S+?)\)/gm), (match) => match[1] ?? "");
    const mdFiles = report.files.filter((file) => file.endsWith(".md"));
    expect(links).toHaveLength(mdFiles.length);
    expect(mdFiles.length).toBeGreaterThan(15);
    for (const link of links) {
      // Each link is the page's own URL + .md, and its file is where the host serves that URL.
      expect(link.startsWith(BASE_URL), link).toBe(true);
      const file = path.join(out, link.slice(BASE_URL.length));
      expect(existsSync(file), link).toBe(true);
      expect((await readFile(file, "utf8")).startsWith("# "), link).toBe(true);
    }
    expect(report.files).toContain("docs/ros2/topics.md");
    const topics = await readFile(path.join(out, "docs/ros2/topics.md"), "utf8");
    expect(topics.split("\n")[0]).toBe("# Topics and Messages");
  });

  it("stops with INDEX_OUTDATED when a page has no Markdown, and asks for --out", async () => {
    const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir: dataDir() } }));
    try {
      await lectern.db.query(
        // A page stored before pages kept their Markdown: its content in its own row, without.
        "UPDATE documents SET markdown = NULL, content_key = NULL WHERE file_path = 'glossary.md'",
      );
    } finally {
      await lectern.close();
    }
    const outdated = await runCli([
      "llms-txt",
      "--out",
      path.join(dir, "build-2"),
      "--data-dir",
      dataDir(),
    ]);
    expect(outdated.code).toBe(1);
    expect(outdated.stderr).toBe(
      "error [INDEX_OUTDATED]: The page glossary.md was ingested by an older Lectern and has no Markdown yet. Run lectern ingest again.\n",
    );
    const missing = await runCli(["llms-txt", "--data-dir", dataDir()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("error: Missing --out <dir> (the site's build folder).\n");
  });
});
