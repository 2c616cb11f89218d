import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_CLI } from "./cli.ts";
import { openSampleBook } from "./http-fixture.ts";
import { startServeProcess } from "./serve-process.ts";

/**
 * What `lectern serve` and `lectern ask` load to answer from an index that exists: not the
 * Markdown parser (ingest needs it); for `ask` also not the model SDK (no model is configured) nor
 * the embedded database (the book is read from its files). Each would add to every start.
 */

const RECORDER = pathToFileURL(
  fileURLToPath(new URL("./fixtures/record-modules.mjs", import.meta.url)),
).href;

let dataDir: string;
beforeAll(async () => {
  const book = await openSampleBook();
  await book.lectern.close();
  dataDir = book.dataDir;
}, 120_000);
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function askRecording(record: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", RECORDER, ...SOURCE_CLI, "ask", "What is URDF?", "--data-dir", dataDir],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          RECORD_MODULES_TO: record,
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

/** The packages (under node_modules) among the modules a process recorded. */
async function packagesLoaded(record: string): Promise<Set<string>> {
  const loaded = (await readFile(record, "utf8")).split("\n").filter(Boolean);
  return new Set(
    loaded.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []),
  );
}

const MARKDOWN_STACK = ["unified", "remark-parse", "micromark", "gray-matter", "katex"];
/** What `lectern ingest --url` loads to crawl a site: only that command needs it. */
const CRAWL_STACK = ["rehype-parse", "hast-util-to-mdast", "robots-parser", "fast-xml-parser"];

describe("lectern serve on an existing index", () => {
  it("answers without loading the Markdown parser", async () => {
    const record = path.join(dataDir, "serve-modules.txt");
    const server = await startServeProcess(
      process.execPath,
      ["--import", RECORDER, ...SOURCE_CLI, "serve", "--data-dir", dataDir, "--port", "0"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          RECORD_MODULES_TO: record,
        },
      },
    );
    try {
      const response = await fetch(`${server.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "What is URDF?" }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { answer: string }).answer).toMatch(/URDF/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited(30_000);
    }
    const packages = await packagesLoaded(record);
    expect(packages.has("hono")).toBe(true);
    for (const heavy of [...MARKDOWN_STACK, ...CRAWL_STACK])
      expect(packages.has(heavy), heavy).toBe(false);
  }, 120_000);
});

describe("lectern ask on an existing index", () => {
  it("answers without loading the Markdown parser, the model SDK or the database", async () => {
    const record = path.join(dataDir, "modules.txt");
    const { code, stdout } = await askRecording(record);
    expect(code).toBe(0);
    expect(stdout).toMatch(/URDF/);
    const packages = await packagesLoaded(record);
    // The recorder sees the modules (the index is loaded, to answer at all); the book is read
    // from its files, so the embedded database does not start.
    expect(packages.has("minisearch")).toBe(true);
    const modelSdk = ["ai", "@ai-sdk/openai", "@ai-sdk/openai-compatible", "@opentelemetry/api"];
    for (const heavy of [...MARKDOWN_STACK, ...CRAWL_STACK, "@electric-sql/pglite", ...modelSdk])
      expect(packages.has(heavy), heavy).toBe(false);
  }, 120_000);
});
