import type { Synopsis } from "../answer/synopsis.ts";
import { ExtractiveSynthesizer } from "../pipeline/answer-synthesizer.ts";
import { viewOfIndex } from "../pipeline/book-view.ts";
import { ChatPipeline } from "../pipeline/chat-pipeline.ts";
import { HeuristicRewriter } from "../pipeline/query-rewriter.ts";
import type { ChatInput, ChatOutcome } from "../pipeline/types.ts";
import type { BookFile } from "../search/book-json.ts";
import { loadLanguages } from "../search/languages.ts";
import { LexicalIndex } from "../search/lexical-index.ts";
import { Retriever } from "../search/retriever.ts";
import { type SynonymEntries, Synonyms } from "../search/synonyms.ts";
import { bookSynopsis } from "./book-synopsis.ts";
import type { ShardedBook } from "./sharded-book.ts";

/**
 * The engine over one immutable book: search, the no-results decision and the extractive answer,
 * with no database, file, network or Node built-in. The server answers through the same pipeline
 * over its live index; a static build (`lectern build-static`) runs this module in the reader's
 * browser over the files the build wrote, so both give the same answer to the same question.
 */

/** How the book is searched and linked: what the server's config says, written with the book. */
export interface EngineSettings {
  topK: number;
  maxChunksPerPage: number;
  /** Where the docs are served ("/docs"): links to other versions' pages are made under it. */
  routeBasePath: string;
  /** Author-approved synonyms (reader phrase → the book's phrase or phrases). */
  synonyms?: SynonymEntries;
  /** Earlier exchanges a follow-up is read with (the server's history window). */
  historyWindow?: number;
  /** Where a static book posts readers' ratings (`build-static --feedback-url`); none: no thumbs. */
  feedbackUrl?: string;
}

/**
 * What the engine takes from where it runs: it reads no clock of its own. `now` (milliseconds
 * from any origin) times an answer's stages for its metadata; without it the timings are 0.
 */
export interface EngineHost {
  now?: () => number;
}

/** One book at one index version: its pages and chunks, its BM25 snapshot, its settings. */
export interface BookSnapshot {
  book: BookFile;
  /** The BM25 snapshot's JSON text (`LexicalIndex.snapshotPieces`, joined). */
  index: string;
  settings: EngineSettings;
}

/** A reader's question, as `/chat` takes it (without the session and the request's ids). */
export type EngineQuestion = Pick<ChatInput, "query"> &
  Partial<Pick<ChatInput, "selectedText" | "filters" | "topK" | "history" | "sourceUrl">>;

/** What the engine answers: the fields of a `/chat` reply that depend on the book alone. */
export type EngineAnswer = Pick<
  ChatOutcome,
  "answer" | "fallbackMessage" | "sources" | "mode" | "lowConfidence" | "confidence" | "suggestions"
>;

export interface Engine {
  readonly indexVersion: number;
  readonly book: BookFile;
  readonly index: LexicalIndex;
  readonly settings: EngineSettings;
  /** What the book is about: its overview, starter questions and parts. */
  readonly synopsis: Synopsis | undefined;
  ask(question: EngineQuestion): Promise<EngineAnswer>;
  /** A whole chat turn, as the server's pipeline runs it. */
  run(input: ChatInput): Promise<ChatOutcome>;
  /**
   * Runs work that reads the book or the index (a search as you type), fetching first what a
   * sharded book lacks for it: run, load the shards it missed, run again.
   */
  complete<T>(work: () => T | Promise<T>): Promise<T>;
}

/** Raised when a snapshot's BM25 index does not belong to its book (another build's files). */
export class SnapshotMismatchError extends Error {
  readonly code = "STATIC_BOOK_MISMATCH";
}

/** The engine over a snapshot; loads the stemmers of the book's locales first. */
export async function openEngine(snapshot: BookSnapshot, host: EngineHost = {}): Promise<Engine> {
  const { book, settings } = snapshot;
  await loadLanguages(book.locales ?? []);
  const index = LexicalIndex.fromSnapshot(snapshot.index, book.indexVersion, book.chunks);
  if (!index)
    throw new SnapshotMismatchError(
      `The search index is not the one of this book (index version ${book.indexVersion}): rebuild the static files.`,
    );
  const synopsis = bookSynopsis(book.pages, index.allChunks(), book.versions ?? []);
  return engineOver({ book, index, synopsis, settings }, async (work) => work(), host);
}

/** Most rounds of fetching a question may take before it is given up. */
const MAX_SHARD_ROUNDS = 16;

/**
 * The engine over a sharded book (see sharded-book.ts): each question runs over what is loaded;
 * when it read a shard that is not, `load` fetches every shard it recorded (and those it would
 * read next) and it runs again.
 */
export async function openShardedEngine(
  sharded: ShardedBook,
  settings: EngineSettings,
  load: (names: string[]) => Promise<void>,
  host: EngineHost = {},
): Promise<Engine> {
  await loadLanguages(sharded.book.locales ?? []);
  const completeNow = async <T>(work: () => T | Promise<T>): Promise<T> => {
    for (let round = 1; ; round++) {
      sharded.clear();
      try {
        return await work();
      } catch (error) {
        if (sharded.missing.size === 0 || round >= MAX_SHARD_ROUNDS) throw error;
      }
      await load(sharded.toFetch());
    }
  };
  // One at a time: what a run missed is recorded book-wide, so two runs at once would mix theirs.
  let queue: Promise<unknown> = Promise.resolve();
  const complete = <T>(work: () => T | Promise<T>): Promise<T> => {
    const done = queue.then(() => completeNow(work));
    queue = done.catch(() => undefined);
    return done;
  };
  const { book, index, synopsis } = sharded;
  return engineOver({ book, index, synopsis, settings }, complete, host);
}

function engineOver(
  parts: Pick<Engine, "book" | "index" | "synopsis" | "settings">,
  complete: Engine["complete"],
  host: EngineHost,
): Engine {
  const { book, index, settings, synopsis } = parts;
  const synonyms = new Synonyms(settings.synonyms ?? {});
  const retriever = new Retriever(index, {
    topK: settings.topK,
    maxChunksPerPage: settings.maxChunksPerPage,
    ...(synonyms.size > 0 ? { synonyms } : {}),
  });
  const view = viewOfIndex(index, {
    retriever,
    synopsis,
    versions: book.versions ?? [],
    locales: book.locales ?? [],
  });
  const pipeline = new ChatPipeline({
    book: () => view,
    synthesizer: new ExtractiveSynthesizer(),
    rewriter: new HeuristicRewriter(),
    routeBasePath: settings.routeBasePath,
    ...(host.now ? { now: host.now } : {}),
  });
  const run = (input: ChatInput) => complete(() => pipeline.run(input));
  let asked = 0;
  return {
    indexVersion: book.indexVersion,
    book,
    index,
    settings,
    synopsis,
    run,
    complete,
    async ask(question) {
      asked += 1;
      const outcome = await run(engineInput(question, asked));
      return {
        answer: outcome.answer,
        fallbackMessage: outcome.fallbackMessage,
        sources: outcome.sources,
        mode: outcome.mode,
        lowConfidence: outcome.lowConfidence,
        confidence: outcome.confidence,
        ...(outcome.suggestions ? { suggestions: outcome.suggestions } : {}),
      };
    },
  };
}

function engineInput(question: EngineQuestion, turn: number): ChatInput {
  return {
    requestId: `engine-${turn}`,
    sessionId: "engine",
    query: question.query,
    selectedText: question.selectedText ?? null,
    filters: question.filters,
    sourceUrl: question.sourceUrl ?? null,
    topK: question.topK,
    history: question.history ?? [],
  };
}
