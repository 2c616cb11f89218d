import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";

/** Command-line mistakes and an unreachable site given to `lectern ingest --url`. */

describe("lectern ingest --url, bad input", () => {
  it.each([
    [
      "an unreachable site",
      ["--url", "http://127.0.0.1:9/"],
      "error [CRAWL_UNREACHABLE]: Cannot reach http://127.0.0.1:9/",
    ],
    [
      "a site that is not http",
      ["--url", "ftp://example.com/"],
      "error: --url must be an http(s) URL",
    ],
    [
      "a folder and a site",
      ["--url", "http://127.0.0.1:9/", "--docs", "docs"],
      "error: Give either --docs <dir> or --url <url>",
    ],
    [
      "no page at all",
      ["--url", "http://127.0.0.1:9/", "--max-pages", "0"],
      "error: --max-pages must be a whole number",
    ],
    [
      "globs without a site",
      ["--docs", "docs", "--include", "/guide/**"],
      "error: --include applies to a site",
    ],
  ])("%s: a one-line error, and no index", async (_name, args, message) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-crawl-error-"));
    try {
      const result = await runCli(["ingest", ...args, "--data-dir", path.join(dataDir, "book")]);
      expect(result.code).toBe(message.startsWith("error [") ? 1 : 2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr.startsWith(message), result.stderr).toBe(true);
      await expect(
        readFile(path.join(dataDir, "book", "index", "default.bm25.json")),
      ).rejects.toThrow();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
