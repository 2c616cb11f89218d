import type { ChunkRecord } from "../book/records.ts";
import { analyze, analyzeQuery } from "./analyzer.ts";
import { languageOfPath } from "./languages.ts";

/**
 * A chunk's indexed fields as the BM25 index and the sparse vectors see them: the title with the
 * tags and the author's search text, the headings below the title (and "## …" lines of sections
 * merged into the chunk), and the text, each analysed into terms.
 */

export function innerHeadings(text: string): string[] {
  // Most chunks hold no heading line, and a look for "#" costs a tenth of the multi-line pattern.
  if (!text.includes("#")) return [];
  return Array.from(text.matchAll(/^#{1,6} +(.+)$/gm), (match) => match[1] ?? "");
}

/**
 * The identifier a page title is, as the analyzer keeps it whole (stemmed): `createStore`, or a
 * title of one word (`compose`), which a question names as an identifier only when it writes it
 * as code (`compose(a, b)`); undefined for a title of several words.
 */
export function titleIdentifier(title: string): string | undefined {
  const trimmed = title.trim();
  if (/\s/.test(trimmed)) return undefined;
  const analysed = analyzeQuery(trimmed);
  return analysed.identifiers[0] ?? (analysed.terms.length === 1 ? analysed.terms[0] : undefined);
}

/** A length per indexed field. */
export interface FieldLengths {
  title: number;
  headings: number;
  text: number;
}

/**
 * A chunk's analysed fields as term lists (what the index and the sparse vectors count), in the
 * language of its page (a translated page's, by its path: search/languages.ts).
 */
export function analysedFieldsOf(
  chunk: Pick<ChunkRecord, "title" | "headingPath" | "text"> &
    Partial<Pick<ChunkRecord, "tags" | "searchText" | "filePath">>,
): { title: string[]; headings: string[]; text: string[] } {
  const language = languageOfPath(chunk.filePath);
  return {
    title: analyze(
      [chunk.title, ...(chunk.tags ?? []), chunk.searchText ?? ""].join(" "),
      language,
    ),
    headings: analyze(
      [...chunk.headingPath.slice(1), ...innerHeadings(chunk.text)].join(" "),
      language,
    ),
    text: analyze(chunk.text, language),
  };
}

/** A field's length as MiniSearch measures it for BM25: its distinct terms. */
export function fieldLengthsOf(fields: {
  title: string[];
  headings: string[];
  text: string[];
}): FieldLengths {
  return {
    title: new Set(fields.title).size,
    headings: new Set(fields.headings).size,
    text: new Set(fields.text).size,
  };
}

/** The average field lengths of these chunks (BM25's avgdl per field; 0 for no chunks). */
export function averageFieldLengthsOf(chunks: Iterable<ChunkRecord>): FieldLengths {
  const totals: FieldLengths = { title: 0, headings: 0, text: 0 };
  let count = 0;
  for (const chunk of chunks) {
    const lengths = fieldLengthsOf(analysedFieldsOf(chunk));
    totals.title += lengths.title;
    totals.headings += lengths.headings;
    totals.text += lengths.text;
    count++;
  }
  return count === 0
    ? totals
    : { title: totals.title / count, headings: totals.headings / count, text: totals.text / count };
}

/** The distinct terms of a chunk (title, tags, headings and text). */
export function termsOfChunk(
  chunk: Pick<ChunkRecord, "title" | "headingPath" | "text" | "tags" | "searchText"> &
    Partial<Pick<ChunkRecord, "filePath">>,
): Set<string> {
  const fields = analysedFieldsOf(chunk);
  return new Set([...fields.title, ...fields.headings, ...fields.text]);
}
