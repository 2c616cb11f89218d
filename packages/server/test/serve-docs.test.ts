import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChatResponseSchema } from "../src/http/wire.ts";
import { startServerProcess } from "./server-process.ts";

/** `lectern serve --docs`: one bad page fails alone, and the server starts on the rest. */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-serve-docs-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("lectern serve --docs", () => {
  it("serves the book when one page's frontmatter is a YAML alias bomb", async () => {
    const docs = path.join(workDir, "docs");
    await mkdir(docs, { recursive: true });
    await writeFile(
      path.join(docs, "gears.md"),
      "---\ntitle: Gears\n---\n\nHelical gears run quietly because their teeth engage gradually.\n",
    );
    await copyFile(
      fileURLToPath(new URL("fixtures/yaml-alias-bomb.md", import.meta.url)),
      path.join(docs, "bomb.md"),
    );
    const server = await startServerProcess(
      ["--docs", docs, "--port", "0", "--data-dir", path.join(workDir, "data")],
      { LOG_LEVEL: "error" },
    );
    try {
      const response = await fetch(`${server.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "Why do helical gears run quietly?" }),
      });
      const body = ChatResponseSchema.parse(await response.json());
      expect(body.sources[0]).toMatchObject({ file_path: "gears.md" });
      // stderr is a pipe of its own: the failure line may still be on its way.
      await vi.waitFor(() => expect(server.stderr()).toMatch(/bomb\.md:.*aliases/));
    } finally {
      await server.stop();
    }
  });
});
