import type { ChunkRecord } from "../book/records.ts";
import { keptWith } from "../util/bounded-cache.ts";
import type { RetrievedChunk } from "./types.ts";

/**
 * Takes results in rank order with at most `perPage` chunks of one page, so several chunks of one
 * page do not crowd out other relevant pages; if there are too few other pages, the rest fills up
 * top-k, never with a second chunk of a section already chosen.
 */
export function diversify(
  ranked: RetrievedChunk[],
  topK: number,
  perPage: number,
): RetrievedChunk[] {
  const chosen: RetrievedChunk[] = [];
  const skipped: RetrievedChunk[] = [];
  const perFile = new Map<string, number>();
  const sections = new Set<string>();
  for (const result of ranked) {
    if (chosen.length >= topK) break;
    const count = perFile.get(result.chunk.filePath) ?? 0;
    if (count >= perPage || sections.has(sectionOf(result))) {
      skipped.push(result);
      continue;
    }
    perFile.set(result.chunk.filePath, count + 1);
    sections.add(sectionOf(result));
    chosen.push(result);
  }
  for (const result of skipped) {
    if (chosen.length >= topK) break;
    if (sections.has(sectionOf(result))) continue;
    sections.add(sectionOf(result));
    chosen.push(result);
  }
  return chosen.sort((left, right) => right.score - left.score);
}

/** The page and section a result's chunk is in, as one key, made once a chunk. */
function sectionOf(result: RetrievedChunk): string {
  return keptWith(
    sectionKeys,
    result.chunk,
    (chunk) => `${chunk.filePath}#${chunk.url.split("#")[1] ?? chunk.section}`,
  );
}

const sectionKeys = new WeakMap<ChunkRecord, string>();
