import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { openLectern } from "../lectern.ts";
import { DocumentStore } from "../store/document-store.ts";
import { openDatabase } from "../store/open.ts";
import type { DocSource } from "./doc-source.ts";
import { FileSystemDocSource } from "./files.ts";
import { ingestDocs, ingestOptionsFromConfig } from "./ingest.ts";
import { MemoryDocSource } from "./memory-doc-source.ts";

const SAMPLE_BOOK = path.resolve(import.meta.dirname, "../../../../examples/robotics-primer/docs");

/** A small book with a hidden folder, a generated folder, labels and one broken category file. */
const BOOK: Record<string, string> = {
  "index.md": "---\ntitle: Home\n---\n\nWelcome to the gearbox manual.\n",
  "basics/_category_.json": JSON.stringify({ label: "Basics" }),
  "basics/torque.md": "# Torque\n\nTorque is measured in newton metres.\n",
  "basics/deep/_category_.yml": "label: Deep dive\n",
  "basics/deep/gears.mdx": "# Gears\n\nHelical gears run quietly.\n",
  "broken/_category_.json": "{ not json",
  "broken/page.md": "# Broken folder\n\nStill a page.\n",
  ".hidden/secret.md": "# Hidden\n",
  "node_modules/pkg/readme.md": "# Dependency\n",
  "notes.txt": "not Markdown",
};

async function writeBook(root: string, files: Record<string, string>): Promise<void> {
  for (const [filePath, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, filePath)), { recursive: true });
    await writeFile(path.join(root, filePath), content);
  }
}

/** Every file below `root`, as the in-memory source's input. */
async function readBook(root: string, relative = ""): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, await readBook(root, child));
    else files[child] = await readFile(path.join(root, child));
  }
  return files;
}

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-doc-source-"));
  await writeBook(path.join(workDir, "book"), BOOK);
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const sources: { name: string; open: (files: Record<string, string>) => Promise<DocSource> }[] = [
  {
    name: "the filesystem",
    async open(files) {
      const root = await mkdtemp(path.join(workDir, "source-"));
      await writeBook(root, files);
      return new FileSystemDocSource(root);
    },
  },
  { name: "memory", open: async (files) => new MemoryDocSource(files) },
];

for (const source of sources) {
  describe(`doc source on ${source.name}`, () => {
    it("lists Markdown and MDX files sorted, outside hidden and generated folders", async () => {
      const listing = await (await source.open(BOOK)).list();
      expect(listing.markdownFiles).toEqual([
        "basics/deep/gears.mdx",
        "basics/torque.md",
        "broken/page.md",
        "index.md",
      ]);
      expect([...listing.categoryLabels]).toEqual(
        expect.arrayContaining([
          ["basics", "Basics"],
          ["basics/deep", "Deep dive"],
        ]),
      );
      expect(listing.categoryLabels.size).toBe(2);
      expect(listing.problems).toHaveLength(1);
      expect(listing.problems[0]?.message).toMatch(
        /^broken\/_category_\.json: cannot read category file: /,
      );
    });

    it("reads a file's bytes and refuses a file it does not hold", async () => {
      const opened = await source.open(BOOK);
      const bytes = await opened.read("basics/torque.md");
      expect(new TextDecoder().decode(bytes)).toBe(BOOK["basics/torque.md"]);
      await expect(opened.read("basics/missing.md")).rejects.toMatchObject({ code: "ENOENT" });
    });

    it("fails with DOCS_DIR_EMPTY when it holds no Markdown", async () => {
      const opened = await source.open({ "notes.txt": "nothing to index" });
      await expect(opened.list()).rejects.toMatchObject({ code: "DOCS_DIR_EMPTY" });
    });
  });
}

describe("ingesting from a DocSource", () => {
  it("gives the same documents and chunks from memory as from the folder (sample book)", async () => {
    const fromDisk = await openLectern(
      loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "disk") } }),
    );
    const fromMemory = await openLectern(
      loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "memory") } }),
    );
    try {
      const diskReport = await fromDisk.ingest(SAMPLE_BOOK);
      const memoryReport = await fromMemory.ingest(
        new MemoryDocSource(await readBook(SAMPLE_BOOK)),
      );
      expect(memoryReport.added).toEqual(diskReport.added);
      expect(memoryReport.failures).toEqual(diskReport.failures);
      expect(diskReport.totalChunks).toBeGreaterThan(20);
      expect(await fromMemory.store.allChunks()).toEqual(await fromDisk.store.allChunks());
      expect(await fromMemory.store.pages()).toEqual(await fromDisk.store.pages());
      expect(await fromMemory.store.listDocuments()).toEqual(await fromDisk.store.listDocuments());
    } finally {
      await fromDisk.close();
      await fromMemory.close();
    }
  });

  it("writes the store's version into documents, chunks and chunk ids ('' by default)", async () => {
    const config = loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "versions") } });
    const db = await openDatabase(config);
    try {
      const book = new MemoryDocSource({ "torque.md": "# Torque\n\nTorque is a turning force.\n" });
      const options = ingestOptionsFromConfig(config, book);
      const unversioned = new DocumentStore(db, config.collection);
      const versioned = new DocumentStore(db, config.collection, "2.0");
      await ingestDocs(unversioned, options);
      await ingestDocs(versioned, options);

      const [plain] = await unversioned.allChunks();
      const [tagged] = await versioned.allChunks();
      if (!plain || !tagged) throw new Error("no chunks");
      expect(plain.version).toBe("");
      expect(tagged.version).toBe("2.0");
      expect(tagged.text).toBe(plain.text);
      const idFor = (version: string) =>
        createHash("sha256")
          .update(["default", version, "torque.md", 0, plain.contentHash].join("\u0000"))
          .digest("hex")
          .slice(0, 32);
      // Unversioned ids are what they were before versions were passed through.
      expect(plain.id).toBe(idFor(""));
      expect(tagged.id).toBe(idFor("2.0"));
      expect(await versioned.listDocuments()).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});
