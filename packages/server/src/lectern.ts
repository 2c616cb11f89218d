import { availableParallelism } from "node:os";
import { GLOSSARY_TITLE } from "@lectern/engine/answer/lead";
import type { Synopsis } from "@lectern/engine/answer/synopsis";
import { bookSynopsis } from "@lectern/engine/engine/book-synopsis";
import { createError } from "@lectern/engine/errors";
import { type BookView, viewOfIndex } from "@lectern/engine/pipeline/book-view";
import type { FieldLengths } from "@lectern/engine/search/chunk-fields";
import { type Embedder, isDenseEnabled, noneEmbedder } from "@lectern/engine/search/embedder";
import type { EngineLexical } from "@lectern/engine/search/engine-search";
import type { FusedQuery } from "@lectern/engine/search/fusion";
import {
  engineKeywordSearch,
  type KeywordHit,
  type KeywordSearchOptions,
  keywordSearch,
} from "@lectern/engine/search/keyword-search";
import { loadLanguages } from "@lectern/engine/search/languages";
import type { LexicalIndex } from "@lectern/engine/search/lexical-index";
import type { Reranker } from "@lectern/engine/search/reranker";
import { Retriever } from "@lectern/engine/search/retriever";
import { chunkSparseVector } from "@lectern/engine/search/sparse-vector";
import { Synonyms } from "@lectern/engine/search/synonyms";
import { bookTitle, checkSameBook, recordBook } from "./book.ts";
import type { Config } from "./config/config.ts";
import type { DocSource } from "./ingest/doc-source.ts";
import type { IngestReport } from "./ingest/ingest.ts";
import { acquireIngestLock } from "./ingest/ingest-lock.ts";
import type { VersionedDocs } from "./ingest/versioned-site.ts";
import { ProviderClients } from "./llm/providers.ts";
import { createReranker } from "./llm/rerankers.ts";
import {
  bookFileVersion,
  inStoreOrder,
  readBookFile,
  restoreBookFile,
  setBookFileAside,
  writeBookFile,
} from "./search/book-file.ts";
import {
  applyToIndex,
  loadLexicalIndex,
  loadLexicalSnapshot,
  loadTermStatistics,
  saveLexicalIndex,
  saveTermStatistics,
} from "./search/index-store.ts";
import { type TermSource, TermStatistics } from "./search/term-statistics.ts";
import { acquireDataDirLock, type DataDirLock } from "./store/data-dir-lock.ts";
import {
  type BookLocale,
  type BookVersion,
  type ChunkRecord,
  DocumentStore,
} from "./store/document-store.ts";
import { ExternalVectorBacklog } from "./store/external-backlog.ts";
import { openDatabase } from "./store/open.ts";
import { PgvectorBacklog, PgvectorIndex } from "./store/pgvector-index.ts";
import {
  createQdrantClient,
  type HybridHit,
  type HybridQuery,
  QdrantIndex,
  type SparseHit,
  type SparseQuery,
} from "./store/qdrant-index.ts";
import type { SqlClient } from "./store/sql-client.ts";
import type { EmbeddingBacklog, VectorIndex } from "./store/vector-index.ts";
import { collectGarbage } from "./util/collect-garbage.ts";

/** The assembled library: database, document store, BM25 index and retriever for one collection. */
export interface EmbeddingReport {
  embedded: number;
  pending: number;
  failed: string | undefined;
  seconds: number;
}

type ProgressListener = (event: { done: number; total: number; file: string }) => void;

/**
 * The book as it is served at one index version: what a question reads (book-view.ts), with the
 * BM25 index or the term statistics it came from. An ingest or a refresh makes a new one and
 * swaps it in whole, so a question that took the old one reads the old version to its end. (An
 * ingest in this process updates its in-memory index page by page before the swap; a server never
 * ingests while it answers: `lectern serve --docs` ingests before it listens, and another
 * process's ingest arrives by `refresh`, which loads a new index.)
 */
export interface ServedBook extends BookView {
  readonly indexVersion: number;
  /**
   * The in-process BM25 index; undefined with LEXICAL_BACKEND=qdrant, where Qdrant ranks and
   * `terms` holds the statistics.
   */
  readonly index: LexicalIndex | undefined;
  /** The book's term statistics: the BM25 index itself, or the table that stands in for it. */
  readonly terms: TermSource;
  /** What the book is about, for overview questions; undefined for an empty book. */
  readonly synopsis: Synopsis | undefined;
  /** The book's docs versions (a versioned site's); empty for a book without versions. */
  readonly versions: BookVersion[];
  /** The book's locales (a translated site's), the default one first; empty for an untranslated book. */
  readonly locales: BookLocale[];
}

export interface Lectern {
  readonly config: Config;
  readonly db: SqlClient;
  /**
   * The owner lock of the data directory's embedded database (store/data-dir-lock.ts), held until
   * `close`; undefined with PostgreSQL (DATABASE_URL), which many processes share.
   */
  readonly dataDirLock: DataDirLock | undefined;
  readonly store: DocumentStore;
  readonly embedder: Embedder;
  /** The provider clients of this library; chat models are made from them too. */
  readonly providers: ProviderClients;
  /** The vector index and what waits for a vector; undefined when dense retrieval is off. */
  readonly vectors: DenseVectors | undefined;
  /** The book as served now; replaced as a whole by an ingest or a refresh (never changed). */
  readonly served: ServedBook;
  /**
   * Ingests a docs folder (its path), the versions of a versioned site, or any other source of the
   * book's files. A folder other than the one this collection's book came from is refused
   * (BOOK_MISMATCH) unless `replace` is set.
   */
  ingest(
    docs: string | DocSource | VersionedDocs,
    onProgress?: ProgressListener,
    options?: { replace?: boolean },
  ): Promise<IngestReport & { embeddings?: EmbeddingReport }>;
  /** The book's title: configured, recorded at ingest, or its root page's; undefined if none. */
  title(): Promise<string | undefined>;
  /**
   * Loads the index again when another process (an ingest against the same PostgreSQL database)
   * stored a newer version than the one in memory; true when it did.
   */
  refresh(): Promise<boolean>;
  /** Search as the reader types (GET /search): see keyword-search.ts. */
  searchKeywords(query: string, options: KeywordSearchOptions): Promise<KeywordHit[]>;
  /** The chunks of these pages in page order (from the index, or read from the store). */
  chunksOfPages(filePaths: string[]): Promise<Map<string, ChunkRecord[]>>;
  /** The index version the in-memory index holds (the store's counter, raised by every ingest). */
  indexVersion(): number;
  /** Embeds every chunk that has no embedding yet, in batches; resumable. */
  embedPending(onProgress?: ProgressListener): Promise<EmbeddingReport>;
  close(): Promise<void>;
}

/**
 * Both sides of dense retrieval, as one object for callers (`lectern.vectors`). `searchHybrid`
 * is there when the engine also holds the BM25 vectors and fuses both rankings itself (Qdrant).
 */
export type DenseVectors = VectorIndex &
  EmbeddingBacklog & {
    readonly backend: "pgvector" | "qdrant";
    searchHybrid?: (query: HybridQuery) => Promise<HybridHit[]>;
    searchSparse?: (query: SparseQuery) => Promise<SparseHit[]>;
  };

export interface OpenOptions {
  /** Overrides the configured embedder (tests use a deterministic one). */
  embedder?: Embedder;
  /** Drop stored embeddings of another model and embed again. */
  reembed?: boolean;
  /** Overrides the configured reranker. */
  reranker?: Reranker;
  /**
   * What the process is for: "ingest" (one run, then exit), "serve" (an HTTP server), "session"
   * (a long-lived process without HTTP: the MCP server on stdio, the REPL), or, when omitted, a
   * one-shot command (a question from the command line, an eval, tests). With `pgliteCompiler`
   * "auto", a server or a session compiles the embedded database for speed and anything else for
   * a quick start and less memory (the optimising compiler's work outlasts a single question);
   * with `pgliteThread` "auto", only a server runs it on a thread of its own.
   */
  workload?: "ingest" | "serve" | "session";
  /** Who opens the data directory, as its owner lock records it; this process's command line. */
  command?: string;
  /** Told when the lock of a process that is gone is taken over; written to stderr by default. */
  onNotice?: (message: string) => void;
}

export async function openLectern(config: Config, options: OpenOptions = {}): Promise<Lectern> {
  // Before anything is loaded or opened: a second process must not touch the embedded database.
  const dataDirLock = config.databaseUrl
    ? undefined
    : await acquireDataDirLock(config.dataDir, {
        ...(options.command ? { command: options.command } : {}),
        onNotice: options.onNotice ?? ((message) => process.stderr.write(`notice: ${message}\n`)),
      });
  try {
    return await openLocked(config, options, dataDirLock);
  } catch (error) {
    await dataDirLock?.release();
    throw error;
  }
}

async function openLocked(
  config: Config,
  options: OpenOptions,
  dataDirLock: DataDirLock | undefined,
): Promise<Lectern> {
  const providers = new ProviderClients();
  // The model SDK loads only when there is an embedder: BM25 alone (an ingest without
  // embeddings, the default) does without it.
  const embedder =
    options.embedder ??
    (config.embeddings.provider === "none"
      ? noneEmbedder
      : await (await import("./llm/embedders.ts")).createEmbedder(config, providers));
  const reranker = options.reranker ?? (await createReranker(config));
  const dense = isDenseEnabled(embedder);
  // pgvector is loaded into the database only when the vectors live there.
  const db = await openDatabase({
    ...config,
    vector: dense && config.vectors.backend === "pgvector",
    pgliteOptimize:
      config.pgliteCompiler === "optimizing" ||
      (config.pgliteCompiler === "auto" &&
        (options.workload === "serve" || options.workload === "session")),
    // With one core, a second thread only adds the cost of passing messages.
    pgliteWorker:
      config.pgliteThread === "worker" ||
      (config.pgliteThread === "auto" &&
        options.workload === "serve" &&
        availableParallelism() > 1),
  });
  try {
    const store = new DocumentStore(db, config.collection);
    const engineLexical = config.vectors.lexical === "qdrant";
    if (engineLexical && !dense) {
      throw createError(
        "CONFIG_INVALID",
        "LEXICAL_BACKEND=qdrant ranks BM25 in Qdrant, which Lectern uses only with an embedding model. Set EMBEDDINGS_PROVIDER (see the README), or LEXICAL_BACKEND=memory.",
        { details: { key: "vectors.lexical", variable: "LEXICAL_BACKEND" } },
      );
    }
    // The sparse vectors are length-normalised against the book's average field lengths, read
    // when a batch is stored (after the ingest has updated the index or the statistics).
    let averageFieldLengths: () => FieldLengths = () => ({ title: 0, headings: 0, text: 0 });
    const vectors = dense
      ? await openDenseVectors(db, config, embedder, options.reembed ?? false, () =>
          averageFieldLengths(),
        )
      : undefined;
    // The embedder given to this open (a test's) may be dense where the configuration is not.
    const bookFiles = keptInFiles(config) && !dense;
    // The file only saves a reader the database's start: when it cannot be written (a full disk),
    // there is none, and readers open the database, so neither an ingest nor a start fails on it.
    const writeBook = async (
      index: LexicalIndex,
      indexVersion: number,
      versions?: BookVersion[],
      locales?: BookLocale[],
    ) => {
      try {
        await writeBookFile(config.dataDir, config.collection, {
          indexVersion,
          pages: await store.pages(),
          chunks: inStoreOrder(index.allChunks()),
          versions: versions ?? (await store.book())?.versions ?? [],
          locales: locales ?? (await store.book())?.locales ?? [],
        });
      } catch {
        await setBookFileAside(config.dataDir, config.collection).catch(() => {});
      }
    };
    const searchHybrid = vectors?.searchHybrid;
    const searchSparse = vectors?.searchSparse;
    /** The BM25 side of retrieval: the in-process index, or Qdrant with the term statistics. */
    type LexicalBook =
      | { kind: "memory"; index: LexicalIndex; indexVersion: number }
      | { kind: "engine"; terms: TermStatistics; engine: EngineLexical; indexVersion: number };
    const loadLexical = async (): Promise<LexicalBook> => {
      if (!engineLexical) {
        const loaded = await loadLexicalIndex(store, config.dataDir);
        if (
          bookFiles &&
          (await bookFileVersion(config.dataDir, config.collection)) !== loaded.indexVersion
        )
          await writeBook(loaded.index, loaded.indexVersion);
        return { kind: "memory", index: loaded.index, indexVersion: loaded.indexVersion };
      }
      const loaded = await loadTermStatistics(store, config.dataDir);
      return {
        kind: "engine",
        terms: loaded.statistics,
        indexVersion: loaded.indexVersion,
        engine: {
          terms: loaded.statistics,
          search: ({ sparse, limit, filters }) =>
            (searchSparse as NonNullable<typeof searchSparse>)({
              sparse,
              limit,
              filter: { urlPrefix: filters?.sourceUrlPrefix, section: filters?.section },
            }),
          chunks: (ids) => store.chunksByIds(ids),
        },
      };
    };
    const synopsisOf = async (book: LexicalBook, versions: BookVersion[]) =>
      bookSynopsis(
        await store.pages(),
        book.kind === "memory" ? book.index.allChunks() : await store.firstChunks(),
        versions,
      );
    const makeRetriever = (book: LexicalBook) =>
      new Retriever(book.kind === "memory" ? book.index : book.engine, {
        ...retrieverSettings(config, embedder, reranker),
        ...(vectors
          ? {
              dense: {
                embedder,
                search: (embedding: number[], limit: number) => vectors.search(embedding, limit),
                minSimilarity: config.embeddings.minDenseSimilarity,
                ...(searchHybrid
                  ? {
                      fused: ({ embedding, sparse, filters, limit, rrfK }: FusedQuery) =>
                        searchHybrid({
                          embedding,
                          sparse,
                          limit,
                          rrfK,
                          filter: {
                            urlPrefix: filters?.sourceUrlPrefix,
                            section: filters?.section,
                          },
                        }),
                    }
                  : {}),
              },
            }
          : {}),
      });
    // A translated book's stemmers, before its pages or questions are analysed.
    await loadLanguages((await store.book())?.locales ?? []);
    let book = await loadLexical();
    averageFieldLengths = () =>
      book.kind === "memory" ? book.index.averageFieldLengths() : book.terms.averageFieldLengths;
    /** The book served from this index or these statistics, with these versions and locales. */
    const servedOver = async (
      next: LexicalBook,
      slices: Pick<ServedBook, "versions" | "locales">,
    ): Promise<ServedBook> => {
      const parts = {
        retriever: makeRetriever(next),
        synopsis: await synopsisOf(next, slices.versions),
        versions: slices.versions,
        locales: slices.locales,
      };
      if (next.kind === "memory") return servedFromIndex(next.index, next.indexVersion, parts);
      const terms = next.terms;
      return {
        ...parts,
        indexVersion: next.indexVersion,
        index: undefined,
        terms,
        // No chunks in memory: an answer reads its results' pages from the store.
        loadPages: (filePaths) => store.chunksOfPages(filePaths),
        glossaryPages: () => terms.pagesTitledLike(GLOSSARY_TITLE),
        idf: (term) => terms.idf(term),
      };
    };
    const recordedBook = await store.book();
    let served = await servedOver(book, {
      versions: recordedBook?.versions ?? [],
      locales: recordedBook?.locales ?? [],
    });
    const lectern: Lectern = {
      config,
      db,
      dataDirLock,
      store,
      embedder,
      providers,
      vectors,
      get served() {
        return served;
      },
      async ingest(docs, onProgress, options = {}) {
        const lock = await acquireIngestLock(config.dataDir, config.collection);
        const site = isVersionedDocs(docs) ? docs : undefined;
        const folder = site ? site.root : typeof docs === "string" ? docs : undefined;
        try {
          if (folder !== undefined && !options.replace) await checkSameBook(store, config, folder);
          // A folder or site ingest records the versions it read; another source keeps them.
          const slices =
            folder === undefined
              ? undefined
              : { versions: site?.versions ?? [], locales: site?.locales ?? [] };
          if (slices) await loadLanguages(slices.locales);
          const report = await ingestLocked(docs, onProgress, slices);
          if (slices) await recordBook(store, config, folder as string, slices);
          const recordedBook = await store.book();
          const recorded = {
            versions: recordedBook?.versions ?? [],
            locales: recordedBook?.locales ?? [],
          };
          const { versions, locales } = served;
          if (JSON.stringify(recorded) !== JSON.stringify({ versions, locales }))
            served = await servedOver(book, recorded);
          return report;
        } finally {
          await lock.release();
        }
      },
      async refresh() {
        const { indexVersion } = await store.indexState();
        if (indexVersion === served.indexVersion) return false;
        const recordedBook = await store.book();
        const locales = recordedBook?.locales ?? [];
        await loadLanguages(locales);
        await useBook(await loadLexical(), { versions: recordedBook?.versions ?? [], locales });
        return true;
      },
      async searchKeywords(query, options) {
        return book.kind === "memory"
          ? keywordSearch(book.index, query, options)
          : engineKeywordSearch(book.engine, query, options);
      },
      async chunksOfPages(filePaths) {
        if (book.kind === "engine") return store.chunksOfPages(filePaths);
        const index = book.index;
        return new Map(filePaths.map((filePath) => [filePath, index.chunksOfPage(filePath)]));
      },
      indexVersion: () => served.indexVersion,
      title: () => bookTitle(store, config),
      async embedPending(onProgress) {
        const started = performance.now();
        if (!vectors) return { embedded: 0, pending: 0, failed: undefined, seconds: 0 };
        const total = await vectors.countPending();
        const batchSize = embedder.maxBatchSize ?? config.embeddings.batchSize;
        let embedded = 0;
        try {
          while (true) {
            // One page of pending chunks is one model call and one stored batch.
            const batch = await vectors.pendingChunks(batchSize);
            if (batch.length === 0) break;
            const embeddings = await embedder.embed(batch.map((chunk) => chunk.text));
            await vectors.upsert(
              batch.map((chunk, index) => ({
                chunkId: chunk.id,
                embedding: embeddings[index] ?? [],
              })),
            );
            await vectors.markEmbedded(batch.map((chunk) => chunk.id));
            embedded += batch.length;
            onProgress?.({ done: embedded, total, file: "embedding chunks" });
          }
          return {
            embedded,
            pending: 0,
            failed: undefined,
            seconds: (performance.now() - started) / 1000,
          };
        } catch (error) {
          // Finished batches stay stored; the next run embeds only what is left.
          const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
          return {
            embedded,
            pending: total - embedded,
            failed: message,
            seconds: (performance.now() - started) / 1000,
          };
        }
      },
      close: async () => {
        await (embedder as { dispose?: () => Promise<void> }).dispose?.();
        await reranker?.dispose?.();
        try {
          await db.close();
        } finally {
          await dataDirLock?.release();
        }
      },
    };
    /** Serves from this index or these statistics from now on. */
    async function useBook(
      next: LexicalBook,
      slices: Pick<ServedBook, "versions" | "locales"> = served,
    ): Promise<void> {
      const nextServed = await servedOver(next, slices);
      book = next;
      served = nextServed;
    }
    async function ingestLocked(
      docs: string | DocSource | VersionedDocs,
      onProgress: ProgressListener | undefined,
      slices: { versions: BookVersion[]; locales: BookLocale[] } | undefined,
    ): Promise<IngestReport & { embeddings?: EmbeddingReport }> {
      // The Markdown/MDX parsers load only to ingest: reading commands start faster without them.
      const { ingestDocs, ingestOptionsFromConfig } = await import("./ingest/ingest.ts");
      const ingestOptions = isVersionedDocs(docs)
        ? await versionedIngestOptions(config, docs)
        : ingestOptionsFromConfig(config, docs);
      // The BM25 index follows the store page by page, so that tokenising the new chunks happens
      // while each page is at hand rather than for the whole book at the end.
      const memoryIndex = book.kind === "memory" ? book.index : undefined;
      if (bookFiles) await setBookFileAside(config.dataDir, config.collection);
      let report: IngestReport;
      try {
        report = await ingestDocs(store, {
          ...ingestOptions,
          ...(onProgress ? { onProgress } : {}),
          ...(memoryIndex
            ? {
                onStored: (change: Parameters<typeof applyToIndex>[1]) =>
                  applyToIndex(memoryIndex, change),
              }
            : {}),
        });
      } catch (error) {
        // The store rolled back: so does the index, to the store's (unchanged) version.
        if (memoryIndex) await useBook(await loadLexical());
        throw error;
      }
      if (report.changed) {
        if (book.kind === "memory") {
          collectGarbage(); // the run's leftovers, before the snapshot is written
          await saveLexicalIndex(
            book.index,
            config.dataDir,
            config.collection,
            report.indexVersion,
          );
          if (bookFiles)
            await writeBook(book.index, report.indexVersion, slices?.versions, slices?.locales);
          await useBook({ ...book, indexVersion: report.indexVersion });
        } else {
          // The table is counted again from the store: one pass over the chunks, none kept.
          const statistics = TermStatistics.fromChunks(await store.allChunks());
          await saveTermStatistics(
            statistics,
            config.dataDir,
            config.collection,
            report.indexVersion,
          );
          await useBook({
            ...book,
            terms: statistics,
            engine: { ...book.engine, terms: statistics },
            indexVersion: report.indexVersion,
          });
        }
      }
      if (!report.changed && bookFiles) await restoreBookFile(config.dataDir, config.collection);
      if (!vectors) return report;
      const staleFailure = report.changed ? await deleteStaleVectors(vectors, report) : undefined;
      const embeddings = await lectern.embedPending(onProgress);
      return {
        ...report,
        embeddings:
          staleFailure && !embeddings.failed ? { ...embeddings, failed: staleFailure } : embeddings,
      };
    }
    return lectern;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

/** What the book is about; a versioned book is summed up by its latest version's pages. */
function isVersionedDocs(docs: string | DocSource | VersionedDocs): docs is VersionedDocs {
  return typeof docs === "object" && "versions" in docs && "root" in docs;
}

/** A versioned site's ingest: its mounted folders, each version's pages routed where it serves them. */
async function versionedIngestOptions(config: Config, site: VersionedDocs) {
  const { ingestOptionsFromConfig } = await import("./ingest/ingest.ts");
  const options = ingestOptionsFromConfig(config, site.source);
  const { localeRoutes, versionRoutes } = await import("./ingest/versioned-site.ts");
  const route = {
    ...options.route,
    versions: versionRoutes(site.versions),
    ...(site.locales?.length ? { locales: localeRoutes(site.locales) } : {}),
  };
  return { ...options, route };
}

/** What every retriever of the book is made with, whatever ranks its BM25 side. */
function retrieverSettings(config: Config, embedder: Embedder, reranker: Reranker | undefined) {
  const synonyms = new Synonyms(config.synonyms);
  return {
    topK: config.search.topK,
    maxChunksPerPage: config.search.maxChunksPerPage,
    embedder,
    ...(synonyms.size > 0 ? { synonyms } : {}),
    ...(reranker ? { rerank: { reranker, candidates: config.rerank.candidates } } : {}),
  };
}

/**
 * Whether the book is kept in files beside its BM25 snapshot (search/book-file.ts): an embedded
 * database searched in process without vectors, what `lectern ask` answers from without starting
 * the database. PostgreSQL, vectors and Qdrant need their services to answer anyway.
 */
function keptInFiles(config: Config): boolean {
  return (
    !config.databaseUrl &&
    config.vectors.lexical !== "qdrant" &&
    config.embeddings.provider === "none"
  );
}

/** What answering a question reads of the book: a `Lectern`, or the book read from its files. */
export type BookReader = Pick<Lectern, "config" | "providers" | "served" | "close">;

/**
 * The book read from its files alone (the book file and the BM25 snapshot, search/book-file.ts),
 * without starting the embedded database or taking its lock: for a command that only answers.
 * Undefined when the book is not kept so (PostgreSQL, vectors, Qdrant ranking BM25) or the files
 * are missing or do not match each other; the caller then opens the database.
 */
export async function readBookFromFiles(config: Config): Promise<BookReader | undefined> {
  if (!keptInFiles(config)) return undefined;
  const book = await readBookFile(config.dataDir, config.collection);
  if (!book) return undefined;
  await loadLanguages(book.locales ?? []);
  const index = await loadLexicalSnapshot(
    config.dataDir,
    config.collection,
    book.indexVersion,
    book.chunks,
  );
  if (!index) return undefined;
  const reranker = await createReranker(config);
  return {
    config,
    providers: new ProviderClients(),
    served: servedFromIndex(index, book.indexVersion, {
      retriever: new Retriever(index, retrieverSettings(config, noneEmbedder, reranker)),
      synopsis: bookSynopsis(book.pages, index.allChunks(), book.versions ?? []),
      versions: book.versions ?? [],
      locales: book.locales ?? [],
    }),
    close: async () => {
      await reranker?.dispose?.();
    },
  };
}

/** The book served from an index held in memory. */
function servedFromIndex(
  index: LexicalIndex,
  indexVersion: number,
  parts: Pick<ServedBook, "retriever" | "synopsis" | "versions" | "locales">,
): ServedBook {
  return { ...viewOfIndex(index, parts), ...parts, indexVersion, index, terms: index };
}

/**
 * Deletes the vectors of chunks that left the book with this ingest: pgvector loses them with the
 * chunk rows already; an engine outside the database (Qdrant) learns it here, from the same sync.
 * A failure is reported, not thrown: the store and the BM25 index are already updated, and a
 * leftover point is never answered from (its chunk is no longer in the index).
 */
async function deleteStaleVectors(
  vectors: DenseVectors,
  report: IngestReport,
): Promise<string | undefined> {
  const kept = new Set(report.addedChunks.map((chunk) => chunk.id));
  try {
    await vectors.delete(report.removedChunkIds.filter((id) => !kept.has(id)));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0] : String(error);
  }
}

/**
 * The vector index of the configured backend, prepared for the embedder's model, and its
 * backlog: pgvector in the book's database, or a Qdrant collection with the backlog in the
 * database.
 */
async function openDenseVectors(
  db: SqlClient,
  config: Config,
  embedder: Embedder,
  reembed: boolean,
  averageFieldLengths: () => FieldLengths,
): Promise<DenseVectors> {
  const model = {
    provider: embedder.provider,
    model: embedder.modelId,
    dimensions: embedder.dimensions,
  };
  if (config.vectors.backend === "qdrant") {
    const { url, apiKey, timeoutMs } = config.vectors.qdrant;
    const collectionName = qdrantCollectionName(config, "");
    const backlog = new ExternalVectorBacklog(db, collectionName, config.collection);
    const index = new QdrantIndex({
      client: await createQdrantClient({ url: url ?? "", apiKey, timeoutMs }),
      backlog,
      encodeSparse: (chunk) => chunkSparseVector(chunk, averageFieldLengths()),
      collectionName,
    });
    await index.prepare(model, { reembed });
    return {
      ...denseVectors(index, backlog, "qdrant"),
      searchHybrid: (query) => index.searchHybrid(query),
      searchSparse: (query) => index.searchSparse(query),
    };
  }
  const index = new PgvectorIndex(db, config.collection);
  await index.prepare(model, { reembed });
  return denseVectors(index, new PgvectorBacklog(db, index), "pgvector");
}

/**
 * The Qdrant collection of a book and docs version: QDRANT_COLLECTION, or "lectern-" and the
 * book's collection; a docs version adds "--" and the version.
 */
export function qdrantCollectionName(config: Config, version: string): string {
  const base = config.vectors.qdrant.collection ?? `lectern-${config.collection}`;
  return version ? `${base}--${version.replace(/[^A-Za-z0-9_.-]/g, "_")}` : base;
}

function denseVectors(
  index: VectorIndex,
  backlog: EmbeddingBacklog,
  backend: DenseVectors["backend"],
): DenseVectors {
  return {
    backend,
    prepare: (model, options) => index.prepare(model, options),
    upsert: (vectors) => index.upsert(vectors),
    search: (embedding, limit) => index.search(embedding, limit),
    delete: (chunkIds) => index.delete(chunkIds),
    deleteAll: () => index.deleteAll(),
    count: () => index.count(),
    pendingChunks: (limit) => backlog.pendingChunks(limit),
    countPending: () => backlog.countPending(),
    markEmbedded: (chunkIds) => backlog.markEmbedded(chunkIds),
  };
}
