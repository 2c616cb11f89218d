import { buildSynopsis, type Synopsis } from "../answer/synopsis.ts";
import type { BookVersion, ChunkRecord, PageSummary } from "../book/records.ts";
import { latestVersion } from "../search/versions.ts";

/** The synopsis of the book's latest version (of the whole book when it has no versions). */
export function bookSynopsis(
  pages: PageSummary[],
  chunks: Iterable<ChunkRecord>,
  versions: BookVersion[],
): Synopsis | undefined {
  const prefix = latestVersion(versions)?.filePrefix;
  if (prefix === undefined) return buildSynopsis(pages, chunks);
  const inLatest = (item: { filePath: string }) => item.filePath.startsWith(prefix);
  return buildSynopsis(pages.filter(inLatest), [...chunks].filter(inLatest));
}
