// Builds the widget (the library and the standalone script) when its sources changed since the
// last build, so `npm start` does not rebuild it every time. A build that logs a warning fails.
//   node scripts/build.mjs            build if anything that goes into dist/ changed
//   node scripts/build.mjs --force    build anyway
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, createLogger } from "vite";

const widgetDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const protocolDir = join(widgetDir, "..", "protocol");
const distDir = join(widgetDir, "dist");
const stampFile = join(distDir, ".build-inputs");
const outputs = ["lectern-widget.js", "lectern.js"].map((file) => join(distDir, file));

/** Everything the bundles are made of: the widget's and the protocol's sources and build config. */
const inputs = [
  join(widgetDir, "src"),
  join(widgetDir, "package.json"),
  join(widgetDir, "vite.config.ts"),
  join(widgetDir, "vite.standalone.config.ts"),
  join(widgetDir, "vite.shared.ts"),
  join(protocolDir, "src"),
  join(protocolDir, "package.json"),
];

function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function inputsHash() {
  const hash = createHash("sha256");
  for (const file of inputs.flatMap(files)) {
    if (/\.test\.tsx?$/.test(file)) continue;
    hash.update(relative(widgetDir, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

const hash = inputsHash();
const force = process.argv.includes("--force");
const upToDate =
  !force &&
  outputs.every((file) => existsSync(file)) &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8").trim() === hash;

if (upToDate) {
  console.log("@lectern/widget: dist/ is up to date with the sources (--force rebuilds)");
} else {
  const logger = createLogger("info");
  const warnings = [];
  const warn = logger.warn;
  logger.warn = (message, options) => {
    warnings.push(message);
    warn(message, options);
  };
  for (const configFile of ["vite.config.ts", "vite.standalone.config.ts"]) {
    await build({ root: widgetDir, configFile: join(widgetDir, configFile), customLogger: logger });
  }
  if (warnings.length > 0) {
    console.error(`@lectern/widget: the build logged ${warnings.length} warning(s); fix them.`);
    process.exit(1);
  }
  writeFileSync(stampFile, `${hash}\n`);
}
