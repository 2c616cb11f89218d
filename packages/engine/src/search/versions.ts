import type { BookLocale, BookVersion } from "../book/records.ts";
import { createError } from "../errors.ts";
import { urlPath } from "../util/url-path.ts";
import type { SearchFilters } from "./filters.ts";

/**
 * The slice of a versioned book a question is answered from. Every version's pages share one
 * index; a version is the pages whose file path starts with its prefix. A book without versions
 * has no slices: nothing here changes its searches.
 */

/** Where the version a reader reads comes from: named in the request, or the page's URL. */
export interface VersionRequest {
  /** As the client names it: the version's name ("29.7", "current"), label ("Next"), its URL segment ("next") or "latest". */
  version?: string | undefined;
  /** The page the reader is on; its path after routeBasePath tells the version. */
  sourceUrl?: string | null | undefined;
  routeBasePath: string;
  /** Where the request names the version, for the error (default "filters.version"). */
  field?: string;
}

/**
 * The version asked for, else the one of the reader's page, else the latest; undefined for a
 * book without versions. An unknown name is refused (INVALID_FILTER), listing the versions.
 */
export function resolveVersion(
  versions: readonly BookVersion[],
  request: VersionRequest,
): BookVersion | undefined {
  if (versions.length === 0) return undefined;
  const asked = request.version?.trim();
  if (asked) {
    const found = versionNamed(versions, asked);
    if (found) return found;
    throw createError(
      "INVALID_FILTER",
      `Unknown docs version "${asked}"; this book has ${versions.map((version) => version.name).join(", ")} (or "latest").`,
      {
        details: {
          field: request.field ?? "filters.version",
          versions: versions.map((version) => version.name),
        },
      },
    );
  }
  return (
    (request.sourceUrl
      ? versionOfUrl(versions, request.sourceUrl, request.routeBasePath)
      : undefined) ?? latestVersion(versions)
  );
}

export function latestVersion(versions: readonly BookVersion[]): BookVersion | undefined {
  return versions.find((version) => version.latest) ?? versions[0];
}

function versionNamed(versions: readonly BookVersion[], asked: string): BookVersion | undefined {
  const wanted = asked.toLowerCase();
  if (wanted === "latest") return latestVersion(versions);
  return (
    versions.find((version) => version.name.toLowerCase() === wanted) ??
    versions.find((version) => version.label.toLowerCase() === wanted) ??
    versions.find(
      (version) => version.urlSegment !== "" && version.urlSegment.toLowerCase() === wanted,
    )
  );
}

/** The version whose URLs the page's path is under; undefined when the path is not a docs page. */
export function versionOfUrl(
  versions: readonly BookVersion[],
  url: string,
  routeBasePath: string,
): BookVersion | undefined {
  const base = routeBasePath.replace(/^\/+|\/+$/g, "");
  const segments = urlPath(url).split("/").filter(Boolean);
  // The base may sit after the site's baseUrl ("/book/docs/…"): its first occurrence counts.
  const at = base === "" ? -1 : segments.indexOf(base.split("/").at(-1) ?? base);
  if (base !== "" && at < 0) return undefined;
  const segment = segments[at + 1];
  const named = versions.find(
    (version) => version.urlSegment !== "" && version.urlSegment === segment,
  );
  return named ?? versions.find((version) => version.urlSegment === "");
}

/**
 * The filters narrowed to one version's pages, in one locale of a translated book (unchanged
 * without a version or a translated locale).
 */
export function inVersion(
  filters: SearchFilters | undefined,
  version: BookVersion | undefined,
  locale?: BookLocale | undefined,
): SearchFilters | undefined {
  const localePrefix = locale?.filePrefix ?? "";
  if (!version && localePrefix === "") return filters;
  return {
    ...filters,
    ...(version ? { version: version.name } : {}),
    ...(locale ? { locale: locale.name } : {}),
    filePrefix: `${localePrefix}${version?.filePrefix ?? ""}`,
  };
}

/** The version a page belongs to, by its file path (after its locale's prefix, if any). */
export function versionOfFile(
  versions: readonly BookVersion[],
  filePath: string,
  locale?: BookLocale | undefined,
): BookVersion | undefined {
  const prefix = locale?.filePrefix ?? "";
  const inLocale = filePath.startsWith(prefix) ? filePath.slice(prefix.length) : filePath;
  return versions.find((version) => inLocale.startsWith(version.filePrefix));
}
