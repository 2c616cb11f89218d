import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { startServer } from "../src/http/server.ts";
import { ChatResponseSchema } from "../src/http/wire.ts";
import { lockPath } from "../src/ingest/ingest-lock.ts";
import { openLectern } from "../src/lectern.ts";
import { createTestSchema, requirePostgres } from "./postgres.ts";

/** Ingests of one book do not overlap, and a running server answers from what was ingested last. */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-ingest-serve-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function docsWith(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(workDir, name);
  await mkdir(root, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(root, file), text);
  return root;
}

const GEARS = "# Gears\n\nA gear ratio trades speed for torque.\n";
const FLYWHEEL =
  "# Flywheels\n\nA flywheel stores rotational energy and smooths the speed of an engine.\n";

describe("the ingest lock", () => {
  it("lets one ingest of a book run at a time, and takes over a lock whose process is gone", async () => {
    const docs = await docsWith("locked", { "gears.md": GEARS });
    const dataDir = path.join(workDir, "locked-data");
    const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
    try {
      const results = await Promise.allSettled([lectern.ingest(docs), lectern.ingest(docs)]);
      expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
      const refused = results.find((result) => result.status === "rejected");
      expect(refused?.reason).toMatchObject({
        code: "INGEST_LOCKED",
        message: expect.stringMatching(/Another ingest of "default" is running .*wait for it/),
      });

      // A lock left by a process that no longer exists does not block the next run.
      await writeFile(
        lockPath(dataDir, "default"),
        JSON.stringify({ pid: 2_147_483_000, since: "2020-01-01T00:00:00Z" }),
      );
      await expect(lectern.ingest(docs)).resolves.toMatchObject({ failures: [] });
    } finally {
      await lectern.close();
    }
  });
});

const postgresReady = await requirePostgres();
describe.runIf(postgresReady)("a running server and an ingest by another process", () => {
  it("answers from the new index version without a restart", async () => {
    const schema = await createTestSchema();
    const config = (dataDir: string) =>
      loadConfig({
        env: {
          LOG_LEVEL: "silent",
          PORT: "0",
          DATABASE_URL: schema.url,
          RATE_LIMIT_ENABLED: "false",
          LECTERN_INDEX_REFRESH_MS: "50",
        },
        overrides: { dataDir },
      });
    // The server and the ingest share the database, not the data directory.
    const serving = await openLectern(config(path.join(workDir, "server-data")));
    const ingesting = await openLectern(config(path.join(workDir, "ingest-data")));
    try {
      await serving.ingest(await docsWith("v1", { "gears.md": GEARS }));
      const server = await startServer(serving.config, { lectern: serving });
      try {
        const ask = async () => {
          const response = await fetch(`${server.url}/chat`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: "What does a flywheel store?" }),
          });
          const body = ChatResponseSchema.parse(await response.json());
          return body.sources.map((source) => ("file_path" in source ? source.file_path : ""));
        };
        expect(await ask()).not.toContain("flywheel.md");
        // A new version of the same book, from another folder: --replace says so.
        await ingesting.ingest(
          await docsWith("v2", { "gears.md": GEARS, "flywheel.md": FLYWHEEL }),
          undefined,
          { replace: true },
        );
        await expect.poll(ask, { timeout: 10_000, interval: 50 }).toContain("flywheel.md");
      } finally {
        await server.close();
      }
    } finally {
      await ingesting.close();
      await serving.close();
      await schema.drop();
    }
  });
});
