import type { IndexCore } from "../search/lexical-index.ts";

/**
 * The index's core as a static book's core file holds it (sharded-book.ts): chunks named by their
 * place in the core's chunks, not by id, and MiniSearch's per-document tables and the document
 * frequencies in denser forms than their own JSON (a table keyed 0, 1, 2… as a list; the
 * document ids, when each chunk's short id is its place, as their count; the terms as one text).
 * What `readCoreIndex` gives back is the index's core as `writeCoreIndex` was given it.
 */
export type CoreIndex = Omit<IndexCore, "openings" | "documentFrequency"> & {
  /** The terms, one a line, and each one's document frequency; or [term, frequency] pairs. */
  documentFrequency: { terms: string; counts: number[] } | [string, number][];
  /** [file path, [heading key, chunks' places in page order][]][] */
  openings: [string, [string, number[]][]][];
};

/** The tables of MiniSearch's JSON keyed by short id, written as lists when they are dense. */
const BY_SHORT_ID = ["documentIds", "fieldLength", "storedFields"];

export function writeCoreIndex(core: IndexCore, placeOf: (id: string) => number): CoreIndex {
  const miniSearch: Record<string, unknown> = { ...core.miniSearch };
  const ids = (core.miniSearch.documentIds ?? {}) as Record<string, string>;
  const places: Record<string, number> = {};
  for (const [shortId, id] of Object.entries(ids)) places[shortId] = placeOf(id);
  miniSearch.documentIds = places;
  for (const table of BY_SHORT_ID) miniSearch[table] = listed(miniSearch[table]);
  const list = miniSearch.documentIds;
  if (Array.isArray(list) && list.every((place, at) => place === at))
    miniSearch.documentIds = list.length;
  const { documentFrequency } = core;
  return {
    ...core,
    miniSearch,
    documentFrequency: documentFrequency.some(([term]) => term.includes("\n"))
      ? documentFrequency
      : {
          terms: documentFrequency.map(([term]) => term).join("\n"),
          counts: documentFrequency.map(([, count]) => count),
        },
    openings: core.openings.map(([filePath, keys]) => [
      filePath,
      keys.map(([key, listedIds]) => [key, listedIds.map(placeOf)]),
    ]),
  };
}

export function readCoreIndex(core: CoreIndex, idAt: (place: number) => string): IndexCore {
  const miniSearch: Record<string, unknown> = { ...core.miniSearch };
  const stored = miniSearch.documentIds;
  const places =
    typeof stored === "number" ? Array.from({ length: stored }, (_, at) => at) : stored;
  miniSearch.documentIds = places;
  for (const table of BY_SHORT_ID) miniSearch[table] = keyed(miniSearch[table]);
  const documentIds: Record<string, string> = {};
  for (const [shortId, place] of Object.entries((miniSearch.documentIds ?? {}) as object))
    documentIds[shortId] = idAt(place as number);
  miniSearch.documentIds = documentIds;
  return {
    ...core,
    miniSearch,
    documentFrequency: frequencies(core.documentFrequency),
    openings: core.openings.map(([filePath, keys]) => [
      filePath,
      keys.map(([key, placed]) => [key, placed.map(idAt)]),
    ]),
  };
}

function frequencies(stored: CoreIndex["documentFrequency"]): [string, number][] {
  if (Array.isArray(stored)) return stored;
  if (stored.counts.length === 0) return [];
  const terms = stored.terms.split("\n");
  return terms.map((term, at) => [term, stored.counts[at] as number]);
}

/** A record keyed "0", "1", "2"… in that order, as the list of its values; else as it is. */
function listed(table: unknown): unknown {
  if (!table || typeof table !== "object" || Array.isArray(table)) return table;
  const entries = Object.entries(table);
  return entries.every(([key], at) => key === String(at))
    ? entries.map(([, value]) => value)
    : table;
}

function keyed(table: unknown): unknown {
  if (!Array.isArray(table)) return table;
  const record: Record<string, unknown> = {};
  table.forEach((value, at) => {
    record[at] = value;
  });
  return record;
}
