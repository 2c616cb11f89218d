import { GLOSSARY_TITLE } from "../answer/lead.ts";
import type { Synopsis } from "../answer/synopsis.ts";
import type { BookLocale, BookVersion, ChunkRecord } from "../book/records.ts";
import type { LexicalIndex } from "../search/lexical-index.ts";
import type { Retriever } from "../search/retriever.ts";

/**
 * What a question reads of the book, at one index version. A new ingest or a refresh makes a new
 * view and replaces the old one as a whole; a question takes the view once, when it starts, and
 * reads nothing else, so a swap while it runs never mixes two versions of the book in one answer.
 */
export interface BookView {
  readonly retriever: Retriever;
  /** What the book is about, for overview questions ("what is this book about?"). */
  readonly synopsis?: Synopsis | undefined;
  /** The chunks of a page in page order; the synthesizer may quote them beyond the results. */
  readonly pageChunks?: (filePath: string) => ChunkRecord[];
  /**
   * Reads the chunks of these pages, when they are not held in memory (`pageChunks` absent:
   * LEXICAL_BACKEND=qdrant keeps no chunks); each answer reads its results' and the glossary's.
   */
  readonly loadPages?: (filePaths: string[]) => Promise<Map<string, ChunkRecord[]>>;
  /** The book's glossary pages (file paths), where definition questions also look. */
  readonly glossaryPages?: () => string[];
  /**
   * The chunks opening a page or section titled exactly `heading`, book-wide, where definition
   * questions also look; absent when no chunks are held in memory (LEXICAL_BACKEND=qdrant).
   */
  readonly sectionsHeaded?: (heading: string) => ChunkRecord[];
  /** The book's inverse document frequency of an analysed term. */
  readonly idf?: (term: string) => number;
  /** The book's docs versions (none for a book without versions). */
  readonly versions?: readonly BookVersion[];
  /** The book's locales (none for an untranslated book). */
  readonly locales?: readonly BookLocale[];
}

/** The view of a book held in memory: its pages, sections and statistics read from its index. */
export function viewOfIndex(
  index: LexicalIndex,
  parts: Pick<BookView, "retriever" | "synopsis" | "versions" | "locales">,
): BookView {
  return {
    ...parts,
    pageChunks: (filePath) => index.chunksOfPage(filePath),
    sectionsHeaded: (heading) => index.sectionsHeaded(heading),
    glossaryPages: () => index.pagesTitledLike(GLOSSARY_TITLE),
    idf: (term) => index.idf(term),
  };
}
