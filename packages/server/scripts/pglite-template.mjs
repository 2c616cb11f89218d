// Part of the server's build: the template of a new embedded database's files (initdb's output
// for the installed PGlite), so that creating a data directory unpacks it instead of running
// initdb (src/store/data-dir-template.ts).
import { existsSync } from "node:fs";
import { defaultTemplateFile, makeTemplate } from "../dist/store/data-dir-template.js";
import { PGLITE_SETTINGS } from "../dist/store/pglite.js";

const file = defaultTemplateFile();
if (!existsSync(file) && !(await makeTemplate(file, PGLITE_SETTINGS))) {
  console.error(`Could not make ${file}, the template of a new embedded database.`);
  process.exit(1);
}
