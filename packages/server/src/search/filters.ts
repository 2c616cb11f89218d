import type { ChunkRecord } from "../store/document-store.ts";
import { urlPath } from "../util/url-path.ts";

export interface SearchFilters {
  /** Keep chunks whose URL (or URL path) starts with this prefix, e.g. "/docs/ros2". */
  sourceUrlPrefix?: string | undefined;
  /** Keep chunks whose section heading, or any heading above it, equals this (case-insensitive). */
  section?: string | undefined;
}

/** The filters as one predicate over chunks; undefined when nothing is filtered. */
export function chunkFilter(
  filters: SearchFilters | undefined,
): ((chunk: ChunkRecord) => boolean) | undefined {
  const prefix = filters?.sourceUrlPrefix?.trim();
  const section = filters?.section?.trim().toLowerCase();
  if (!prefix && !section) return undefined;
  return (chunk) => {
    if (prefix && !chunk.url.startsWith(prefix) && !urlPath(chunk.url).startsWith(prefix))
      return false;
    if (section && !chunk.headingPath.some((heading) => heading.toLowerCase() === section))
      return false;
    return true;
  };
}
