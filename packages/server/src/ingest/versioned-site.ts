import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createError } from "@lectern/engine/errors";
import type { BookLocale, BookVersion } from "../store/document-store.ts";
import type { DocListing, DocSource } from "./doc-source.ts";
import { FallbackDocSource } from "./fallback-doc-source.ts";
import { FileSystemDocSource, type FileSystemSourceOptions } from "./files.ts";
import type { LocaleRoute, VersionRoute } from "./routes.ts";

/**
 * A versioned Docusaurus site read as one book: the current docs folder and every
 * `versioned_docs/version-X/` folder named in `versions.json`, each mounted under a prefix of the
 * file paths (`docs/`, `versioned_docs/version-29.7/`) so that one index holds them all, and each
 * routed where Docusaurus serves it: the current docs under `next/`, the last released version
 * (the first entry of versions.json) at routeBasePath itself, the others under their name.
 */

export interface SiteOptions {
  /** The current docs folder, relative to the site (Docusaurus's `path`; default "docs"). */
  docsPath?: string;
  /** How files are read (symlinks out of a folder). */
  files?: FileSystemSourceOptions;
  /** The translations to read (default: every `i18n/<locale>/` folder holding docs). */
  locales?: string[] | undefined;
  /** The locale of the docs folders themselves (Docusaurus's defaultLocale; default "en"). */
  defaultLocale?: string | undefined;
}

/** Versions as declared by a config or the Docusaurus plugin rather than read from a site. */
export interface DeclaredVersion {
  name: string;
  /** The version's docs folder. */
  path: string;
  /** Its URL path segment after routeBasePath ("" for the version served there). */
  url: string;
  label?: string | undefined;
  latest?: boolean | undefined;
}

export interface VersionedDocs {
  source: DocSource;
  versions: BookVersion[];
  /** The site's locales, the default one first; none for an untranslated site. */
  locales?: BookLocale[];
  /** The folder the book is recorded as ingested from (the site). */
  root: string;
}

/** The site's versions and a source over all of their folders. */
export async function readVersionedSite(
  siteDir: string,
  options: SiteOptions = {},
): Promise<VersionedDocs> {
  const root = path.resolve(siteDir);
  const names = await versionNames(root);
  const docsPath = options.docsPath ?? (await configuredDocsPath(root)) ?? "docs";
  const declared: DeclaredVersion[] = [
    ...(names.length > 0
      ? [{ name: "current", label: "Next", path: path.resolve(root, docsPath), url: "next" }]
      : [{ name: "current", path: path.resolve(root, docsPath), url: "", latest: true }]),
    ...names.map((name, index) => ({
      name,
      path: path.join(root, "versioned_docs", `version-${name}`),
      url: index === 0 ? "" : name,
      latest: index === 0,
    })),
  ];
  const docs = declaredVersions(root, declared, options.files);
  const translated = await localeNames(root, options);
  return translated.length === 0 ? docs : await withLocales(docs, translated, options);
}

/** Where a site keeps the docs plugin's translations of one locale. */
function translationsFolder(root: string, locale: string): string {
  return path.join(root, "i18n", locale, "docusaurus-plugin-content-docs");
}

/**
 * The locales whose translations to read: those named (`--locales`), else every folder under
 * `i18n/` with translated docs. The default locale is never one of them.
 */
async function localeNames(root: string, options: SiteOptions): Promise<string[]> {
  const fallback = options.defaultLocale ?? "en";
  if (options.locales) return options.locales.filter((locale) => locale !== fallback);
  const entries = await readdir(path.join(root, "i18n"), { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === fallback) continue;
    if (await isFolder(translationsFolder(root, entry.name))) found.push(entry.name);
  }
  return found.sort();
}

/**
 * Every version again in each translated locale, under `i18n/<locale>/` and the version's own
 * prefix: the translated page where there is one, else the default locale's (as Docusaurus builds
 * a locale, so every page has a URL in every locale).
 */
async function withLocales(
  docs: VersionedDocs,
  names: string[],
  options: SiteOptions,
): Promise<VersionedDocs> {
  const root = docs.root;
  const locales: BookLocale[] = [
    { name: options.defaultLocale ?? "en", urlSegment: "", filePrefix: "", default: true },
    ...names.map((name) => ({
      name,
      urlSegment: name,
      filePrefix: `i18n/${name}/`,
      default: false,
    })),
  ];
  const mounts = [{ prefix: "", source: docs.source }];
  for (const locale of locales.slice(1)) {
    for (const version of docs.versions) {
      const name = version.name === "current" ? "current" : `version-${version.name}`;
      const folder = path.join(translationsFolder(root, locale.name), name);
      const translated = (await isFolder(folder))
        ? new FileSystemDocSource(folder, options.files)
        : undefined;
      mounts.push({
        prefix: `${locale.filePrefix}${version.filePrefix}`,
        source: new FallbackDocSource(translated, docs.source, version.filePrefix),
      });
    }
  }
  // The longest prefix first: a translated page is read from its locale's mount.
  mounts.sort((left, right) => right.prefix.length - left.prefix.length);
  return { ...docs, source: new MountedDocSource(root, mounts), locales };
}

/** What page routes need of the locales: the translated ones. */
export function localeRoutes(locales: BookLocale[] | undefined): LocaleRoute[] {
  return (locales ?? [])
    .filter((locale) => !locale.default)
    .map(({ filePrefix, urlSegment }) => ({ filePrefix, urlSegment }));
}

async function isFolder(folder: string): Promise<boolean> {
  return stat(folder).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

/** A source over the folders of declared versions, each under a prefix of its own. */
export function declaredVersions(
  root: string,
  declared: DeclaredVersion[],
  files: FileSystemSourceOptions = {},
): VersionedDocs {
  const used = new Set<string>();
  // The one marked latest, else the last declared.
  const marked = declared.some((version) => version.latest);
  const versions = declared.map((version, index): BookVersion => {
    let filePrefix = folderPrefix(root, version.path);
    if (used.has(filePrefix)) filePrefix = `version-${index}-${filePrefix}`;
    used.add(filePrefix);
    return {
      name: version.name,
      label: version.label ?? version.name,
      urlSegment: version.url.replace(/^\/+|\/+$/g, ""),
      filePrefix,
      latest: marked ? version.latest === true : index === declared.length - 1,
    };
  });
  const mounts = declared.map((version, index) => ({
    prefix: versions[index]?.filePrefix ?? "",
    source: new FileSystemDocSource(version.path, files),
  }));
  return { source: new MountedDocSource(root, mounts), versions, root };
}

/** What page routes need of the versions. */
export function versionRoutes(versions: BookVersion[]): VersionRoute[] {
  return versions.map(({ filePrefix, urlSegment }) => ({ filePrefix, urlSegment }));
}

const CONFIG_FILES = ["js", "mjs", "cjs", "ts", "mts"].map((ext) => `docusaurus.config.${ext}`);

/** The docs plugin's `path` in the site's docusaurus.config, read as text (the config is not run). */
async function configuredDocsPath(root: string): Promise<string | undefined> {
  for (const name of CONFIG_FILES) {
    const text = await readFile(path.join(root, name), "utf8").catch(() => undefined);
    if (text !== undefined) return docsPathIn(text);
  }
  return undefined;
}

/**
 * The string a config gives the `path` of its `docs: {…}` options, at that object's own level
 * (`path: '../docs'`); undefined when it is not written as a string there.
 */
export function docsPathIn(config: string): string | undefined {
  const start = /\bdocs\s*:\s*\{/.exec(config);
  if (!start) return undefined;
  const entry = /(?<![\w.$])path\s*:\s*(['"])([^'"\n]+)\1/y;
  let depth = 0;
  for (let at = start.index + start[0].length - 1; at < config.length; at++) {
    const char = config[at];
    if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return undefined;
    else if (depth === 1 && char === "p") {
      entry.lastIndex = at;
      const found = entry.exec(config);
      if (found) return found[2];
    }
  }
  return undefined;
}

/** The names in the site's versions.json, newest first; none when the site has no such file. */
async function versionNames(root: string): Promise<string[]> {
  const file = path.join(root, "versions.json");
  const exists = await stat(file).then(
    (found) => found.isFile(),
    () => false,
  );
  if (!exists) return [];
  let names: unknown;
  try {
    names = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw createError("CONFIG_INVALID", `${file}: ${(error as Error).message.split("\n")[0]}`);
  }
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && name.trim())) {
    throw createError("CONFIG_INVALID", `${file} must be a list of version names.`);
  }
  return names as string[];
}

/** The folder's path inside the site, `/`-terminated; its name alone when it lies outside. */
function folderPrefix(root: string, folder: string): string {
  const relative = path.relative(root, folder).split(path.sep).join("/");
  const inside = relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
  return `${inside ? relative : path.basename(folder)}/`;
}

/** Several sources as one, each under a path prefix of its own. */
export class MountedDocSource implements DocSource {
  constructor(
    readonly location: string,
    private readonly mounts: { prefix: string; source: DocSource }[],
  ) {}

  async list(): Promise<DocListing> {
    const listing: DocListing = { markdownFiles: [], categoryLabels: new Map(), problems: [] };
    for (const { prefix, source } of this.mounts) {
      const part = await source.list();
      for (const file of part.markdownFiles) listing.markdownFiles.push(`${prefix}${file}`);
      for (const [folder, label] of part.categoryLabels) {
        // A label on a version's own folder is no category of its pages, as on a docs folder.
        if (folder !== "")
          listing.categoryLabels.set(`${prefix}${folder}`.replace(/\/$/, ""), label);
      }
      for (const problem of part.problems) {
        listing.problems.push({ ...problem, filePath: `${prefix}${problem.filePath}` });
      }
    }
    listing.markdownFiles.sort();
    return listing;
  }

  read(filePath: string): Promise<Uint8Array> {
    const mount = this.mounts.find(({ prefix }) => filePath.startsWith(prefix));
    if (!mount) {
      const error = Object.assign(new Error(`ENOENT: no such file: ${filePath}`), {
        code: "ENOENT",
      });
      return Promise.reject(error);
    }
    return mount.source.read(filePath.slice(mount.prefix.length));
  }
}
