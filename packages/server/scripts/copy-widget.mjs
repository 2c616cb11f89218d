// Part of the server's build: the standalone widget script that `GET /lectern.js` serves is copied
// into dist/public, so the published server needs no dependency on @lectern/widget (whose React
// peer dependency would clash with the React 18 of a Docusaurus site installing Lectern).
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(serverDir, "..", "widget", "dist", "lectern.js");
const target = join(serverDir, "dist", "public", "lectern.js");

if (!existsSync(source)) {
  console.error(`${source} is missing: build the widget first (npm run build -w @lectern/widget).`);
  process.exit(1);
}
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
