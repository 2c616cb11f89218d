import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { indexOf } from "@lectern/engine/search/test-builders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";

/** What a docs folder on disk may hold that must not become a page as it is. */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-files-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const GOOD_PAGE = "# Gears\n\nA gear ratio trades speed for torque.\n";

async function docsFolder(name: string, files: Record<string, string> = {}): Promise<string> {
  const root = path.join(workDir, name);
  await mkdir(root, { recursive: true });
  await writeFile(path.join(root, "gears.md"), GOOD_PAGE);
  for (const [relative, text] of Object.entries(files)) {
    await writeFile(path.join(root, relative), text);
  }
  return root;
}

async function withBook<T>(
  ingest: Record<string, unknown>,
  use: (lectern: Lectern) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(path.join(workDir, "data-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir, ingest } }));
  try {
    return await use(lectern);
  } finally {
    await lectern.close();
  }
}

describe("files of a docs folder", () => {
  it("refuses a page that links outside the docs folder, unless allowed", async () => {
    const outside = path.join(workDir, "outside");
    await mkdir(outside, { recursive: true });
    await writeFile(
      path.join(outside, "secret.md"),
      "# Secret\n\nroot:x:0:0:root:/root:/bin/bash\n",
    );
    const docs = await docsFolder("linked", { "inside-target.md": "# Inside\n\nServo gains.\n" });
    await symlink(path.join(outside, "secret.md"), path.join(docs, "passwd.md"));
    await symlink(path.join(docs, "inside-target.md"), path.join(docs, "alias.md"));

    await withBook({}, async (lectern) => {
      const report = await lectern.ingest(docs);
      expect(report.added.sort()).toEqual(["alias.md", "gears.md", "inside-target.md"]);
      expect(report.failures).toEqual([
        expect.objectContaining({
          filePath: "passwd.md",
          code: "FILE_OUTSIDE_DOCS",
          message: expect.stringMatching(/^passwd\.md: links to a file outside the docs folder/),
        }),
      ]);
      expect([...indexOf(lectern).allChunks()].some((chunk) => chunk.text.includes("root:x"))).toBe(
        false,
      );
    });
    await withBook({ followLinksOutsideDocs: true }, async (lectern) => {
      const report = await lectern.ingest(docs);
      expect(report.failures).toEqual([]);
      expect(report.added).toContain("passwd.md");
    });
  });

  it("names a file whose name is not UTF-8 for what it is, not as missing", async () => {
    const docs = await docsFolder("names");
    const badName = Buffer.concat([
      Buffer.from(`${docs}/caf`),
      Buffer.from([0xe9]), // Latin-1 "é"
      Buffer.from(".md"),
    ]);
    await writeFile(badName, "# Café\n\nEspresso machines.\n");
    await withBook({}, async (lectern) => {
      const report = await lectern.ingest(docs);
      expect(report.added).toEqual(["gears.md"]);
      expect(report.failures).toHaveLength(1);
      expect(report.failures[0]?.code).toBe("FILE_UNREADABLE");
      expect(report.failures[0]?.message).toMatch(/^caf.\.md: the file name is not valid UTF-8/);
      expect(report.failures[0]?.message).not.toMatch(/ENOENT/);
    });
  });

  it("skips a page over the size limit with a message that says how to change it", async () => {
    const docs = await docsFolder("large", {
      "huge.md": `# Huge\n\n${"Generated reference text. ".repeat(2_000)}\n`,
    });
    await withBook({ maxPageBytes: 10_000 }, async (lectern) => {
      const report = await lectern.ingest(docs);
      expect(report.added).toEqual(["gears.md"]);
      expect(report.failures).toEqual([
        expect.objectContaining({
          filePath: "huge.md",
          code: "PAGE_TOO_LARGE",
          message: expect.stringMatching(
            /^huge\.md: skipped, 51 KiB is more than the 10 KiB .*LECTERN_MAX_PAGE_BYTES/,
          ),
        }),
      ]);
    });
  });
});
