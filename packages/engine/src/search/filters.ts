import type { ChunkRecord } from "../book/records.ts";
import { urlPath } from "../util/url-path.ts";

export interface SearchFilters {
  /** Keep chunks whose URL (or URL path) starts with this prefix, e.g. "/docs/ros2". */
  sourceUrlPrefix?: string | undefined;
  /** Keep chunks whose section heading, or any heading above it, equals this (case-insensitive). */
  section?: string | undefined;
  /** The docs version asked for, by name (search/versions.ts resolves it to `filePrefix`). */
  version?: string | undefined;
  /** The locale asked for, by name (search/locales.ts resolves it, with the version, to `filePrefix`). */
  locale?: string | undefined;
  /**
   * Keep chunks whose file path starts with this: one version's pages of a versioned book, in one
   * locale of a translated book.
   */
  filePrefix?: string | undefined;
}

/**
 * Whether the filters narrow the book's content rather than only choose its version: any filters
 * given without a version count (as they always did); with a version, a URL prefix or a section.
 */
export function narrowsContent(filters: SearchFilters | undefined): boolean {
  if (!filters) return false;
  if (filters.version === undefined && filters.filePrefix === undefined) return true;
  return Boolean(filters.sourceUrlPrefix?.trim() || filters.section?.trim());
}

/** The filters as one predicate over chunks; undefined when nothing is filtered. */
export function chunkFilter(
  filters: SearchFilters | undefined,
): ((chunk: ChunkRecord) => boolean) | undefined {
  const prefix = filters?.sourceUrlPrefix?.trim();
  const section = filters?.section?.trim().toLowerCase();
  const filePrefix = filters?.filePrefix;
  if (!prefix && !section && !filePrefix) return undefined;
  return (chunk) => {
    if (filePrefix && !chunk.filePath.startsWith(filePrefix)) return false;
    if (prefix && !chunk.url.startsWith(prefix) && !urlPath(chunk.url).startsWith(prefix))
      return false;
    if (section && !chunk.headingPath.some((heading) => heading.toLowerCase() === section))
      return false;
    return true;
  };
}
