import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

/**
 * A new PGlite data directory is a copy of a template: the files initdb writes, saved once as a
 * gzipped tar (PGlite's `dumpDataDir`, 4.5 MB) and unpacked here with plain file writes. Running
 * initdb instead starts three WebAssembly instances (PostgreSQL twice and initdb), which peaked at
 * 650–820 MB of RSS in a process of its own against ~40 MB to unpack the template
 * (docs/reliability.md, "Memory while ingesting"). initdb's output depends on PGlite's build
 * alone (the settings in postgresql.conf are written again at every start), so one template per
 * PGlite version serves every directory. `npm run build` makes it; a checkout that was never built
 * makes it the first time a directory is created.
 */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const manifest = path.join(path.dirname(entry), "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** Where the template for the installed PGlite lives: `dist/pglite/` of this package. */
export function defaultTemplateFile(): string {
  // Two levels up is the package's folder, from src/store and from dist/store alike.
  const packageDir = fileURLToPath(new URL("../..", import.meta.url));
  return path.join(packageDir, "dist", "pglite", `data-${pgliteVersion()}.tar.gz`);
}

/**
 * Makes the template file in a short-lived child process: initdb's memory is that process's, and
 * is given back when it ends. Written to a temporary name and renamed, so a process reading the
 * template never sees half of one. Resolves whether the template exists afterwards.
 */
export async function makeTemplate(file: string, settings: readonly string[]): Promise<boolean> {
  const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const partial = `${file}.${process.pid}.partial`;
  const source = `
    const [pgliteEntry, partial, file, settings] = process.argv.slice(1);
    const { writeFileSync, renameSync } = require("node:fs");
    const { PGlite } = require(pgliteEntry);
    (async () => {
      const db = new PGlite({ postgresqlconf: JSON.parse(settings) });
      await db.waitReady;
      await db.exec("CHECKPOINT");
      const dump = await db.dumpDataDir("gzip");
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      await db.close();
      renameSync(partial, file);
    })().catch((error) => {
      process.stderr.write(String(error && error.message));
      process.exitCode = 1;
    });
  `;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch {
    return false;
  }
  await new Promise<void>((resolve) => {
    execFile(
      process.execPath,
      ["-e", source, pgliteEntry, partial, file, JSON.stringify(settings)],
      { env: { PATH: process.env.PATH ?? "" }, timeout: 300_000 },
      () => resolve(),
    );
  });
  rmSync(partial, { force: true });
  return existsSync(file);
}

interface TarEntry {
  name: string;
  directory: boolean;
  content: Buffer;
}

/** The entries of an uncompressed tar (ustar: plain files and directories only). */
export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  const text = (start: number, length: number) =>
    archive.toString("latin1", start, start + length).replace(/\0.*$/s, "");
  for (let offset = 0; offset + 512 <= archive.length; ) {
    if (archive.subarray(offset, offset + 512).every((byte) => byte === 0)) break;
    const prefix = text(offset + 257, 6).startsWith("ustar") ? text(offset + 345, 155) : "";
    const name = prefix ? `${prefix}/${text(offset, 100)}` : text(offset, 100);
    const size = Number.parseInt(text(offset + 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(archive[offset + 156] ?? 0);
    if (!Number.isFinite(size) || offset + 512 + size > archive.length) {
      throw new Error(`The archive is cut short at ${name}.`);
    }
    if (type !== "0" && type !== "\0" && type !== "5") {
      throw new Error(`The archive holds ${name} of type ${type}, not a file or a directory.`);
    }
    const content = archive.subarray(offset + 512, offset + 512 + size);
    entries.push({ name: safeName(name), directory: type === "5", content });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/** An entry's path relative to the directory it is unpacked in; never outside it. */
function safeName(name: string): string {
  const relative = path.posix.normalize(name.replace(/^\/+/, ""));
  if (relative === ".." || relative.startsWith("../") || path.posix.isAbsolute(relative)) {
    throw new Error(`The archive names a path outside its directory: ${name}`);
  }
  return relative;
}

/**
 * Unpacks the template into `directory` (which holds no database yet). The files are written to a
 * sibling folder first and moved in with PG_VERSION last: PG_VERSION is what says a directory
 * holds a database, so an unpacking cut short leaves none.
 */
export function unpackTemplate(file: string, directory: string): void {
  const entries = readTar(gunzipSync(readFileSync(file)));
  const staging = `${directory}.unpacking-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    for (const entry of entries) {
      const target = path.join(staging, entry.name);
      if (entry.directory) mkdirSync(target, { recursive: true, mode: 0o700 });
      else {
        mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, entry.content, { mode: 0o600 });
      }
    }
    if (!existsSync(path.join(staging, "PG_VERSION"))) {
      throw new Error(`${file} holds no PG_VERSION: it is not a data directory.`);
    }
    const topLevel = new Set(entries.map((entry) => entry.name.split("/")[0] ?? ""));
    topLevel.delete("PG_VERSION");
    topLevel.delete(".");
    mkdirSync(directory, { recursive: true });
    for (const name of [...topLevel, "PG_VERSION"]) {
      renameSync(path.join(staging, name), path.join(directory, name));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
