// Part of the server's build: the engine (search and extractive answers over one book, with no
// Node built-in) bundled for browsers and Web Workers, as `lectern build-static` copies it beside
// a static book. Parts loaded only for some questions (the word-class tagger, other languages'
// stemmers) are split into files of their own and fetched when first needed; the model SDK, never
// used without a server, is left out.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(serverDir, "dist", "static-engine");

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    "lectern-engine": join(serverDir, "src", "engine", "static-book.ts"),
    "lectern-worker": join(serverDir, "src", "engine", "worker.ts"),
  },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  outdir,
  conditions: ["lectern-source"],
  external: ["ai"],
  legalComments: "linked",
  logLevel: "warning",
});
