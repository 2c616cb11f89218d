// Over 300 lines on purpose: the orchestrator's state machine reads top to bottom in one place, one outcome per route.
import type {
  Citation,
  Confidence,
  ResponseMode,
  SelectedTextCitation,
  SourceCitation,
} from "@lectern/protocol";
import { followUpQuestions, OVERVIEW_QUESTION } from "../answer/suggestions.ts";
import { namedInQuestion } from "../answer/word-classes.ts";
import type { ChunkRecord } from "../book/records.ts";
import { narrowsContent } from "../search/filters.ts";
import type { RetrievalResult, RetrievedChunk } from "../search/retriever.ts";
import { cutText } from "../util/cut-text.ts";
import { round } from "../util/numbers.ts";
import {
  type AnswerSynthesizer,
  emitInPieces,
  noResultsMessage,
  type SynthesisOutput,
  selectionSearch,
} from "./answer-synthesizer.ts";
import type { BookView } from "./book-view.ts";
import { type ModelFollowUps, mergeFollowUps } from "./follow-ups.ts";
import { onTheirPage } from "./named-heading.ts";
import { followUpContext, type QueryRewriter } from "./query-rewriter.ts";
import { routeQuery } from "./query-router.ts";
import { withListedSections } from "./reading-lists.ts";
import type { ChatInput, ChatOutcome, RequestState, RunOptions } from "./types.ts";
import { inSlice, otherVersionAnswer, versionScope } from "./version-scope.ts";

/** A source's snippet: the first 200 UTF-16 units of its text (the wire schema's maximum). */
const SNIPPET_UNITS = 200;

/** The clock of a pipeline given none: timings are 0, and nothing else depends on them. */
const noClock = () => 0;

/**
 * The orchestrator (the seeds' RAGChatAgent): QueryRouter → Retriever → AnswerSynthesizer, with
 * per-stage timings and the request state machine RECEIVED → RETRIEVING → GENERATING →
 * COMPLETED / FAILED. Failures propagate to the caller, which hands them to ErrorRecovery.
 */
export class ChatPipeline {
  constructor(
    private readonly deps: {
      /** The book at its current index version: read once per question (book-view.ts). */
      book: () => BookView;
      synthesizer: AnswerSynthesizer;
      rewriter?: QueryRewriter;
      /** Follow-up questions written by the model beside the answer (follow-ups.ts). */
      followUps?: ModelFollowUps;
      /** Where the docs are served: links to other versions' pages are made under it. */
      routeBasePath?: string;
      /**
       * The host's clock, in milliseconds from any origin, for the stage timings; the pipeline
       * reads none of its own, so without it every timing is 0.
       */
      now?: () => number;
    },
  ) {}

  /** The glossary pages of the filters' version (of the whole book without one). */
  private glossaryIn(book: BookView, filters: ChatInput["filters"]): string[] | undefined {
    const pages = book.glossaryPages?.();
    return pages && inSlice(filters, pages, (filePath) => filePath);
  }

  /** The sections headed so, in the filters' version only. */
  private sectionsHeadedIn(
    book: BookView,
    filters: ChatInput["filters"],
  ): (heading: string) => ChunkRecord[] {
    const sectionsHeaded = book.sectionsHeaded ?? (() => []);
    return (heading) => inSlice(filters, sectionsHeaded(heading), (chunk) => chunk.filePath);
  }

  /** The page lookup for the synthesizer: the one in memory, or the results' pages read now. */
  private async pageChunksFor(
    book: BookView,
    results: { chunk: ChunkRecord }[],
    glossaryPages: string[],
  ): Promise<((filePath: string) => ChunkRecord[]) | undefined> {
    if (book.pageChunks) return book.pageChunks;
    const loadPages = book.loadPages;
    if (!loadPages) return undefined;
    const filePaths = new Set([
      ...results.map((result) => result.chunk.filePath),
      ...glossaryPages,
    ]);
    const pages = await loadPages([...filePaths]);
    return (filePath) => pages.get(filePath) ?? [];
  }

  async run(input: ChatInput, options: RunOptions = {}): Promise<ChatOutcome> {
    const now = this.deps.now ?? noClock;
    const started = now();
    const book = this.deps.book();
    const states: RequestState[] = ["RECEIVED"];
    const timings: Record<string, number> = {};
    const time = async <T>(stage: string, work: () => Promise<T> | T): Promise<T> => {
      const stageStart = now();
      try {
        return await work();
      } finally {
        timings[stage] = round(now() - stageStart, 2);
      }
    };

    /** The version and locale the answer comes from, for the question log. */
    let slice: ChatOutcome["slice"];
    try {
      const versions = book.versions ?? [];
      const scope = versionScope(
        versions,
        input,
        this.deps.routeBasePath ?? "/docs",
        book.locales ?? [],
      );
      let filters = scope.filters;
      slice = sliceNames(scope.version?.name, scope.locale?.name);
      /** Said before the answer when it comes from another version than the reader's. */
      let notice: string | undefined;
      const routed = await time("route", () => routeQuery(input.query));
      const base = {
        route: routed.route,
        injectionFlagged: routed.injectionFlagged,
        searchQuery: null as string | null,
        support: undefined as number | undefined,
        signals: undefined as RetrievalResult["signals"] | undefined,
        unknownWords: undefined as string[] | undefined,
        degraded: false,
      };
      /** The unknown words a refusal names: those the question uses as nouns. */
      let named: string[] | undefined;
      const history = input.history ?? [];
      /** An answer the router or the synopsis gives without searching. */
      const answerDirectly = async (
        answer: string,
        sources: SourceCitation[],
        suggestions: string[] = [],
        quotedResults: RetrievedChunk[] = [],
      ) => {
        states.push("GENERATING");
        await emitInPieces(answer, options);
        states.push("COMPLETED");
        return finish({
          ...base,
          ...(suggestions.length > 0 ? { suggestions } : {}),
          sourceChunks: chunkRefs(quotedResults),
          answer,
          fallbackMessage: null,
          sources,
          mode: "full",
          lowConfidence: false,
          confidence: "high",
          retrievalCount: sources.length,
        });
      };
      const noResults = (answer: string | null, retrievalCount: number) =>
        finish({
          ...base,
          answer,
          fallbackMessage: noResultsMessage(named),
          sources: [],
          mode: "no_results",
          lowConfidence: false,
          confidence: "low",
          retrievalCount,
        });
      const searchOptions = {
        ...(input.topK ? { topK: input.topK } : {}),
        ...(filters ? { filters } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      };

      if (routed.reply && input.selectedText === null) {
        return await answerDirectly(routed.reply, []);
      }

      const synopsis = routed.route === "overview" ? book.synopsis : undefined;
      if (synopsis && input.selectedText === null) {
        const intro = { chunk: synopsis.intro, score: 1, similarityScore: 1, coverage: 1 };
        // Having read what the book is about, a reader picks a part to start with.
        const starters = synopsis.starters.filter((question) => question !== OVERVIEW_QUESTION);
        return await answerDirectly(synopsis.text, [toCitation(intro, 0)], starters, [intro]);
      }
      // Anything not answered by the routes above is a question about the book (a greeting sent
      // with a selection is answered from the selection).
      base.route = "question";

      if (input.selectedText !== null) {
        // Selected-text mode: the answer comes from the selection, and from the book around it when
        // the question goes beyond the selection (the selection is [1], book passages [2], [3], …).
        // The selection alone unless the client asks for the book around it too: then the
        // book is searched with the selection's words.
        let bookResults: RetrievedChunk[] = [];
        if (input.bookAroundSelection) {
          states.push("RETRIEVING");
          const { query, context } = selectionSearch(routed.normalized, input.selectedText);
          const around = await time("retrieve", () =>
            book.retriever.search(query, { ...searchOptions, context }),
          );
          if (options.signal?.aborted) throw abortError();
          if (around.decision === "answer") bookResults = around.results;
        }
        states.push("GENERATING");
        // As for any question, other chunks of a result's page may be quoted (the code after a
        // sentence, the start of a section), unless a section filter rules them out; "what does X
        // mean" looks in the glossary and the sections headed X too.
        const glossaryPages =
          narrowsContent(filters) || bookResults.length === 0
            ? undefined
            : this.glossaryIn(book, filters);
        const pageChunks =
          input.filters?.section || bookResults.length === 0
            ? undefined
            : await this.pageChunksFor(book, bookResults, glossaryPages ?? []);
        const output = await time("generate", () =>
          this.deps.synthesizer.synthesize(
            {
              question: routed.normalized,
              results: bookResults,
              selectedText: input.selectedText,
              history,
              ...(pageChunks ? { pageChunks } : {}),
              ...(glossaryPages?.length ? { glossaryPages } : {}),
              ...(book.sectionsHeaded && !narrowsContent(filters) && bookResults.length > 0
                ? { sectionsHeaded: this.sectionsHeadedIn(book, filters) }
                : {}),
              ...(book.idf ? { idf: book.idf } : {}),
            },
            options,
          ),
        );
        const usedBook = (output.citedNumbers ?? []).some((number) => number >= 2);
        const citation: SelectedTextCitation = {
          source_type: "selected_text",
          selection_length: input.selectedText.length,
          snippet: cutText(input.selectedText, SNIPPET_UNITS),
          relevance_note: output.answeredFromSelection
            ? "The answer quotes the sentences of the selection that match the question."
            : usedBook
              ? "The answer quotes the book around the selection."
              : "The selection does not contain the answer to this question.",
          source_url: input.sourceUrl,
          citation_number: 1,
        };
        // Chunks the answer quotes beyond the results follow them, as for any question.
        const { quoted: quotedBook, sources: bookSources } = usedBook
          ? quotedSources(bookResults, output, 1)
          : { quoted: [], sources: [] };
        const answered = output.answeredFromSelection || usedBook;
        states.push("COMPLETED");
        return finish({
          ...base,
          degraded: output.degraded ?? false,
          answer: output.answer,
          fallbackMessage: output.fallbackMessage,
          sources: [citation, ...bookSources],
          sourceChunks: chunkRefs(quotedBook),
          // An answer that quotes only the book says so: its mode is the book answer's.
          mode: usedBook && !output.answeredFromSelection ? bookMode(output) : "selected_text",
          lowConfidence: !answered,
          confidence: answered ? "high" : "low",
          retrievalCount: usedBook ? bookResults.length : 0,
        });
      }

      // A follow-up is searched as a standalone question: rewritten by the model when one is
      // configured; otherwise the previous question's words join the search at a lower weight
      // when the new one leans on it (pronouns, very short) or finds little on its own.
      const useModelRewrite = history.length > 0 && this.deps.rewriter?.kind === "model";
      const searchQuery = useModelRewrite
        ? await time(
            "rewrite",
            () =>
              this.deps.rewriter?.rewrite(routed.normalized, history, options.signal) ??
              routed.normalized,
          )
        : routed.normalized;
      const context =
        history.length > 0 && !useModelRewrite
          ? followUpContext(routed.normalized, history)
          : undefined;
      states.push("RETRIEVING");
      const searchWith = (withContext: string | undefined) =>
        book.retriever.search(searchQuery, {
          ...searchOptions,
          ...(withContext ? { context: withContext } : {}),
        });
      // Both searches are kept apart and the better supported one wins: the earlier words can
      // pull a follow-up back to the earlier topic ("…without mutating it then?" after a
      // question about re-rendering) as easily as they can complete it.
      let retrieval: RetrievalResult = await time("retrieve", () =>
        searchWith(context?.dependent ? context.text : undefined),
      );
      if (context?.dependent) {
        const alone = await time("retrieve", () => searchWith(undefined));
        if (alone.signals.support > retrieval.signals.support) retrieval = alone;
      } else if (context && isWeak(retrieval)) {
        const withContext = await time("retrieve", () => searchWith(context.text));
        if (withContext.signals.support > retrieval.signals.support) retrieval = withContext;
      }
      // Only a versioned book has other versions to look in (and a stage to time for it).
      const elsewhere =
        scope.version &&
        (await time("retrieve_other_version", () =>
          otherVersionAnswer(versions, scope, retrieval, (scoped) =>
            book.retriever.search(searchQuery, {
              ...(input.topK ? { topK: input.topK } : {}),
              ...(scoped ? { filters: scoped } : {}),
              ...(options.signal ? { signal: options.signal } : {}),
              ...(retrieval.context ? { context: retrieval.context } : {}),
            }),
          ),
        ));
      if (elsewhere) {
        retrieval = elsewhere.retrieval;
        filters = elsewhere.filters;
        notice = elsewhere.notice;
        slice = sliceNames(elsewhere.version.name, scope.locale?.name);
      }
      base.searchQuery = retrieval.context
        ? `${stripEnd(searchQuery)} (${stripEnd(retrieval.context)})`
        : searchQuery;
      base.support = retrieval.signals.support;
      base.signals = retrieval.signals;
      base.unknownWords = retrieval.unknownWords;
      const unknown = retrieval.unknownWords;
      // A refusal names the question's nouns the book never uses, so the reader sees why. An
      // answer does not: in front of answers it was right as often as wrong (docs/retrieval.md).
      const nameUnknown = async () => {
        if (unknown?.length)
          named = await time("unknown_words", () => namedInQuestion(unknown, retrieval.query));
      };
      if (options.signal?.aborted) throw abortError();

      if (retrieval.decision === "no_results") {
        await nameUnknown();
        states.push("GENERATING");
        states.push("COMPLETED");
        return noResults(null, retrieval.results.length);
      }

      states.push("GENERATING");
      // The glossary may lie outside what a filter allows: only unfiltered questions look there.
      const glossaryPages = narrowsContent(filters) ? undefined : this.glossaryIn(book, filters);
      // Other chunks of a result's page may be quoted, unless a section filter rules them out.
      const pageChunks = input.filters?.section
        ? undefined
        : await this.pageChunksFor(book, retrieval.results, glossaryPages ?? []);
      if (pageChunks) {
        retrieval = { ...retrieval, results: withListedSections(retrieval.results, pageChunks) };
      }
      // Written beside the answer, from the same passages, so that the answer seldom waits.
      const beside = this.deps.followUps?.beside(
        { question: routed.normalized, results: retrieval.results },
        options,
      );
      const followUps = beside?.pending;
      if (notice) options.onDelta?.(`${notice}\n\n`);
      const output = await time("generate", () =>
        this.deps.synthesizer.synthesize(
          {
            question: routed.normalized,
            results: retrieval.results,
            selectedText: null,
            history,
            ...(pageChunks ? { pageChunks } : {}),
            ...(glossaryPages?.length ? { glossaryPages } : {}),
            // Like the glossary, they may lie outside what a filter allows.
            ...(book.sectionsHeaded && !narrowsContent(filters)
              ? { sectionsHeaded: this.sectionsHeadedIn(book, filters) }
              : {}),
            ...(retrieval.context ? { context: retrieval.context } : {}),
            ...(book.idf ? { idf: book.idf } : {}),
          },
          beside?.options ?? options,
        ),
      ).catch((error: unknown) => {
        followUps?.cancel();
        throw error;
      });
      // The notice was streamed first: the answer holds it too.
      if (notice && output.answer !== null) output.answer = `${notice}\n\n${output.answer}`;
      if (output.mode === "no_results") {
        // The model read the passages and found no answer in them.
        followUps?.cancel();
        await nameUnknown();
        states.push("COMPLETED");
        return noResults(output.answer, retrieval.results.length);
      }
      const { quoted, sources } = quotedSources(retrieval.results, output, 0);
      // What to ask next follows on from the section the reader read first.
      const first = (firstCited(output.answer, quoted) ?? retrieval.results[0])?.chunk;
      const fromBook =
        first && book.pageChunks
          ? onTheirPage(
              followUpQuestions(first, book.pageChunks(first.filePath), 3, shownSections(sources)),
              first,
              book.sectionsHeaded,
            )
          : [];
      const suggestions = followUps
        ? mergeFollowUps(
            await time("follow_ups", () => followUps.settle()),
            fromBook,
            routed.normalized,
          )
        : fromBook;
      states.push("COMPLETED");
      return finish({
        ...base,
        ...(suggestions.length > 0 ? { suggestions } : {}),
        degraded: output.degraded ?? false,
        answer: output.answer,
        fallbackMessage: output.fallbackMessage,
        sources,
        sourceChunks: chunkRefs(quoted),
        mode: output.mode,
        lowConfidence: retrieval.lowConfidence,
        // How well retrieval matched, whatever the answer added.
        confidence: confidenceOf(sources.slice(0, retrieval.results.length)),
        retrievalCount: retrieval.results.length,
      });
    } catch (error) {
      states.push("FAILED");
      (error as { pipelineStates?: RequestState[] }).pipelineStates = states;
      throw error;
    }

    function finish(outcome: Omit<ChatOutcome, "timings" | "states">): ChatOutcome {
      timings.total = round(now() - started, 2);
      return { ...outcome, ...(slice ? { slice } : {}), timings, states };
    }
  }
}

/** Too little found to trust the question alone: refused, or only a loose match. */
/**
 * The results and the chunks an answer quotes beyond them, numbered on after `offset` earlier
 * sources (the selection); the latter's shown score is capped at the last result's, so sources
 * stay listed best first. A quote from a section merged into its chunk links to that section.
 */
function quotedSources(
  results: RetrievedChunk[],
  output: SynthesisOutput,
  offset: number,
): { quoted: RetrievedChunk[]; sources: SourceCitation[] } {
  const cited = output.citedNumbers ? new Set(output.citedNumbers) : undefined;
  const lowest = results.at(-1)?.similarityScore ?? 0;
  const quoted = [
    ...results,
    ...(output.extraSources ?? []).map((extra) => ({
      ...extra,
      similarityScore: Math.min(extra.similarityScore, lowest),
    })),
  ];
  const sections = new Map(
    (output.quotedSections ?? []).map((section) => [section.citation, section]),
  );
  const quotes = new Map((output.quotes ?? []).map((quote) => [quote.citation, quote.text]));
  const sources = quoted.map((result, index) => {
    const number = index + 1 + offset;
    const section = sections.get(number);
    const quote = quotes.get(number);
    // Set on the citation as made: its fields keep their order, and no copy is made of it.
    const citation = toCitation(result, index + offset);
    if (section) {
      citation.source_url = section.url;
      citation.section = section.section;
      citation.section_path = section.headingPath;
    }
    // The snippet starts at what the answer quoted: the link's text fragment is taken from it.
    if (quote) citation.snippet = cutText(quote, SNIPPET_UNITS);
    if (cited) citation.cited = cited.has(number);
    return citation;
  });
  return { quoted, sources };
}

/** The sections an answer cites (all its sources when it says nothing of which it cites). */
function shownSections(sources: SourceCitation[]): string[] {
  return sources.flatMap((source) =>
    "section" in source && source.cited !== false && source.section ? [source.section] : [],
  );
}

/** The source of the answer's first `[n]`, if it names one. */
function firstCited(answer: string | null, quoted: RetrievedChunk[]): RetrievedChunk | undefined {
  const number = Number(/\[(\d+)\]/.exec(answer ?? "")?.[1] ?? 0);
  return number > 0 ? quoted[number - 1] : undefined;
}

function isWeak(retrieval: RetrievalResult): boolean {
  return retrieval.decision === "no_results" || retrieval.lowConfidence;
}

function stripEnd(text: string): string {
  return text.replace(/[?!.]+$/, "").trim();
}

/** The mode of an answer from the book: quoted (no model, or the model failed) or the model's. */
function bookMode(output: { fallbackMessage: string | null; degraded?: boolean }): ResponseMode {
  return output.fallbackMessage !== null || output.degraded ? "retrieval_only" : "full";
}

function sliceNames(version: string | undefined, locale: string | undefined): ChatOutcome["slice"] {
  if (version === undefined && locale === undefined) return undefined;
  return {
    ...(version !== undefined ? { version } : {}),
    ...(locale !== undefined ? { locale } : {}),
  };
}

function chunkRefs(results: RetrievedChunk[]): { id: string; contentHash: string }[] {
  return results.map((result) => ({ id: result.chunk.id, contentHash: result.chunk.contentHash }));
}

export function toCitation(result: RetrievedChunk, index: number): SourceCitation {
  return {
    source_type: "book",
    source_url: result.chunk.url,
    title: result.chunk.title,
    section: result.chunk.section,
    chunk_position: result.chunk.chunkIndex,
    similarity_score: result.similarityScore,
    snippet: cutText(result.chunk.text, SNIPPET_UNITS),
    file_path: result.chunk.filePath,
    section_path: result.chunk.headingPath,
    citation_number: index + 1,
  };
}

/**
 * Seed S4's confidence rule: high when the top source scores above 0.75 and there are at least two
 * sources; medium when the mean score is above 0.5; low otherwise (and with no sources).
 */
export function confidenceOf(sources: Citation[]): Confidence {
  const scores = sources.map((source) =>
    "similarity_score" in source ? source.similarity_score : 0,
  );
  if (scores.length === 0) return "low";
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  if ((scores[0] ?? 0) > 0.75 && scores.length >= 2) return "high";
  if (mean > 0.5) return "medium";
  return "low";
}

function abortError(): Error {
  const error = new Error("The request was cancelled.");
  error.name = "AbortError";
  return error;
}
