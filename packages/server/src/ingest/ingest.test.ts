import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { indexOf } from "@lectern/engine/search/test-builders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import { loadLexicalIndex } from "../search/index-store.ts";
import { authorSearchText } from "./ingest.ts";

async function writeDoc(
  root: string,
  relative: string,
  content: string | Uint8Array,
): Promise<void> {
  await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
  await writeFile(path.join(root, relative), content);
}

const FIXTURES = new URL("../../test/fixtures/mdx/", import.meta.url);

const page = (title: string, body: string) =>
  `---\ntitle: ${title}\ntags: [demo]\n---\n\n${body}\n`;

describe("incremental ingestion", () => {
  let workDir: string;
  let docsDir: string;
  let lectern: Lectern;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "lectern-ingest-"));
    docsDir = path.join(workDir, "docs");
    await writeDoc(
      docsDir,
      "index.md",
      page("Home", "Welcome to the gearbox manual. It explains planetary gears."),
    );
    await writeDoc(
      docsDir,
      "01-basics/01-torque.md",
      page("Torque", "## Torque limits {#limits}\n\nTorque is measured in newton metres."),
    );
    await writeDoc(docsDir, "01-basics/_category_.json", JSON.stringify({ label: "Basics" }));
    await writeDoc(docsDir, "01-basics/deep/_category_.yml", "label: Deep dive\nposition: 2\n");
    await writeDoc(docsDir, "01-basics/deep/gears.md", page("Gears", "Helical gears run quietly."));
    await writeDoc(docsDir, "01-basics/_shared.mdx", "Lubrication keeps the bearings cool.");
    await writeDoc(
      docsDir,
      "01-basics/02-care.mdx",
      `---\ntitle: Care\n---\nimport Shared from './_shared.mdx';\n\n## Maintenance\n\n<Shared />\n`,
    );
    await writeDoc(docsDir, "draft.md", "---\ndraft: true\n---\nSecret prototype flux capacitor.");
    const config = loadConfig({
      env: {},
      overrides: { dataDir: path.join(workDir, "data"), baseUrl: "https://gears.example" },
    });
    lectern = await openLectern(config);
  });
  afterAll(async () => {
    await lectern.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it("adds every page on the first run, skipping partials and drafts", async () => {
    const report = await lectern.ingest(docsDir);
    expect(report.added.sort()).toEqual([
      "01-basics/01-torque.md",
      "01-basics/02-care.mdx",
      "01-basics/deep/gears.md",
      "index.md",
    ]);
    // Category labels from _category_.json and _category_.yml become the page's breadcrumb.
    const rows = await lectern.db.query<{ metadata: { categories: string[] } | string }>(
      "SELECT metadata FROM documents WHERE file_path = $1",
      ["01-basics/deep/gears.md"],
    );
    const metadata = rows[0]?.metadata;
    expect(typeof metadata === "string" ? JSON.parse(metadata) : metadata).toMatchObject({
      categories: ["Basics", "Deep dive"],
    });
    expect(report.skippedDrafts).toEqual(["draft.md"]);
    expect(report.failures).toEqual([]);
    expect(report.totalDocuments).toBe(4);
    const chunks = await lectern.store.allChunks();
    const torque = chunks.find((chunk) => chunk.filePath === "01-basics/01-torque.md");
    expect(torque?.url).toBe("https://gears.example/docs/basics/torque#limits");
    expect(torque?.headingPath).toEqual(["Torque", "Torque limits"]);
    // Its blocks are read once, here, and stored with it.
    const stored = await lectern.db.query<{ blocks: unknown }>(
      `SELECT s.blocks FROM chunks c
         JOIN chunk_contents s ON s.collection = c.collection AND s.content_key = c.content_key
        WHERE c.file_path = $1`,
      ["01-basics/01-torque.md"],
    );
    const blocks = stored[0]?.blocks;
    expect(typeof blocks === "string" ? JSON.parse(blocks) : blocks).toEqual([
      { kind: "paragraph", text: "Torque is measured in newton metres." },
    ]);
    // The partial's text counts where the page renders it.
    const care = chunks.find((chunk) => chunk.filePath === "01-basics/02-care.mdx");
    expect(care?.text).toContain("Lubrication keeps the bearings cool.");
    expect(care?.url).toBe("https://gears.example/docs/basics/care#maintenance");
    expect(lectern.served.retriever.searchLexical("flux capacitor").results).toEqual([]);
    expect(
      lectern.served.retriever.searchLexical("bearings lubrication").results[0]?.chunk.filePath,
    ).toBe("01-basics/02-care.mdx");
  });

  it("skips everything on a second run with no changes", async () => {
    const before = await lectern.store.indexState();
    const report = await lectern.ingest(docsDir);
    expect(report).toMatchObject({
      added: [],
      updated: [],
      removed: [],
      unchanged: 4,
      changed: false,
    });
    expect(await lectern.store.indexState()).toEqual(before);
  });

  it("re-ingests a changed page, and a page whose partial changed", async () => {
    await writeDoc(
      docsDir,
      "01-basics/01-torque.md",
      page("Torque", "## Torque limits {#limits}\n\nTorque is measured in pound feet too."),
    );
    await writeDoc(docsDir, "01-basics/_shared.mdx", "Grease keeps the bearings quiet.");
    const report = await lectern.ingest(docsDir);
    expect(report.updated.sort()).toEqual(["01-basics/01-torque.md", "01-basics/02-care.mdx"]);
    expect(report.unchanged).toBe(2);
    expect(lectern.served.retriever.searchLexical("pound feet").results[0]?.chunk.filePath).toBe(
      "01-basics/01-torque.md",
    );
    expect(lectern.served.retriever.searchLexical("newton metres").results).toEqual([]);
    expect(lectern.served.retriever.searchLexical("grease").results[0]?.chunk.filePath).toBe(
      "01-basics/02-care.mdx",
    );
  });

  it("removes deleted pages from the store and the index", async () => {
    await unlink(path.join(docsDir, "index.md"));
    const report = await lectern.ingest(docsDir);
    expect(report.removed).toEqual(["index.md"]);
    expect(report.totalDocuments).toBe(3);
    expect(lectern.served.retriever.searchLexical("welcome planetary").results).toEqual([]);
  });

  it("indexes the frontmatter description, keywords and sidebar label, and re-indexes a page when they change", async () => {
    const gears = (description: string) =>
      `---\ntitle: Gears\ndescription: ${description}\nkeywords: [spur, worm drive]\nsidebar_label: Gear trains\n---\n\nHelical gears run quietly.\n`;
    await writeDoc(docsDir, "01-basics/deep/gears.md", gears("Choosing gears for conveyor belts"));
    let report = await lectern.ingest(docsDir);
    expect(report.updated).toEqual(["01-basics/deep/gears.md"]);
    const chunk = lectern.served.retriever.searchLexical("conveyor").results[0]?.chunk;
    expect(chunk?.filePath).toBe("01-basics/deep/gears.md");
    expect(chunk?.searchText).toBe(
      "Choosing gears for conveyor belts\nspur\nworm drive\nGear trains",
    );
    expect(chunk?.text).not.toContain("conveyor");
    expect(lectern.served.retriever.searchLexical("worm drive").results[0]?.chunk.filePath).toBe(
      "01-basics/deep/gears.md",
    );
    // Only the description changes: the page is re-indexed with the new one.
    await writeDoc(docsDir, "01-basics/deep/gears.md", gears("Choosing gears for escalators"));
    report = await lectern.ingest(docsDir);
    expect(report.updated).toEqual(["01-basics/deep/gears.md"]);
    expect(lectern.served.retriever.searchLexical("conveyor").results).toEqual([]);
    expect(lectern.served.retriever.searchLexical("escalators").results[0]?.chunk.filePath).toBe(
      "01-basics/deep/gears.md",
    );
    // Stored and read back the same.
    const stored = (await lectern.store.allChunks()).find(
      (candidate) => candidate.filePath === "01-basics/deep/gears.md",
    );
    expect(stored?.searchText).toBe("Choosing gears for escalators\nspur\nworm drive\nGear trains");
  });

  it("indexes a page with math and an .mdx page MDX cannot parse, warning about the latter", async () => {
    await writeDoc(docsDir, "02-physics/ratios.mdx", await readFile(new URL("math.mdx", FIXTURES)));
    const broken = await readFile(new URL("unclosed-tabs.mdx", FIXTURES), "utf8");
    await writeDoc(docsDir, "02-physics/broken-tabs.mdx", broken);
    const report = await lectern.ingest(docsDir);
    expect(report.failures).toEqual([]);
    expect(report.added.sort()).toEqual(["02-physics/broken-tabs.mdx", "02-physics/ratios.mdx"]);
    const tabLine = broken.split("\n").findIndex((line) => line.includes("<TabItem")) + 1;
    expect(report.warnings).toEqual([
      {
        filePath: "02-physics/broken-tabs.mdx",
        line: tabLine,
        reason: expect.stringMatching(/^cannot parse MDX: .*<TabItem>.*; indexed as CommonMark$/),
        message: expect.stringMatching(
          new RegExp(`^02-physics/broken-tabs\\.mdx:${tabLine}: cannot parse MDX`),
        ),
      },
    ]);
    const ratio =
      lectern.served.retriever.searchLexical("lever arm torque ratio").results[0]?.chunk;
    expect(ratio?.filePath).toBe("02-physics/ratios.mdx");
    expect(ratio?.text).toContain("```math\n\\frac{a}{b}\n```");
    expect(
      lectern.served.retriever.searchLexical("content of tab").results[0]?.chunk.filePath,
    ).toBe("02-physics/broken-tabs.mdx");
  });

  it("keeps a page's previous version when it stops parsing, and reports it with its line", async () => {
    await writeDoc(
      docsDir,
      "01-basics/02-care.mdx",
      "---\ntitle: Care\ntags: [unclosed\n---\n\n## Maintenance\n\nNew text.\n",
    );
    const report = await lectern.ingest(docsDir);
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]?.filePath).toBe("01-basics/02-care.mdx");
    expect(report.failures[0]?.code).toBe("INVALID_FRONTMATTER");
    expect(report.failures[0]?.line).toBeGreaterThanOrEqual(3);
    expect(report.failures[0]?.message).toMatch(/^01-basics\/02-care\.mdx:\d+: /);
    expect(report.removed).toEqual([]);
    expect(
      lectern.served.retriever.searchLexical("grease bearings").results[0]?.chunk.filePath,
    ).toBe("01-basics/02-care.mdx");
  });

  it("leaves the store and the index as they were when a run fails after storing pages", async () => {
    const torque = await readFile(path.join(docsDir, "01-basics/01-torque.md"), "utf8");
    await writeDoc(
      docsDir,
      "01-basics/01-torque.md",
      page("Torque", "## Torque limits {#limits}\n\nTorque is measured in kilonewton metres."),
    );
    await writeDoc(docsDir, "03-new/winch.md", page("Winch", "A winch drum spools the cable."));
    const state = await lectern.store.indexState();
    const chunks = await lectern.store.allChunks();
    const size = indexOf(lectern).size;
    // Every page has been stored in the run's transaction when the last progress event comes.
    const stop = (event: { done: number; total: number }) => {
      if (event.done === event.total) throw new Error("interrupted");
    };
    await expect(lectern.ingest(docsDir, stop)).rejects.toThrow("interrupted");
    expect(await lectern.store.indexState()).toEqual(state);
    expect(await lectern.store.allChunks()).toEqual(chunks);
    expect(indexOf(lectern).size).toBe(size);
    expect(lectern.served.retriever.searchLexical("kilonewton").results).toEqual([]);
    expect(lectern.served.retriever.searchLexical("winch drum").results).toEqual([]);
    expect(lectern.served.retriever.searchLexical("pound feet").results[0]?.chunk.filePath).toBe(
      "01-basics/01-torque.md",
    );
    await writeDoc(docsDir, "01-basics/01-torque.md", torque);
    await unlink(path.join(docsDir, "03-new/winch.md"));
  });

  it("loads the saved BM25 snapshot on restart instead of rebuilding it", async () => {
    const loaded = await loadLexicalIndex(lectern.store, lectern.config.dataDir);
    expect(loaded.rebuilt).toBe(false);
    expect(loaded.index.size).toBe(indexOf(lectern).size);
  });
});

describe("authorSearchText", () => {
  it("joins description, keywords and sidebar label", () => {
    expect(
      authorSearchText("Gears", {
        description: "How gears mesh.",
        keywords: ["spur", "helical"],
        sidebar_label: "Gear basics",
      }),
    ).toBe("How gears mesh.\nspur\nhelical\nGear basics");
  });

  it("reads keywords written as a comma-separated string", () => {
    expect(authorSearchText("Gears", { keywords: "spur, helical ,, worm drive" })).toBe(
      "spur\nhelical\nworm drive",
    );
  });

  it("leaves out what repeats the title or an earlier part, and what is not text", () => {
    expect(
      authorSearchText("Gear Basics", {
        description: "  ",
        keywords: ["gear basics", 42, "Spur", "spur"],
        sidebar_label: "Gear  basics",
      }),
    ).toBe("Spur");
    expect(authorSearchText("Gears", {})).toBe("");
  });
});

describe("a page whose frontmatter is a YAML alias bomb", () => {
  it("fails alone, like invalid YAML, and the rest of the book is ingested", async () => {
    const workDir = await mkdtemp(path.join(tmpdir(), "lectern-bomb-"));
    const docsDir = path.join(workDir, "docs");
    await writeDoc(docsDir, "gears.md", page("Gears", "Helical gears run quietly."));
    await writeDoc(
      docsDir,
      "bomb.md",
      await readFile(new URL("../yaml-alias-bomb.md", FIXTURES), "utf8"),
    );
    const lectern = await openLectern(
      loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "data") } }),
    );
    try {
      const report = await lectern.ingest(docsDir);
      expect(report.failures).toEqual([
        expect.objectContaining({ filePath: "bomb.md", code: "INVALID_FRONTMATTER" }),
      ]);
      expect(report.added).toEqual(["gears.md"]);
      expect(
        lectern.served.retriever.searchLexical("helical gears").results[0]?.chunk.filePath,
      ).toBe("gears.md");
    } finally {
      await lectern.close();
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
