import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli/main.ts";
import { loadConfig } from "../src/config/config.ts";
import { loadQuestions } from "../src/eval/questions.ts";
import { startServer } from "../src/http/server.ts";
import { openLectern } from "../src/lectern.ts";
import { SAMPLE_DOCS, SAMPLE_QUESTIONS } from "./cli.ts";

/**
 * One path: `lectern ask --json` and `POST /chat` run the same chat pipeline, so for every sample
 * question they cite the same sources in the same order.
 */
let dataDir: string;
let questions: string[];

interface Source {
  source_url: string;
  citation_number: number;
  similarity_score?: number;
}

function sourceKeys(sources: Source[]): string[] {
  return sources.map(
    // Over HTTP the book's paths come on the server's origin (publicOrigin); the CLI has none.
    (source) =>
      `${source.citation_number} ${source.source_url.replace(/^https?:\/\/[^/]+/, "")} ${source.similarity_score ?? ""}`,
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-one-path-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  await lectern.ingest(SAMPLE_DOCS);
  await lectern.close();
  questions = (await loadQuestions(SAMPLE_QUESTIONS)).map((row) => row.question);
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("one path for the CLI and the HTTP API", () => {
  it("gives the same sources, in the same order, for every sample question", async () => {
    // The CLI first (it opens the data directory itself), then the server over the same index.
    const fromCli = new Map<string, string[]>();
    const write = vi.spyOn(process.stdout, "write");
    try {
      for (const question of questions) {
        write.mockClear();
        write.mockImplementation(() => true);
        const code = await main(["ask", question, "--json", "--data-dir", dataDir]);
        expect(code, question).toBe(0);
        const printed = write.mock.calls.map((call) => String(call[0])).join("");
        fromCli.set(question, sourceKeys((JSON.parse(printed) as { sources: Source[] }).sources));
      }
    } finally {
      write.mockRestore();
    }

    const config = loadConfig({
      env: { LOG_LEVEL: "silent", PORT: "0", HISTORY: "off", RATE_LIMIT_ENABLED: "false" },
      overrides: { dataDir },
    });
    const server = await startServer(config);
    try {
      let withSources = 0;
      for (const question of questions) {
        const response = await fetch(`${server.url}/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: question }),
        });
        expect(response.status, question).toBe(200);
        const body = (await response.json()) as { sources: Source[] };
        const keys = sourceKeys(body.sources);
        if (keys.length > 0) withSources++;
        expect(keys, question).toEqual(fromCli.get(question));
      }
      // Most questions are answered with sources, so the comparison is not between empty lists.
      expect(withSources).toBeGreaterThan(questions.length * 0.7);
    } finally {
      await server.close();
    }
  }, 600_000);
});
