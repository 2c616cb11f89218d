import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTemplate, pgliteVersion, readTar, unpackTemplate } from "./data-dir-template.ts";
import { MIGRATIONS, migrate } from "./migrations.ts";
import { openPglite, PGLITE_SETTINGS, prepareDirectory } from "./pglite.ts";

/** One tar entry (ustar header and content), as `tar` writes a plain file. */
function tarEntry(name: string, content: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, "latin1");
  header.write("0000600\0", 100, "latin1");
  header.write(`${Buffer.byteLength(content).toString(8).padStart(11, "0")}\0`, 124, "latin1");
  header.write("0", 156, "latin1");
  header.write("ustar\x0000", 257, "latin1");
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(content) / 512) * 512);
  body.write(content);
  return Buffer.concat([header, body]);
}

let workDir: string;
let template: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-template-"));
  template = path.join(workDir, "templates", `data-${pgliteVersion()}.tar.gz`);
  expect(await makeTemplate(template, PGLITE_SETTINGS)).toBe(true);
}, 120_000);
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("a new data directory from the template of initdb's files", () => {
  it("is unpacked from the template instead of running initdb", async () => {
    // A template with one file more than initdb writes: finding it shows where the files came from.
    const marked = path.join(workDir, "marked.tar.gz");
    const archive = gunzipSync(readFileSync(template));
    await writeFile(marked, gzipSync(Buffer.concat([tarEntry("/from-template", "yes"), archive])));
    const directory = path.join(workDir, "marked-db");

    await prepareDirectory(directory, marked);

    expect(await readFile(path.join(directory, "from-template"), "utf8")).toBe("yes");
    expect(existsSync(`${directory}.unpacking-${process.pid}`)).toBe(false);
  });

  it("opens as a database of the pinned PostgreSQL, and the migrations run on it", async () => {
    const directory = path.join(workDir, "db");
    await prepareDirectory(directory, template);
    const db = await openPglite(directory);
    try {
      const [row] = await db.query<{ version: string }>("SELECT version()");
      expect(row?.version).toContain(`PGlite ${pgliteVersion()}`);
      await migrate(db);
      const applied = await db.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM lectern_migrations",
      );
      expect(applied[0]?.count).toBe(MIGRATIONS.length);
      const [buffers] = await db.query<{ shared_buffers: string }>("SHOW shared_buffers");
      expect(buffers?.shared_buffers).toBe("16MB");
    } finally {
      await db.close();
    }
  });

  it("falls back to initdb when the template is damaged, leaving no half-unpacked directory", async () => {
    const damaged = path.join(workDir, "damaged.tar.gz");
    await writeFile(damaged, gzipSync(tarEntry("/base/1", "not a data directory")));
    const directory = path.join(workDir, "fallback-db");
    expect(() => unpackTemplate(damaged, directory)).toThrow(/PG_VERSION/);
    expect(existsSync(path.join(directory, "PG_VERSION"))).toBe(false);
    expect(existsSync(path.join(directory, "base"))).toBe(false);

    await prepareDirectory(directory, damaged);
    const db = await openPglite(directory);
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await db.close();
  }, 120_000);

  it("refuses an archive naming a file outside its directory", () => {
    expect(() => readTar(tarEntry("../outside", "x"))).toThrow(/outside its directory/);
    expect(readTar(tarEntry("/base/1", "x")).map((entry) => entry.name)).toEqual(["base/1"]);
  });
});
