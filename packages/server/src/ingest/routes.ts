/**
 * Docusaurus 3 docs-plugin routing, recomputed outside Docusaurus so that a
 * citation can link to the page and heading a reader actually sees.
 *
 * The rules mirror @docusaurus/plugin-content-docs (doc id, slug, number
 * prefixes, category index convention) and the heading-id remark plugin of
 * @docusaurus/mdx-loader. Site-level customisation (a custom
 * numberPrefixParser, versioned docs, custom isCategoryIndex) is not modelled:
 * these functions describe the default setup of the current docs version.
 */
import { posix } from "node:path";
import GithubSlugger from "github-slugger";

export interface RouteOptions {
  /** Site origin plus Docusaurus baseUrl, e.g. "https://example.com" or "https://example.com/book/" or "" for relative URLs. */
  baseUrl: string;
  /** Docusaurus routeBasePath: "/docs" (default) or "/" / "" for docs-only mode. */
  routeBasePath: string;
  /**
   * A versioned site's versions: a page whose path starts with a version's `filePrefix` is routed
   * as that version's docs folder would be, under routeBasePath plus the version's `urlSegment`.
   */
  versions?: VersionRoute[];
  /**
   * A translated site's locales: a page whose path starts with a locale's `filePrefix` is routed
   * as the rest of its path would be, under the baseUrl plus the locale's `urlSegment` ("/fr").
   */
  locales?: LocaleRoute[];
}

/** Where one locale's pages are (a prefix of their paths) and served (a path segment). */
export interface LocaleRoute {
  filePrefix: string;
  urlSegment: string;
}

/** Where one docs version's pages are (a prefix of their paths) and served (a path segment). */
export interface VersionRoute {
  filePrefix: string;
  /** "" for the version served at routeBasePath itself (Docusaurus's last version). */
  urlSegment: string;
}

/**
 * The page's path inside its version's docs folder and the route options of that version; the
 * page and options as given for a book without versions, or a page outside every version.
 */
export function versionedRoute(
  filePath: string,
  options: RouteOptions,
): { relativePath: string; route: RouteOptions } {
  const locale = options.locales?.find(
    (candidate) => candidate.filePrefix !== "" && filePath.startsWith(candidate.filePrefix),
  );
  if (locale) {
    const { locales: _locales, ...rest } = options;
    const baseUrl = `${options.baseUrl.replace(/\/+$/, "")}/${locale.urlSegment}`;
    return versionedRoute(filePath.slice(locale.filePrefix.length), { ...rest, baseUrl });
  }
  const version = options.versions?.find((candidate) => filePath.startsWith(candidate.filePrefix));
  if (!version) return { relativePath: filePath, route: options };
  const routeBasePath = `${options.routeBasePath.replace(/\/+$/, "")}/${version.urlSegment}`;
  return {
    relativePath: filePath.slice(version.filePrefix.length),
    route: { baseUrl: options.baseUrl, routeBasePath },
  };
}

export interface DocRouteInput {
  /** POSIX path relative to the docs directory, e.g. "02-ros2/01-nodes.md" */
  relativePath: string;
  /** Parsed front matter; only the fields that move a doc's URL are read. */
  frontmatter: { id?: unknown; slug?: unknown; parse_number_prefixes?: unknown };
}

type RouteField = "id" | "slug" | "parse_number_prefixes";

/** Docusaurus refuses to build a site with these front matter values, so neither do we. */
export class RouteError extends Error {
  readonly code = "INVALID_FRONTMATTER";
  readonly field: RouteField;

  constructor(field: RouteField, message: string) {
    super(message);
    this.name = "RouteError";
    this.field = field;
  }
}

// "2021-01-31", "8.0", "14_2_16": a number, a separator and another number reads as a
// date or a version, so Docusaurus leaves the name alone rather than cutting it.
const DATE_OR_VERSION_LIKE = /^\d+[-_.]\d+/;
// Digits, then a run of "-", "_" or "." (spaces allowed around it), then a name that
// does not itself start with a separator or a space.
const NUMBER_PREFIX = /^\d+\s*[-_.]+\s*([^-_.\s].*)$/;

/** Removes an ordering prefix ("01-", "3 . ", "007___") the way Docusaurus' default parser does. */
export function stripNumberPrefix(name: string): string {
  if (DATE_OR_VERSION_LIKE.test(name)) return name;
  return NUMBER_PREFIX.exec(name)?.[1] ?? name;
}

function stripPathNumberPrefixes(dir: string): string {
  return dir.split("/").map(stripNumberPrefix).join("/");
}

/** Files and folders whose name starts with "_" are partials: Docusaurus' default `exclude` never routes them. */
export function isPartialPath(relativePath: string): boolean {
  return relativePath.split("/").some((segment) => segment.startsWith("_"));
}

/**
 * index.md, README.md (any case) or a file named like its own folder stands for the folder.
 * Names are compared as written, number prefixes included: "01-ros2/01-ros2.md" is an index,
 * "01-ros2/ros2.md" is not.
 */
export function isCategoryIndex(relativePath: string): boolean {
  const fileName = posix.parse(relativePath).name.toLowerCase();
  const parentDir = posix.basename(posix.dirname(relativePath)).toLowerCase();
  return fileName === "index" || fileName === "readme" || fileName === parentDir;
}

/** Docusaurus turns YAML numbers and dates into strings before it checks the type (so `id: 2024` is "2024"). */
function stringField(frontmatter: DocRouteInput["frontmatter"], field: "id" | "slug") {
  const value = frontmatter[field];
  if (value === undefined) return undefined;
  if (typeof value === "number" || value instanceof Date) return value.toString();
  if (typeof value !== "string" || value === "") {
    throw new RouteError(field, `Front matter "${field}" must be a non-empty string.`);
  }
  return value;
}

/** `parse_number_prefixes: false` keeps "01-" prefixes in the id and URL of that one doc. */
function parsesNumberPrefixes(frontmatter: DocRouteInput["frontmatter"]): boolean {
  const value = frontmatter.parse_number_prefixes;
  if (value === undefined) return true;
  if (typeof value === "boolean") return value;
  // The front matter schema also accepts the words true/false in any case.
  const word = typeof value === "string" ? value.toLowerCase() : "";
  if (word === "true" || word === "false") return word === "true";
  throw new RouteError(
    "parse_number_prefixes",
    'Front matter "parse_number_prefixes" must be a boolean.',
  );
}

interface DocParts {
  /** Folder of the file relative to the docs root, "." at the top level. */
  dir: string;
  /** Folder as it appears in ids and URLs (number prefixes stripped unless disabled). */
  routeDir: string;
  /** Last id segment: the `id` front matter, else the file name. */
  baseId: string;
  slug: string | undefined;
}

function docParts({ relativePath, frontmatter }: DocRouteInput): DocParts {
  const parse = parsesNumberPrefixes(frontmatter);
  const dir = posix.dirname(relativePath);
  const fileName = posix.parse(relativePath).name;
  const baseId = stringField(frontmatter, "id") ?? (parse ? stripNumberPrefix(fileName) : fileName);
  // The id becomes one path segment of the doc id, so Docusaurus rejects a slash in it.
  if (baseId.includes("/")) {
    throw new RouteError("id", `Front matter "id" must not contain "/" (got "${baseId}").`);
  }
  const routeDir = dir === "." ? "." : parse ? stripPathNumberPrefixes(dir) : dir;
  return { dir, routeDir, baseId, slug: stringField(frontmatter, "slug") };
}

/** Docusaurus' doc id: the folder path (prefixes stripped) joined with the `id` front matter or the file name. */
export function docId(input: DocRouteInput): string {
  const { routeDir, baseId } = docParts(input);
  return routeDir === "." ? baseId : `${routeDir}/${baseId}`;
}

/**
 * Resolves a relative slug against a folder the way browsers resolve relative links
 * (the same library React Router uses): "." and ".." are applied, and ".." never climbs
 * above the root.
 */
function resolveRelative(relative: string, folder: string): string {
  const segments = folder.split("/").slice(0, -1); // folder ends with "/"; [""] is the root
  const parts = relative.split("/");
  for (const part of parts) {
    if (part === ".") continue;
    if (part === "..") {
      if (segments.length > 1) segments.pop();
      continue;
    }
    segments.push(part);
  }
  const last = parts[parts.length - 1];
  const endsAtFolder = last === "" || last === "." || last === "..";
  const resolved = segments.join("/") || "/";
  return endsAtFolder && !resolved.endsWith("/") ? `${resolved}/` : resolved;
}

/** A route path must survive URL parsing unchanged (modulo percent-encoding), else Docusaurus fails the build. */
function isValidPathname(path: string): boolean {
  if (!path.startsWith("/")) return false;
  try {
    const { pathname } = new URL(path, "https://example.invalid");
    return pathname === path || pathname === encodeURI(path);
  } catch {
    return false;
  }
}

/**
 * The doc's route below routeBasePath, always starting with "/".
 * A folder index keeps the trailing slash Docusaurus gives it ("/ros2/"); the docs root index is "/".
 */
export function docSlug(input: DocRouteInput): string {
  const { dir, routeDir, baseId, slug } = docParts(input);
  let result: string;
  if (slug?.startsWith("/")) {
    result = slug;
  } else {
    const folder = routeDir === "." ? "/" : `/${routeDir}/`;
    // An explicit slug beats the folder-index convention; an `id` does not.
    if (slug === undefined && isCategoryIndex(input.relativePath)) result = folder;
    else result = resolveRelative(slug ?? baseId, folder);
  }
  if (!isValidPathname(result)) {
    throw new RouteError(
      "slug",
      `No valid URL path for "${input.relativePath}" in "${dir}" (computed "${result}"); set a "slug" in its front matter.`,
    );
  }
  return result;
}

/** Path of the doc page under the site baseUrl, e.g. "/docs/ros2/nodes" (trailing slash kept for folder indexes, as in Docusaurus). */
export function docPermalink(input: DocRouteInput, options: RouteOptions): string {
  return `/${options.routeBasePath}/${docSlug(input)}`.replace(/\/{2,}/g, "/");
}

/** Absolute (or baseUrl-relative) link to the doc page, without a trailing slash unless it is the site root. */
export function docUrl(input: DocRouteInput, options: RouteOptions): string {
  const base = options.baseUrl.replace(/\/+$/, "");
  const path = docPermalink(input, options).replace(/\/+$/, "");
  return path === "" ? `${base}/` : `${base}${path}`;
}

// "{#id}" must close the heading. Inside the id, no character after the first may be "}"
// or start another "{#", so "A {#x} {#y}" takes "y" and "A {#x}}" has no id at all.
const EXPLICIT_HEADING_ID = /\s*\{#(.(?:(?!\{#|\}).)*)\}$/;

/** Splits "Topic {#custom-id}" into its visible text and the explicit anchor id. */
export function parseHeadingId(text: string): { text: string; id?: string } {
  // The Markdown parser strips spaces and tabs around heading content before Docusaurus sees it.
  const heading = text.replace(/^[ \t]+|[ \t]+$/g, "");
  const match = EXPLICIT_HEADING_ID.exec(heading);
  const id = match?.[1]?.trim();
  // A blank id ("{# }") is not an id: the heading keeps its text and gets a generated anchor.
  if (!match || !id) return { text: heading };
  return { text: heading.slice(0, match.index), id };
}

export interface HeadingSlugger {
  slug(text: string): string;
}

/**
 * One per document. Anchors follow github-slugger, as in Docusaurus: lower-cased (unless the site
 * sets markdown.anchors.maintainCase), punctuation removed, spaces to "-", and a repeated anchor
 * gets "-1", "-2"…
 */
export function createHeadingSlugger(options: { maintainCase?: boolean } = {}): HeadingSlugger {
  const slugger = new GithubSlugger();
  const maintainCase = options.maintainCase === true;
  return { slug: (text) => slugger.slug(text, maintainCase) };
}

/**
 * Anchor of one heading, in document order. An explicit {#id} is used verbatim and, as in
 * Docusaurus, is not recorded by the slugger: a later generated anchor can equal it
 * (Docusaurus documents this as the author's responsibility), so we reproduce the same ids.
 */
export function headingAnchor(
  slugger: HeadingSlugger,
  rawHeadingText: string,
): { text: string; anchor: string } {
  const { text, id } = parseHeadingId(rawHeadingText);
  return { text, anchor: id ?? slugger.slug(text) };
}
