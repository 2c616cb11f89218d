/** @import { DocsLocation, IngestCommand, LoadedPlugin, NormalizedIngestOptions, PluginConfig, SiteConfig } from "./types.js" */
import { spawn } from "node:child_process";
import path from "node:path";
import { isRecord, PLUGIN_NAME } from "./options.js";

/** Docusaurus' defaults for the docs plugin's `path` and `routeBasePath`. */
export const DEFAULT_DOCS_LOCATION = Object.freeze({ path: "docs", routeBasePath: "docs" });

const DOCS_PLUGIN_NAME = "docusaurus-plugin-content-docs";
// "classic", "@docusaurus/preset-classic", "docusaurus-preset-classic" or a resolved path to it.
const CLASSIC_PRESET = /^classic$|(^|[/\\@])(docusaurus-)?preset-classic([/\\]|$)/;
// "content-docs", "@docusaurus/plugin-content-docs", "docusaurus-plugin-content-docs" or a path.
const DOCS_PLUGIN = /^content-docs$|(^|[/\\@])(docusaurus-)?plugin-content-docs([/\\]|$)/;

/**
 * Where the site's docs live and under which route they are served. The plugins Docusaurus has
 * loaded (given to postBuild) carry the docs plugin's options with its defaults applied, so they
 * come first; the presets and plugins of the site config are read when they are not at hand.
 * With several docs plugin instances, the default one (no `id`) is taken. `null`: no docs plugin.
 * @param {{ siteConfig: SiteConfig, plugins?: LoadedPlugin[] | undefined }} site
 * @returns {DocsLocation | null}
 */
export function findDocsLocation({ siteConfig, plugins }) {
  if (plugins) {
    const docsPlugins = plugins.filter((plugin) => plugin.name === DOCS_PLUGIN_NAME);
    const loaded = pickDefault(docsPlugins.map((plugin) => plugin.options ?? {}));
    if (loaded) return docsLocation(loaded);
  }
  return docsLocationFromConfig(siteConfig);
}

/**
 * @param {SiteConfig} siteConfig
 * @returns {DocsLocation | null}
 */
export function docsLocationFromConfig(siteConfig) {
  /** @type {Record<string, unknown>[]} */
  const candidates = [];
  for (const [name, options] of entries(siteConfig.presets)) {
    if (!CLASSIC_PRESET.test(name)) continue;
    const docs = isRecord(options) ? options.docs : undefined;
    if (docs === false) continue; // `docs: false` turns the preset's docs plugin off
    candidates.push(isRecord(docs) ? docs : {});
  }
  for (const [name, options] of entries(siteConfig.plugins)) {
    if (DOCS_PLUGIN.test(name)) candidates.push(isRecord(options) ? options : {});
  }
  const chosen = pickDefault(candidates);
  return chosen ? docsLocation(chosen) : null;
}

/**
 * The arguments of `lectern ingest` that make the index's URLs those of the built site:
 * `--docs <siteDir>/<docs path> --base-url <url><baseUrl> --route-base-path <routeBasePath>`, and
 * `--title <the site's title>`. A versioned site (`versioned`: it has a versions.json) is ingested
 * whole, every version at its own URLs: `--site <siteDir> --docs-path <docs path>` instead of
 * `--docs`, unless `ingest.docsDir` names one folder. So is a translated site (more than one of
 * `i18n.locales`), with `--locales` (the others) and `--default-locale`: each locale at `/<locale>/`.
 * @param {{ siteDir: string, siteConfig: SiteConfig, ingest: NormalizedIngestOptions, docs: DocsLocation | null, versioned?: boolean }} input
 * @returns {IngestCommand}
 */
export function buildIngestCommand({ siteDir, siteConfig, ingest, docs, versioned = false }) {
  if (!docs && ingest.docsDir === undefined) {
    throw new Error(
      `${PLUGIN_NAME}: ingest.enabled is true but the site has no docs plugin (preset-classic "docs" or @docusaurus/plugin-content-docs); set ingest.docsDir to the folder to ingest.`,
    );
  }
  const location = docs ?? DEFAULT_DOCS_LOCATION;
  const docsDir = path.resolve(siteDir, ingest.docsDir ?? location.path);
  const baseUrl = siteBaseUrl(siteConfig, ingest);
  const routeBasePath = (ingest.routeBasePath ?? location.routeBasePath) || "/";
  const [program, ...first] = ingest.command;
  if (program === undefined) throw new Error(`${PLUGIN_NAME}: ingest.command is empty.`);
  const locales = siteLocales(siteConfig);
  const whole = (versioned || locales !== undefined) && ingest.docsDir === undefined;
  const source = whole ? ["--site", siteDir, "--docs-path", location.path] : ["--docs", docsDir];
  if (whole && locales) {
    source.push("--locales", locales.others.join(","), "--default-locale", locales.default);
  }
  const args = [
    ...first,
    "ingest",
    ...source,
    "--base-url",
    baseUrl,
    "--route-base-path",
    routeBasePath,
  ];
  if (ingest.dataDir !== undefined) args.push("--data-dir", path.resolve(siteDir, ingest.dataDir));
  if (ingest.collection !== undefined) args.push("--collection", ingest.collection);
  // The book is the site: its title names it on Lectern's pages and in its answers.
  if (typeof siteConfig.title === "string" && siteConfig.title.trim()) {
    args.push("--title", siteConfig.title.trim());
  }
  if (ingest.strict) args.push("--strict");
  return { command: program, args, cwd: siteDir };
}

/**
 * The site's locales from its i18n config: the default one and the others; undefined for a site
 * in one locale.
 * @param {SiteConfig} siteConfig
 * @returns {{ default: string, others: string[] } | undefined}
 */
function siteLocales(siteConfig) {
  const defaultLocale = siteConfig.i18n?.defaultLocale ?? "en";
  const others = (siteConfig.i18n?.locales ?? []).filter((locale) => locale !== defaultLocale);
  return others.length > 0 ? { default: defaultLocale, others } : undefined;
}

/**
 * The arguments of `lectern llms-txt` that write llms.txt, llms-full.txt and each page's `.md`
 * into the build folder, beside the page's HTML: `--out <outDir> --base-url <url><baseUrl>`
 * (the same base URL as the ingestion, whose path is the build folder's root).
 * @param {{ siteConfig: SiteConfig, ingest: NormalizedIngestOptions, outDir: string, siteDir: string }} input
 * @returns {IngestCommand}
 */
export function buildLlmsTxtCommand({ siteConfig, ingest, outDir, siteDir }) {
  const [program, ...first] = ingest.command;
  if (program === undefined) throw new Error(`${PLUGIN_NAME}: ingest.command is empty.`);
  const args = [
    ...first,
    "llms-txt",
    "--out",
    outDir,
    "--base-url",
    siteBaseUrl(siteConfig, ingest),
  ];
  if (ingest.dataDir !== undefined) args.push("--data-dir", path.resolve(siteDir, ingest.dataDir));
  if (ingest.collection !== undefined) args.push("--collection", ingest.collection);
  return { command: program, args, cwd: siteDir };
}

/**
 * The arguments of `lectern build-static --book-only` that write the ingested book, its index, the
 * engine and the widget under `<outDir>/lectern/`, for the widget to answer from in the browser
 * (`mode: "static"`); with `feedbackUrl`, readers' ratings are posted there (`--feedback-url`).
 * @param {{ ingest: NormalizedIngestOptions, outDir: string, siteDir: string, feedbackUrl?: string }} input
 * @returns {IngestCommand}
 */
export function buildStaticBookCommand({ ingest, outDir, siteDir, feedbackUrl }) {
  const [program, ...first] = ingest.command;
  if (program === undefined) throw new Error(`${PLUGIN_NAME}: ingest.command is empty.`);
  const args = [...first, "build-static", "--out", outDir, "--book-only"];
  if (feedbackUrl !== undefined) args.push("--feedback-url", feedbackUrl);
  if (ingest.dataDir !== undefined) args.push("--data-dir", path.resolve(siteDir, ingest.dataDir));
  if (ingest.collection !== undefined) args.push("--collection", ingest.collection);
  return { command: program, args, cwd: siteDir };
}

/**
 * @param {SiteConfig} siteConfig
 * @param {NormalizedIngestOptions} ingest
 */
function siteBaseUrl(siteConfig, ingest) {
  return ingest.baseUrl ?? `${siteConfig.url.replace(/\/+$/, "")}${siteConfig.baseUrl}`;
}

/** How much of the command's stderr the build error repeats (it has been printed in full). */
const STDERR_TAIL_CHARS = 4000;

/**
 * Runs the ingest command with its output on the build's terminal. Rejects with a message that
 * names the command and repeats the end of its stderr when it cannot start or exits non-zero,
 * which makes `docusaurus build` fail.
 * @param {IngestCommand} ingestCommand
 * @param {{ stderr?: NodeJS.WritableStream }} [io]
 * @returns {Promise<void>}
 */
export function runIngest({ command, args, cwd }, io = {}) {
  const stderr = io.stderr ?? process.stderr;
  const commandLine = [command, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    let tail = "";
    const child = spawn(command, args, { cwd, stdio: ["ignore", "inherit", "pipe"] });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (/** @type {string} */ chunk) => {
      stderr.write(chunk);
      tail = (tail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.on("error", (error) => {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      reject(
        new Error(
          `${PLUGIN_NAME}: could not start the Lectern ingestion "${commandLine}" (${code ?? error.message}). Install Lectern in the site or point the plugin option ingest.command at it, e.g. ["node", "/path/to/lectern/packages/server/bin/lectern.js"].`,
        ),
      );
    });
    child.on("close", (code, signal) => {
      if (code === 0) {
        resolve();
        return;
      }
      const status = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
      const output = tail.trim() ? `\n${tail.trim()}` : "";
      reject(
        new Error(`${PLUGIN_NAME}: Lectern ingestion failed: "${commandLine}" ${status}.${output}`),
      );
    });
  });
}

/** @param {string} argument */
function quote(argument) {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", "'\\''")}'`;
}

/**
 * `[name, options]` for each named entry of a presets or plugins array (false/null skipped,
 * inline plugin functions have no name to match).
 * @param {PluginConfig[] | undefined} list
 * @returns {[string, unknown][]}
 */
function entries(list) {
  /** @type {[string, unknown][]} */
  const result = [];
  for (const entry of list ?? []) {
    if (typeof entry === "string") result.push([entry, undefined]);
    else if (Array.isArray(entry) && typeof entry[0] === "string")
      result.push([entry[0], entry[1]]);
  }
  return result;
}

/**
 * @param {Record<string, unknown>[]} candidates
 * @returns {Record<string, unknown> | undefined}
 */
function pickDefault(candidates) {
  return (
    candidates.find((options) => options.id === undefined || options.id === "default") ??
    candidates[0]
  );
}

/**
 * @param {Record<string, unknown>} options
 * @returns {DocsLocation}
 */
function docsLocation(options) {
  return {
    path: typeof options.path === "string" ? options.path : DEFAULT_DOCS_LOCATION.path,
    routeBasePath:
      typeof options.routeBasePath === "string"
        ? options.routeBasePath
        : DEFAULT_DOCS_LOCATION.routeBasePath,
  };
}
