// Part of the server's build: the engine package (@lectern/engine: search and extractive answers
// over one book, with no Node built-in) bundled for browsers and Web Workers, as
// `lectern build-static` copies it beside a static book. Parts loaded only for some questions (the
// word-class list, other languages' stemmers) are split into files of their own and fetched when
// first needed. `ENGINE_MINIFY=0` keeps the bundle's names (for reading a browser's profile of it).
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const engineSources = join(serverDir, "..", "engine", "src", "static");
const outdir = join(serverDir, "dist", "static-engine");

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    "lectern-engine": join(engineSources, "static-book.ts"),
    "lectern-worker": join(engineSources, "worker.ts"),
  },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: process.env.ENGINE_MINIFY !== "0",
  outdir,
  conditions: ["lectern-source"],
  legalComments: "linked",
  logLevel: "warning",
});
