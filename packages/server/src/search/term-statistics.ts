import { readFile, rename, writeFile } from "node:fs/promises";
import { ANALYZER_VERSION } from "@lectern/engine/search/analyzer";
import {
  analysedFieldsOf,
  type FieldLengths,
  fieldLengthsOf,
  titleIdentifier,
} from "@lectern/engine/search/chunk-fields";
import type { TermSource } from "@lectern/engine/search/term-source";
import { Vocabulary } from "@lectern/engine/search/vocabulary";
import type { ChunkRecord } from "../store/document-store.ts";

export type { TermSource };

const FORMAT = 1;

interface SavedStatistics {
  format: number;
  analyzerVersion: number;
  indexVersion: number;
  documentCount: number;
  averageFieldLengths: FieldLengths;
  /** [file path, title] of every page. */
  pages: [string, string][];
  documentFrequency: [string, number][];
}

export class TermStatistics implements TermSource {
  private readonly vocabulary: Vocabulary;
  /** Identifier titles → pages, built on first use. */
  private titles: Map<string, string[]> | undefined;
  private readonly titledLike = new Map<string, string[]>();

  private constructor(
    private readonly documentFrequency: Map<string, number>,
    readonly size: number,
    readonly averageFieldLengths: FieldLengths,
    /** File path → page title. */
    private readonly pages: Map<string, string>,
  ) {
    this.vocabulary = new Vocabulary(documentFrequency, () => this.size);
  }

  /** Counts the chunks' terms once; the chunks are not kept. */
  static fromChunks(chunks: Iterable<ChunkRecord>): TermStatistics {
    const documentFrequency = new Map<string, number>();
    const pages = new Map<string, string>();
    const totals: FieldLengths = { title: 0, headings: 0, text: 0 };
    let count = 0;
    for (const chunk of chunks) {
      count++;
      const fields = analysedFieldsOf(chunk);
      const lengths = fieldLengthsOf(fields);
      totals.title += lengths.title;
      totals.headings += lengths.headings;
      totals.text += lengths.text;
      for (const term of new Set([...fields.title, ...fields.headings, ...fields.text])) {
        documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      }
      if (!pages.has(chunk.filePath)) pages.set(chunk.filePath, chunk.title);
    }
    const averages =
      count === 0
        ? totals
        : {
            title: totals.title / count,
            headings: totals.headings / count,
            text: totals.text / count,
          };
    return new TermStatistics(documentFrequency, count, averages, pages);
  }

  /**
   * Loads a table written by `save`; undefined (so the caller counts again) when the file is
   * missing, unreadable, from another analyzer or of another index version.
   */
  static async load(file: string, indexVersion: number): Promise<TermStatistics | undefined> {
    let saved: SavedStatistics;
    try {
      saved = JSON.parse(await readFile(file, "utf8")) as SavedStatistics;
    } catch {
      return undefined;
    }
    if (
      saved.format !== FORMAT ||
      saved.analyzerVersion !== ANALYZER_VERSION ||
      saved.indexVersion !== indexVersion
    )
      return undefined;
    return new TermStatistics(
      new Map(saved.documentFrequency),
      saved.documentCount,
      saved.averageFieldLengths,
      new Map(saved.pages),
    );
  }

  /** Writes the table atomically (temp file + rename). */
  async save(file: string, indexVersion: number): Promise<void> {
    const saved: SavedStatistics = {
      format: FORMAT,
      analyzerVersion: ANALYZER_VERSION,
      indexVersion,
      documentCount: this.size,
      averageFieldLengths: this.averageFieldLengths,
      pages: [...this.pages],
      documentFrequency: [...this.documentFrequency],
    };
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(saved));
    await rename(temporary, file);
  }

  /** How many distinct terms the book has. */
  get termCount(): number {
    return this.documentFrequency.size;
  }

  documentFrequencyOf(term: string): number {
    return this.vocabulary.documentFrequencyOf(term);
  }

  idf(term: string): number {
    return this.vocabulary.idf(term);
  }

  closestTerm(term: string): string | undefined {
    return this.vocabulary.closestTerm(term);
  }

  termsStartingWith(prefix: string, max: number): string[] {
    return this.vocabulary.termsStartingWith(prefix, max);
  }

  pagesTitled(identifier: string): string[] {
    if (!this.titles) {
      this.titles = new Map();
      for (const [filePath, title] of this.pages) {
        const titled = titleIdentifier(title);
        if (!titled) continue;
        const pages = this.titles.get(titled) ?? [];
        pages.push(filePath);
        this.titles.set(titled, pages);
      }
    }
    return [...(this.titles.get(identifier) ?? [])];
  }

  pagesTitledLike(pattern: RegExp): string[] {
    const cached = this.titledLike.get(pattern.source);
    if (cached) return cached;
    const found = [...this.pages]
      .filter(([, title]) => pattern.test(title))
      .map(([filePath]) => filePath)
      .sort();
    this.titledLike.set(pattern.source, found);
    return found;
  }
}
