import { blocksOf, MIN_WORDS } from "../book/chunk-blocks.ts";
import type { ChunkRecord } from "../book/records.ts";
import type { RetrievedChunk } from "../search/types.ts";
import { readsFor } from "../util/reading-list.ts";

/**
 * A result that is only a reading list ("Further information" under a FAQ entry) stands for the
 * section it lists reading for. The titles in the list matched the question ("#756: container vs
 * component?"), while the section above it answers the question, and a reader following the
 * citation wants that answer, not the links. The result keeps its score; its chunk becomes the one
 * holding the section (the list's heading path without its last heading), the nearest before it on
 * the page. A list chunk that also holds quotable prose, or whose section is already a result, is
 * left as it is.
 */
export function withListedSections(
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
): RetrievedChunk[] {
  const shown = new Set(results.map((result) => result.chunk.id));
  return results.map((result) => {
    const section = listedSection(result.chunk, pageChunks(result.chunk.filePath));
    if (!section || shown.has(section.id)) return result;
    shown.add(section.id);
    return { ...result, chunk: section };
  });
}

function listedSection(chunk: ChunkRecord, page: ChunkRecord[]): ChunkRecord | undefined {
  const parent = chunk.headingPath.slice(0, -1);
  // Only a title above the list (the page's own reading list) names no section to stand for.
  if (parent.length < 2 || !readsFor(chunk.headingPath, parent)) return undefined;
  if (hasProse(chunk)) return undefined;
  const holds = (candidate: ChunkRecord) =>
    readsFor(chunk.headingPath, candidate.headingPath) ||
    (candidate.sectionAnchors ?? []).some((anchor) =>
      readsFor(chunk.headingPath, anchor.headingPath),
    );
  let found: ChunkRecord | undefined;
  for (const candidate of page) {
    if (candidate.chunkIndex >= chunk.chunkIndex) continue;
    if (holds(candidate) && (!found || candidate.chunkIndex > found.chunkIndex)) found = candidate;
  }
  return found;
}

/** Whether a chunk holds a paragraph of a few words or more: a reading list holds only labels. */
function hasProse(chunk: ChunkRecord): boolean {
  return blocksOf(chunk).some(
    (block) => block.kind === "paragraph" && block.text.split(/\s+/).length >= MIN_WORDS,
  );
}
