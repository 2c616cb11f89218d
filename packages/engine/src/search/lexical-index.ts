// Over 300 lines on purpose: the BM25 index, its snapshot, the document frequencies and the typo lookup share one private state.
import MiniSearch, { type Options } from "minisearch";
import type { ChunkRecord } from "../book/records.ts";
import { ANALYZER_VERSION, headingKey } from "./analyzer.ts";
import { Bm25Scorer } from "./bm25-scorer.ts";
import {
  analysedFieldsOf,
  averageFieldLengthsOf,
  type FieldLengths,
  innerHeadings,
  titleIdentifier,
} from "./chunk-fields.ts";
import { editDistance } from "./edit-distance.ts";
import { Vocabulary } from "./vocabulary.ts";

export { editDistance };

/**
 * The BM25 index over chunks (MiniSearch), with the document frequency of every term kept beside
 * it for score calibration. Title (with tags and the page's search text) and heading path are
 * separate, boosted fields. The index is
 * saved as a snapshot tagged with the store's index version, so a restart loads it instead of
 * tokenising the book again.
 */

export interface IndexedFields {
  id: string;
  title: string;
  headings: string;
  text: string;
}

export interface LexicalHit {
  chunk: ChunkRecord;
  /** Raw BM25 score (unbounded). */
  score: number;
  /** The query terms this chunk contains. */
  matchedTerms: string[];
}

const SNAPSHOT_FORMAT = 4;
/**
 * Field boosts: a word in a heading says more about a passage than the same word in its body.
 * Listed in the order of MiniSearch's fields, the order the scorer adds their scores in.
 */
export const FIELD_BOOSTS = { title: 1.5, headings: 2, text: 1 } as const;
/** BM25 parameters (the usual k1 1.2, b 0.75; `d` is BM25+'s lower bound per matched term). */
export const BM25_PARAMS = { k: 1.2, b: 0.75, d: 0.5 } as const;

/** MiniSearch's options for the index (exported for the scorer's tests, which compare with it). */
export function miniSearchOptions(): Options<IndexedFields> {
  return {
    fields: ["title", "headings", "text"],
    idField: "id",
    // Fields arrive already analysed (see `fieldsOf`), so each chunk is analysed once.
    tokenize: (text) => (text ? text.split(" ") : []),
    processTerm: (term) => term,
    searchOptions: {
      // Queries arrive already analysed (see `search`): split them, never analyse twice.
      tokenize: (query) => query.split(" "),
      processTerm: (term) => term,
      boost: { ...FIELD_BOOSTS },
      bm25: { ...BM25_PARAMS },
      combineWith: "OR",
      prefix: false,
      fuzzy: false,
    },
    autoVacuum: false,
  };
}

/** The chunk's fields as space-separated analysed terms. */
function fieldsOf(chunk: ChunkRecord): IndexedFields {
  // Sections merged into one chunk keep their headings as "## …" lines: they count as headings.
  const fields = analysedFieldsOf(chunk);
  return {
    id: chunk.id,
    title: fields.title.join(" "),
    headings: fields.headings.join(" "),
    text: fields.text.join(" "),
  };
}

function termsOfFields(fields: IndexedFields): Set<string> {
  return new Set(`${fields.title} ${fields.headings} ${fields.text}`.split(" ").filter(Boolean));
}

function termsOf(chunk: ChunkRecord): Set<string> {
  return termsOfFields(fieldsOf(chunk));
}

interface Snapshot {
  format: number;
  analyzerVersion: number;
  indexVersion: number;
  chunkIds: string[];
  documentFrequency: [string, number][];
  miniSearch: unknown;
}

/**
 * Told what the index is asked for, before it answers: the terms of a search, and the chunks a
 * search, a page or a heading lookup gives (best first). An index opened from its core fetches
 * postings and text from these.
 */
export interface IndexReads {
  searching(terms: string[]): void;
  found(chunks: readonly ChunkRecord[]): void;
}

/**
 * One term's postings: [term, [field id, [short id, frequency, short id, frequency, …]][]], fields
 * and chunks in ascending order, as MiniSearch's JSON gives them to `loadJS`. Flat arrays, so that
 * a downloaded shard is quick to read.
 */
export type TermPostings = [string, [number, number[]][]];

/**
 * The index without its postings (a static build's core file): MiniSearch's document tables,
 * the document frequencies (idf, typo correction, completions) and each page's openings (the
 * chunks that open it or a section, by heading key), which are read from the chunks' text
 * otherwise. The postings come apart, term by term (`postings`, `addPostings`).
 */
export interface IndexCore {
  format: number;
  analyzerVersion: number;
  indexVersion: number;
  miniSearch: Record<string, unknown>;
  documentFrequency: [string, number][];
  /** [file path, [heading key, chunk ids in page order][]][] */
  openings: [string, [string, string[]][]][];
}

export class LexicalIndex {
  private constructor(
    private readonly miniSearch: MiniSearch<IndexedFields>,
    private readonly chunks: Map<string, ChunkRecord>,
    private readonly documentFrequency: Map<string, number>,
    /** Each page's openings when known (a core file): the chunks' text is then not read. */
    openings?: ReadonlyMap<string, Map<string, ChunkRecord[]>>,
  ) {
    this.vocabulary = new Vocabulary(documentFrequency, () => this.chunks.size);
    for (const chunk of chunks.values()) this.pageOf(chunk.filePath).push(chunk);
    this.refreshPages(new Set(this.pages.keys()), openings);
  }

  /** Told what is asked for (an index opened from its core: see IndexReads). */
  private reads: IndexReads | undefined;
  /** Searches MiniSearch's postings (see bm25-scorer.ts); made on the first search. */
  private scorer: Bm25Scorer | undefined;

  private readonly vocabulary: Vocabulary;
  /** Average field lengths, computed on first use and dropped when chunks change. */
  private averages: FieldLengths | undefined;

  static build(chunks: Iterable<ChunkRecord>): LexicalIndex {
    const index = new LexicalIndex(new MiniSearch(miniSearchOptions()), new Map(), new Map());
    index.add(chunks);
    return index;
  }

  /**
   * The index from a snapshot's JSON text (what `snapshotPieces` wrote). Returns undefined (so the
   * caller rebuilds) when the text is unreadable, from another analyzer, or does not match the
   * store's chunks. Reads no file: the snapshot comes from a file, a database or a download.
   */
  static fromSnapshot(
    text: string,
    indexVersion: number,
    chunks: ChunkRecord[],
  ): LexicalIndex | undefined {
    let snapshot: Snapshot;
    try {
      snapshot = JSON.parse(text) as Snapshot;
    } catch {
      return undefined;
    }
    if (
      snapshot.format !== SNAPSHOT_FORMAT ||
      snapshot.analyzerVersion !== ANALYZER_VERSION ||
      snapshot.indexVersion !== indexVersion ||
      snapshot.chunkIds.length !== chunks.length
    ) {
      return undefined;
    }
    const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
    if (!snapshot.chunkIds.every((id) => byId.has(id))) return undefined;
    try {
      const miniSearch = MiniSearch.loadJS<IndexedFields>(
        snapshot.miniSearch as Parameters<typeof MiniSearch.loadJS>[0],
        miniSearchOptions(),
      );
      return new LexicalIndex(miniSearch, byId, new Map(snapshot.documentFrequency));
    } catch {
      return undefined;
    }
  }

  /**
   * The index from its core (what `core` wrote) over these chunks, with no postings yet: every
   * search first tells `reads` its terms, which may add theirs (`addPostings`).
   * Undefined when the core is of another format, analyzer or index version, or other chunks.
   */
  static fromCore(
    core: IndexCore,
    chunks: ChunkRecord[],
    reads?: IndexReads,
  ): LexicalIndex | undefined {
    if (
      core.format !== SNAPSHOT_FORMAT ||
      core.analyzerVersion !== ANALYZER_VERSION ||
      !Array.isArray(core.openings)
    )
      return undefined;
    const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
    const ids = Object.values((core.miniSearch.documentIds ?? {}) as Record<string, string>);
    if (ids.length !== byId.size || !ids.every((id) => byId.has(id))) return undefined;
    const openings = new Map<string, Map<string, ChunkRecord[]>>();
    for (const [filePath, keys] of core.openings)
      openings.set(
        filePath,
        new Map(
          keys.map(([key, listed]) => [key, listed.map((id) => byId.get(id) as ChunkRecord)]),
        ),
      );
    try {
      const miniSearch = MiniSearch.loadJS<IndexedFields>(
        { ...core.miniSearch, index: [] } as unknown as Parameters<typeof MiniSearch.loadJS>[0],
        miniSearchOptions(),
      );
      const index = new LexicalIndex(miniSearch, byId, new Map(core.documentFrequency), openings);
      index.reads = reads;
      return index;
    } catch {
      return undefined;
    }
  }

  /** The core of the index (see IndexCore); its postings are `postings()`. */
  core(indexVersion: number): IndexCore {
    const { index: _postings, ...miniSearch } = miniSearchCore(this.miniSearch);
    return {
      format: SNAPSHOT_FORMAT,
      analyzerVersion: ANALYZER_VERSION,
      indexVersion,
      miniSearch,
      documentFrequency: [...this.documentFrequency],
      openings: [...this.pages.keys()].map((filePath) => [
        filePath,
        this.headed.openingsOfPage(filePath),
      ]),
    };
  }

  /** Every term's postings (see TermPostings). */
  *postings(): Generator<TermPostings> {
    const ascending = (left: [number, unknown], right: [number, unknown]) => left[0] - right[0];
    for (const [term, fieldIndex] of (this.miniSearch as unknown as MiniSearchState)._index) {
      const fields: [number, number[]][] = [];
      for (const [fieldId, frequencies] of [...fieldIndex].sort(ascending))
        fields.push([fieldId, [...frequencies].sort(ascending).flat()]);
      yield [term, fields];
    }
  }

  /** Adds terms' postings to an index opened from its core, as MiniSearch.loadJS reads them. */
  addPostings(entries: Iterable<TermPostings>): void {
    const state = this.miniSearch as unknown as MiniSearchState & {
      _index: { set(term: string, data: Map<number, Map<number, number>>): void };
    };
    for (const [term, fields] of entries) {
      const data = new Map<number, Map<number, number>>();
      for (const [fieldId, flat] of fields) {
        const frequencies = new Map<number, number>();
        for (let at = 0; at + 1 < flat.length; at += 2)
          frequencies.set(flat[at] as number, flat[at + 1] as number);
        data.set(fieldId, frequencies);
      }
      state._index.set(term, data);
    }
    this.scorer?.forgetPostings();
  }

  /**
   * The snapshot as JSON text in pieces, never as one string: for a thousand pages that string
   * alone was tens of megabytes at the ingest's peak. Joined, the pieces are what `fromSnapshot`
   * reads.
   */
  *snapshotPieces(indexVersion: number): Generator<string> {
    yield `{"format":${SNAPSHOT_FORMAT},"analyzerVersion":${ANALYZER_VERSION},"indexVersion":${indexVersion},"chunkIds":`;
    yield* jsonArray(this.chunks.keys());
    yield `,"documentFrequency":`;
    yield* jsonArray(this.documentFrequency.entries());
    yield `,"miniSearch":`;
    yield* miniSearchJson(this.miniSearch);
    yield "}";
  }

  get size(): number {
    return this.chunks.size;
  }

  chunkById(id: string): ChunkRecord | undefined {
    return this.chunks.get(id);
  }

  allChunks(): IterableIterator<ChunkRecord> {
    return this.chunks.values();
  }

  /**
   * The pages whose title is exactly the identifier (as analysed), as an API reference page is
   * titled by the function it documents (`createStore`).
   */
  pagesTitled(identifier: string): string[] {
    return [...(this.titled.get(identifier) ?? [])].sort();
  }

  /**
   * The pages whose title matches `pattern` (e.g. the book's glossary), in path order. The first
   * call with a pattern reads every page's title; the pages are then kept up to date page by page.
   */
  pagesTitledLike(pattern: RegExp): string[] {
    let titled = this.titledLike.get(pattern.source);
    if (!titled) {
      titled = { pattern, pages: new Set() };
      for (const [filePath, page] of this.pages) {
        const title = page[0]?.title;
        if (title !== undefined && pattern.test(title)) titled.pages.add(filePath);
      }
      this.titledLike.set(pattern.source, titled);
    }
    return [...titled.pages].sort();
  }

  /**
   * Every page's chunks in page order, and the chunks opening a page or section by its title's or
   * heading's key in path order, both kept up to date page by page as chunks are added and removed.
   * Answers read pages on every request and definition questions look headings up, so neither may
   * wait for a pass over the whole book (0.7 s at 100,000 chunks) on a request's thread.
   */
  private readonly pages = new Map<string, ChunkRecord[]>();
  private readonly headed = new ChunksByKey();

  /**
   * The chunks that open a page titled, or a section headed, exactly `heading` (as headingKey reads
   * it: case, plural and a leading article aside), in path order. Where a book explains a term, it
   * often gives it a section of its own ("Immutability") that questions using the term's other
   * forms ("immutable", which shares its stem) do not rank first.
   */
  sectionsHeaded(heading: string): ChunkRecord[] {
    const sections = this.headed.get(headingKey(heading));
    this.reads?.found(sections);
    return sections;
  }

  /** The chunks of one page, in page order (a copy: the caller may change it). */
  chunksOfPage(filePath: string): ChunkRecord[] {
    const page = [...(this.pages.get(filePath) ?? [])];
    this.reads?.found(page);
    return page;
  }

  private pageOf(filePath: string): ChunkRecord[] {
    let page = this.pages.get(filePath);
    if (!page) {
      page = [];
      this.pages.set(filePath, page);
    }
    return page;
  }

  /** Puts the changed pages' chunks back in page order and lists their headings again. */
  private refreshPages(
    filePaths: Set<string>,
    openings?: ReadonlyMap<string, Map<string, ChunkRecord[]>>,
  ): void {
    // A book repeats its headings ("Overview", "Examples"): each is read once per change.
    const keys = new Map<string, string>();
    for (const filePath of [...filePaths].sort()) {
      const page = this.pages.get(filePath) ?? [];
      // A stable sort of the page in the order its chunks were added, as grouping them afresh gives.
      page.sort((left, right) => left.chunkIndex - right.chunkIndex);
      if (page.length === 0) this.pages.delete(filePath);
      this.retitle(filePath, page[0]?.title);
      this.headed.replacePage(
        filePath,
        openings ? (openings.get(filePath) ?? new Map()) : openingsOf(page, keys),
      );
    }
  }

  private retitle(filePath: string, title: string | undefined): void {
    const before = this.titleOfPage.get(filePath);
    const after = title === undefined ? undefined : titleIdentifier(title);
    for (const { pattern, pages } of this.titledLike.values()) {
      if (title !== undefined && pattern.test(title)) pages.add(filePath);
      else pages.delete(filePath);
    }
    if (before === after) return;
    if (before !== undefined) {
      const pages = this.titled.get(before);
      pages?.delete(filePath);
      if (pages?.size === 0) this.titled.delete(before);
      this.titleOfPage.delete(filePath);
    }
    if (after) {
      this.titleOfPage.set(filePath, after);
      const pages = this.titled.get(after) ?? new Set<string>();
      pages.add(filePath);
      this.titled.set(after, pages);
    }
  }

  add(chunks: Iterable<ChunkRecord>): void {
    this.vocabulary.invalidate();
    this.averages = undefined;
    const changed = new Set<string>();
    for (const chunk of chunks) {
      if (this.chunks.has(chunk.id)) continue;
      this.chunks.set(chunk.id, chunk);
      this.pageOf(chunk.filePath).push(chunk);
      changed.add(chunk.filePath);
      // One chunk at a time: a whole book's analysed fields are never held at once.
      const fields = fieldsOf(chunk);
      this.miniSearch.add(fields);
      for (const term of termsOfFields(fields)) {
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      }
    }
    this.refreshPages(changed);
  }

  remove(ids: Iterable<string>): void {
    this.vocabulary.invalidate();
    this.averages = undefined;
    const removed = new Set<ChunkRecord>();
    for (const id of ids) {
      const chunk = this.chunks.get(id);
      if (!chunk) continue;
      removed.add(chunk);
      this.termSets.delete(id);
      const fields = fieldsOf(chunk);
      this.miniSearch.remove(fields);
      this.chunks.delete(id);
      for (const term of termsOfFields(fields)) {
        const count = (this.documentFrequency.get(term) ?? 1) - 1;
        if (count > 0) this.documentFrequency.set(term, count);
        else this.documentFrequency.delete(term);
      }
    }
    const changed = new Set(Array.from(removed, (chunk) => chunk.filePath));
    for (const filePath of changed) {
      const page = this.pages.get(filePath) ?? [];
      this.pages.set(
        filePath,
        page.filter((chunk) => !removed.has(chunk)),
      );
    }
    this.refreshPages(changed);
  }

  private readonly termSets = new Map<string, Set<string>>();

  /** The distinct terms of a chunk (title, tags, headings and text), cached for recent chunks. */
  termsOfChunk(chunk: ChunkRecord): Set<string> {
    let terms = this.termSets.get(chunk.id);
    if (!terms) {
      terms = termsOf(chunk);
      if (this.termSets.size >= 5_000) this.termSets.clear();
      this.termSets.set(chunk.id, terms);
    }
    return terms;
  }

  /** How many chunks contain `term`. */
  documentFrequencyOf(term: string): number {
    return this.vocabulary.documentFrequencyOf(term);
  }

  /** BM25's inverse document frequency; a term no chunk contains gets the highest value. */
  idf(term: string): number {
    return this.vocabulary.idf(term);
  }

  /**
   * The book's term a word the book never uses is most likely a typo of (see
   * Vocabulary.closestTerm).
   */
  closestTerm(term: string): string | undefined {
    return this.vocabulary.closestTerm(term);
  }

  /**
   * Title identifiers → pages, each page's identifier, and the pages matching each title pattern
   * asked for, all kept up to date page by page.
   */
  private readonly titled = new Map<string, Set<string>>();
  private readonly titleOfPage = new Map<string, string>();
  private readonly titledLike = new Map<string, { pattern: RegExp; pages: Set<string> }>();

  /** Up to `max` terms of the book that start with `prefix`, in alphabetical order. */
  termsStartingWith(prefix: string, max: number): string[] {
    return this.vocabulary.termsStartingWith(prefix, max);
  }

  /**
   * The average length of each field over the chunks, in distinct terms (as MiniSearch measures
   * it): BM25's avgdl, which the sparse vectors of an external engine need to score as this
   * index does.
   */
  averageFieldLengths(): FieldLengths {
    this.averages ??= averageFieldLengthsOf(this.chunks.values());
    return this.averages;
  }

  search(
    terms: string[],
    options: {
      limit: number;
      filter?: (chunk: ChunkRecord) => boolean;
      /** Per-term weight (default 1), e.g. lower for words carried over from an earlier turn. */
      boost?: Map<string, number>;
    },
  ): LexicalHit[] {
    if (terms.length === 0 || this.chunks.size === 0) return [];
    this.reads?.searching(terms);
    const filter = options.filter;
    const boost = options.boost;
    this.scorer ??= new Bm25Scorer(this.miniSearch);
    const results = this.scorer.search(terms.join(" "), {
      boosts: FIELD_BOOSTS,
      bm25: BM25_PARAMS,
      limit: options.limit,
      ...(filter ? { keep: (id) => filter(this.chunks.get(id) as ChunkRecord) } : {}),
      ...(boost && boost.size > 0 ? { termBoost: (term) => boost.get(term) ?? 1 } : {}),
    });
    const hits: LexicalHit[] = [];
    for (const result of results) {
      const chunk = this.chunks.get(result.id);
      if (chunk) hits.push({ chunk, score: result.score, matchedTerms: result.queryTerms });
    }
    this.reads?.found(hits.map((hit) => hit.chunk));
    return hits;
  }
}

/**
 * The chunks of one page (in page order) that open it or one of its sections, by the key of the
 * title or heading they open it with (`keys` holds the keys already read); a chunk is listed once
 * per key.
 */
function openingsOf(page: ChunkRecord[], keys: Map<string, string>): Map<string, ChunkRecord[]> {
  const opening = new Map<string, ChunkRecord[]>();
  const add = (text: string, chunk: ChunkRecord) => {
    let key = keys.get(text);
    if (key === undefined) {
      key = headingKey(text);
      keys.set(text, key);
    }
    const found = opening.get(key);
    if (!found) opening.set(key, [chunk]);
    else if (found.at(-1) !== chunk) found.push(chunk);
  };
  let previous = "";
  for (const chunk of page) {
    const path = chunk.headingPath.join("\n");
    if (chunk.chunkIndex === 0) add(chunk.title, chunk);
    // A long section is split into chunks: only the first opens it.
    const own = chunk.headingPath.at(-1);
    if (chunk.headingPath.length > 1 && path !== previous && own) add(own, chunk);
    for (const inner of innerHeadings(chunk.text)) add(inner, chunk);
    previous = path;
  }
  return opening;
}

/**
 * Lists of chunks by key, each in path order, changed a page at a time: a changed page leaves the
 * keys it was listed under and joins its new ones where its path sorts. A book's pages come in path
 * order, so a whole book is appended to each list, never inserted.
 */
class ChunksByKey {
  private readonly lists = new Map<string, ChunkRecord[]>();
  /** The keys each page is listed under. */
  private readonly keysOfPage = new Map<string, string[]>();

  /** A copy: the caller may change it. */
  get(key: string): ChunkRecord[] {
    return [...(this.lists.get(key) ?? [])];
  }

  /** The page's keys with the ids of the chunks it lists under each, in page order. */
  openingsOfPage(filePath: string): [string, string[]][] {
    return (this.keysOfPage.get(filePath) ?? []).map((key) => [
      key,
      (this.lists.get(key) ?? [])
        .filter((chunk) => chunk.filePath === filePath)
        .map((chunk) => chunk.id),
    ]);
  }

  replacePage(filePath: string, listed: Map<string, ChunkRecord[]>): void {
    for (const key of this.keysOfPage.get(filePath) ?? []) {
      const kept = (this.lists.get(key) ?? []).filter((chunk) => chunk.filePath !== filePath);
      if (kept.length > 0) this.lists.set(key, kept);
      else this.lists.delete(key);
    }
    if (listed.size > 0) this.keysOfPage.set(filePath, [...listed.keys()]);
    else this.keysOfPage.delete(filePath);
    for (const [key, chunks] of listed) {
      const list = this.lists.get(key);
      if (!list) this.lists.set(key, chunks);
      else list.splice(firstPageAfter(list, filePath), 0, ...chunks);
    }
  }
}

/** Where a page's chunks go in a list in path order: before the first chunk of a later page. */
function firstPageAfter(listed: ChunkRecord[], filePath: string): number {
  let low = 0;
  let high = listed.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((listed[middle] as ChunkRecord).filePath > filePath) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The fields of MiniSearch that its `toJSON()` reads (protected: MiniSearch is made to be extended). */
interface MiniSearchState {
  _documentCount: number;
  _nextId: number;
  _documentIds: Map<number, unknown>;
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _storedFields: Map<number, Record<string, unknown>>;
  _dirtCount: number;
  _index: Iterable<[string, Map<number, Map<number, number>>]>;
}

/**
 * MiniSearch's `toJSON()` (serialization version 2) as JSON text, one term of the inverted index
 * at a time: `toJSON()` builds the whole index as one object tree first, 52 MB for a thousand
 * pages, at the moment an ingest peaks. `lexical-index.test.ts` holds the two outputs equal.
 */
/** MiniSearch's `toJSON()` without building its inverted index (`index` left empty). */
function miniSearchCore(miniSearch: MiniSearch<IndexedFields>): Record<string, unknown> {
  const state = miniSearch as unknown as MiniSearchState;
  return {
    documentCount: state._documentCount,
    nextId: state._nextId,
    documentIds: Object.fromEntries(state._documentIds),
    fieldIds: state._fieldIds,
    fieldLength: Object.fromEntries(state._fieldLength),
    averageFieldLength: state._avgFieldLength,
    storedFields: Object.fromEntries(state._storedFields),
    dirtCount: state._dirtCount,
    index: [],
    serializationVersion: 2,
  };
}

function* miniSearchJson(miniSearch: MiniSearch<IndexedFields>): Generator<string> {
  const state = miniSearch as unknown as MiniSearchState;
  yield `{"documentCount":${JSON.stringify(state._documentCount)}`;
  yield `,"nextId":${JSON.stringify(state._nextId)}`;
  yield `,"documentIds":${JSON.stringify(Object.fromEntries(state._documentIds))}`;
  yield `,"fieldIds":${JSON.stringify(state._fieldIds)}`;
  yield `,"fieldLength":${JSON.stringify(Object.fromEntries(state._fieldLength))}`;
  yield `,"averageFieldLength":${JSON.stringify(state._avgFieldLength)}`;
  yield `,"storedFields":${JSON.stringify(Object.fromEntries(state._storedFields))}`;
  yield `,"dirtCount":${JSON.stringify(state._dirtCount)}`;
  let separator = `,"index":[`;
  for (const [term, fieldIndex] of state._index) {
    const fields: Record<number, Record<number, number>> = {};
    for (const [fieldId, frequencies] of fieldIndex)
      fields[fieldId] = Object.fromEntries(frequencies);
    yield separator + JSON.stringify([term, fields]);
    separator = ",";
  }
  yield `${separator === "," ? "]" : `${separator}]`},"serializationVersion":2}`;
}

/** A JSON array of the values, one value per piece. */
function* jsonArray(values: Iterable<unknown>): Generator<string> {
  let separator = "[";
  for (const value of values) {
    yield separator + JSON.stringify(value);
    separator = ",";
  }
  yield separator === "[" ? "[]" : "]";
}
