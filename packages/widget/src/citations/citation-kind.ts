import type { Citation, SourceCitation } from "@lectern/protocol";

/** A passage of the book (as opposed to the reader's own selection). */
export function isBookCitation(citation: Citation): citation is SourceCitation {
  return citation.source_type !== "selected_text";
}

/** "Title › Section", or just the title when the section is the page itself. */
export function citationLabel(citation: SourceCitation): string {
  return citation.section && citation.section !== citation.title
    ? `${citation.title} › ${citation.section}`
    : citation.title;
}

/** The source a `[n]` marker refers to: by its citation number, else the n-th source. */
export function findCitation(sources: Citation[], number: number): Citation | undefined {
  return sources.find((source) => source.citation_number === number) ?? sources[number - 1];
}
