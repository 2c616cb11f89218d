import type { ResponseMode } from "@lectern/protocol";
import { bestLead, definitionSubject, type Lead, quoteSelection } from "../answer/lead.ts";
import {
  CARD_WEIGHTS,
  type CardWeights,
  holdsPassage,
  questionWords,
  rankedSections,
  renderCard,
  type ScoredSection,
  sectionsOf,
  squeezed,
} from "../answer/section-card.ts";
import { renderBlock } from "../book/chunk-blocks.ts";
import type { ChunkRecord } from "../book/records.ts";
import { analyze, analyzeQuery, headingKey } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import { nextTurn } from "../util/next-turn.ts";
import { namedHeading } from "./named-heading.ts";
import type { Exchange, RunOptions } from "./types.ts";

/**
 * AnswerSynthesizer: turns retrieved passages (or the reader's selection) into the answer text.
 * The extractive synthesizer quotes the book; a language-model synthesizer slots in behind the
 * same interface.
 */

export interface SynthesisInput {
  question: string;
  results: RetrievedChunk[];
  selectedText: string | null;
  /** Earlier exchanges of the session, oldest first. */
  history?: Exchange[];
  /** The chunks of a page in page order, for answers that quote a result's page beyond the result. */
  pageChunks?: (filePath: string) => ChunkRecord[];
  /** The book's glossary pages, where a definition question also looks up its term. */
  glossaryPages?: string[];
  /** The chunks opening a page or section titled exactly a definition question's subject. */
  sectionsHeaded?: (heading: string) => ChunkRecord[];
  /** The earlier question the results were searched with, for a follow-up that leans on it. */
  context?: string;
  /** The book's inverse document frequency of an analysed term, to weigh the question's words. */
  idf?: (term: string) => number;
}

export interface SynthesisOutput {
  answer: string | null;
  fallbackMessage: string | null;
  mode: ResponseMode;
  /** Whether the answer draws on the selection (selected-text mode). */
  answeredFromSelection?: boolean;
  /** 1-based source numbers the answer cites; undefined when not tracked. */
  citedNumbers?: number[];
  /** True when a model was configured but the answer fell back to quoting the book. */
  degraded?: boolean;
  /**
   * Chunks the answer quotes that are not among `results`: they are listed as sources after the
   * results, cited in this order with the numbers that follow.
   */
  extraSources?: RetrievedChunk[];
  /** Citations whose quote sits in a section merged into the chunk: the section to link to. */
  quotedSections?: QuotedSection[];
  /**
   * The passage each citation points at on the page (the card's sentence in bold, the lead
   * passage): its source's snippet starts there, so the link's text fragment highlights what the
   * answer quoted rather than the start of the chunk (a neighbouring section, or an overlap).
   */
  quotes?: CitedQuote[];
}

/** The section of a chunk an answer quotes, for the citation `citation`. */
export interface QuotedSection {
  citation: number;
  /** The page URL with the section's anchor. */
  url: string;
  section: string;
  headingPath: string[];
}

export interface CitedQuote {
  citation: number;
  text: string;
}

export interface AnswerSynthesizer {
  readonly kind: string;
  synthesize(input: SynthesisInput, options?: RunOptions): Promise<SynthesisOutput>;
}

export const EXTRACTIVE_FALLBACK_MESSAGE =
  "AI summarisation is not configured, so this answer quotes the most relevant passages of the book.";
export const NO_RESULTS_MESSAGE =
  "I couldn't find this in the book. Try rephrasing the question, or ask about a topic the book covers.";
export const SELECTION_UNANSWERABLE_MESSAGE =
  "This question cannot be answered from the selected text. Ask without a selection to search the whole book.";

/** Words that ask about the selection itself ("explain this in simpler terms") rather than a topic. */
const DEICTIC_WORDS = new Set(
  analyze(
    "explain explanation clarify simplify simpler simple terms mean meaning means summarize summarise summary tl dr elaborate detail details say says said passage selection selected text paragraph sentence part bit example examples please tell describe understand rephrase words plain english give show another again go expand break analogy eli5 layman easier",
  ),
);

export class ExtractiveSynthesizer implements AnswerSynthesizer {
  readonly kind = "extractive";

  /** `card`: the section card's weights (section-card.ts); the fit in `eval:dev` passes others. */
  constructor(private readonly card: CardWeights = CARD_WEIGHTS) {}

  async synthesize(input: SynthesisInput, options: RunOptions = {}): Promise<SynthesisOutput> {
    if (input.selectedText !== null) return this.fromSelection(input, options);
    const quoted = sectionAnswer(input, this.card);
    const { extraSources, quotedSections, text } = quoted;
    await emitInPieces(text, options);
    return {
      answer: text,
      fallbackMessage: EXTRACTIVE_FALLBACK_MESSAGE,
      mode: "retrieval_only",
      citedNumbers: quoted.cited,
      ...(extraSources.length > 0 ? { extraSources } : {}),
      ...(quotedSections.length > 0 ? { quotedSections } : {}),
      ...(quoted.quotes.length > 0 ? { quotes: quoted.quotes } : {}),
    };
  }

  /**
   * Selected-text mode. Citation [1] is the selection; the book passages retrieved for the
   * question, when there are any, follow it as [2], [3], … (result i is cited as [i + 2]).
   *
   * - A question about the selection ("explain this") or whose topic words the selection contains
   *   is answered by quoting the selection's most relevant 2–3 sentences, never the whole of it.
   * - A question whose topic words the selection mostly lacks is answered from the book passages.
   * - When neither has the words, SELECTION_UNANSWERABLE_MESSAGE.
   */
  private async fromSelection(
    input: SynthesisInput,
    options: RunOptions,
  ): Promise<SynthesisOutput> {
    const selection = input.selectedText ?? "";
    const topicTerms = analyzeQuery(input.question).words.filter(
      (term) => !DEICTIC_WORDS.has(term),
    );
    const selectionTerms = new Set(analyze(selection));
    const inSelection = topicTerms.filter((term) => selectionTerms.has(term)).length;
    const aboutSelection = topicTerms.length === 0 || inSelection * 2 >= topicTerms.length;
    const answer = async (
      text: string,
      fallbackMessage: string | null,
      answeredFromSelection: boolean,
      book?: BookAnswer,
    ): Promise<SynthesisOutput> => {
      await emitInPieces(text, options);
      return {
        answer: text,
        fallbackMessage,
        mode: "selected_text",
        answeredFromSelection,
        citedNumbers: book ? book.cited : answeredFromSelection ? [1] : [],
        ...(book?.extraSources.length ? { extraSources: book.extraSources } : {}),
        ...(book?.quotedSections.length ? { quotedSections: book.quotedSections } : {}),
        ...(book?.quotes.length ? { quotes: book.quotes } : {}),
      };
    };
    const fromTheBook = (book: BookAnswer) =>
      answer(book.text, EXTRACTIVE_FALLBACK_MESSAGE, false, book);

    // The book's sections are weighed with the selection's words, together as much as the
    // question's own: the question leans on it ("Why can it not be solved directly?" after a
    // sentence on inverse kinematics, "How do I fix it?"). The lead never quotes the selection.
    const search = selectionSearch(input.question, selection);
    // Worked out once, whichever of the cases below asks for it first.
    let bookAnswer: BookAnswer | undefined;
    const fromBook = () =>
      (bookAnswer ??= sectionAnswer({ ...input, question: search.query }, this.card, {
        offset: 1,
        avoid: selection,
        // None for "what does X mean?": it names all it asks about (see selectionSearch).
        ...(search.context
          ? { aside: { text: search.context, share: SELECTION_CONTEXT_SHARE } }
          : {}),
      }));
    if (!aboutSelection && input.results.length > 0) {
      const book = fromBook();
      // A section holding none of the question's words does not answer: the selection may.
      if (book.matched) return fromTheBook(book);
    }
    // "Explain this", "give me an example", "what does X mean": the reader has the selection in
    // front of them, so its own sentences explain nothing; the book around it, or the section
    // saying what X is, does, when the book may answer.
    if (explainsSelection(input.question, topicTerms) && input.results.length > 0) {
      const book = fromBook();
      if (book.matched && !echoes(book.text, selection)) return fromTheBook(book);
    }
    const quoted =
      topicTerms.length === 0 || inSelection > 0
        ? quoteSelection(
            selection,
            topicTerms.filter((term) => selectionTerms.has(term)),
          )
        : null;
    if (!quoted) return answer(SELECTION_UNANSWERABLE_MESSAGE, null, false);
    // Quoting all of a short selection back tells the reader nothing they have not read: the book
    // around it answers instead ("What does transient-local durability mean?" about a sentence
    // that only uses the term), when it holds a passage that is not the selection itself.
    if (echoes(quoted, selection) && input.results.length > 0) {
      const book = fromBook();
      if (book.matched && !echoes(book.text, selection)) return fromTheBook(book);
    }
    return answer(`${quoted} [1]`, EXTRACTIVE_FALLBACK_MESSAGE, true);
  }
}

/**
 * The answer when no model writes one: the lead passage (lead.ts) and the best section of the
 * results shown whole (section-card.ts), and a second section when it comes close. The lead is
 * marked in the card when the card holds it, and quoted before the card under its own heading path
 * otherwise. A card's citation links to its section when that is merged into its chunk.
 */
export function sectionAnswer(
  input: SynthesisInput,
  weights: CardWeights = CARD_WEIGHTS,
  options: SectionAnswerOptions = {},
): BookAnswer {
  const answer: BookAnswer = {
    text: "",
    cited: [],
    extraSources: [],
    quotedSections: [],
    quotes: [],
    matched: false,
  };
  if (input.results.length === 0) return answer;
  const idf = input.idf ?? resultsIdf(input.results);
  const question = options.aside
    ? questionWords(input.question, idf, options.aside)
    : questionWords(input.context ? `${input.question} ${input.context}` : input.question, idf);
  const found = rankedSections(input.results, question, weights, input.pageChunks);
  // A question naming a section by its heading (a suggested one) is answered by that section.
  const named = found[0] ? namedSections(input, found, found[0]) : [];
  const ranked =
    named.length > 0 ? [...named, ...found.filter((entry) => !named.includes(entry))] : found;
  const best = ranked[0];
  if (!best) return answer;
  const subject = definitionSubject(input.question);
  const candidates =
    named.length > 0 ? named : leadCandidates(input, ranked, best, subject, weights);
  const lead = bestLead(candidates, question, subject, weights, options.avoid);
  answer.matched = lead !== undefined;
  const leadText = lead?.sentences.join(" ");
  const apart = lead !== undefined && lead.section.section !== best.section;
  const shown = closeSections(ranked, weights, apart ? leadText : undefined);
  const numberOf = (shown: ScoredSection) =>
    citationOf(shown, input.results.length, answer.extraSources) + (options.offset ?? 0);
  const parts: string[] = [];
  if (lead && apart && leadText) {
    const citation = numberOf(lead.section);
    cite(answer, lead.section, citation, leadText);
    parts.push(renderLead(lead, citation));
  }
  const budgets = [
    shown.length > 0 ? weights.maxWords - weights.secondWords : weights.maxWords,
    weights.secondWords,
    weights.thirdWords,
  ];
  for (const [index, entry] of [best, ...shown].entries()) {
    const citation = numberOf(entry);
    const card = renderCard(
      entry.section,
      citation,
      question,
      { ...weights, maxWords: budgets[index] ?? weights.thirdWords },
      !apart && index === 0 ? leadText : undefined,
      options.avoid,
    );
    cite(answer, entry, citation, card.highlight);
    // A card cut for length links to the whole section on its page.
    const link = entry.section.url.replace(/[\s()]/g, encodeURIComponent);
    parts.push(card.cut ? `${card.text}\n\n[${WHOLE_SECTION}](${link})` : card.text);
  }
  answer.text = parts.join("\n\n");
  answer.cited = [...new Set(answer.cited)];
  return answer;
}

/**
 * The lead's candidates: the first `leadSections` ranked sections and, for "what is X", the
 * sections where the book says what X is (in place of their ranked entries).
 */
function leadCandidates(
  input: SynthesisInput,
  ranked: ScoredSection[],
  best: ScoredSection,
  subject: string,
  weights: CardWeights,
): ScoredSection[] {
  const defining = definingSections(input, subject, best);
  const boosted = new Set(defining.map((entry) => entry.section.chunk.id));
  return [
    ...ranked
      .slice(0, weights.leadSections)
      .filter((entry) => !boosted.has(entry.section.chunk.id)),
    ...defining,
  ];
}

/**
 * The sections whose heading the question names whole (named-heading.ts): the X of "What should
 * I know about X?", the question the book's suggestions ask about a heading, on the page they
 * name if they do, or the whole question. Sections headed X come first, then those holding X as
 * a sub-heading (a page's opening keeps its sub-sections on its card); ranked ones keep their
 * place, and one found only by its heading (sectionsHeaded) stands as high as the best section.
 */
function namedSections(
  input: SynthesisInput,
  ranked: ScoredSection[],
  best: ScoredSection,
): ScoredSection[] {
  const { heading, page } = namedHeading(input.question);
  // The book's table of headings (sub-headings too) answers at once for most questions: no.
  const chunks = input.sectionsHeaded?.(heading);
  if (chunks?.length === 0) return [];
  const key = headingKey(heading);
  if (!key) return [];
  const headedSo = (entry: ScoredSection) => headingKey(entry.section.section) === key;
  const holding = (entry: ScoredSection) =>
    entry.section.blocks.some(
      (block) => block.kind === "heading" && headingKey(block.text) === key,
    );
  let headed: ScoredSection[] | undefined;
  const headedInBook = () =>
    (headed ??= (chunks ?? []).flatMap((chunk) => {
      const source = input.results.findIndex((result) => result.chunk.id === chunk.id);
      return sectionsOf(chunk, source).map((section) => ({
        section,
        score: best.score,
        similarity: best.similarity,
      }));
    }));
  // The page the question names first (a suggestion about a heading several pages share).
  const onPage = (entry: ScoredSection) => entry.section.chunk.title === page;
  for (const within of page === undefined ? [() => true] : [onPage, () => true])
    for (const names of [headedSo, holding])
      for (const pool of [() => ranked, headedInBook]) {
        const found = pool().filter((entry) => names(entry) && within(entry));
        if (found.length > 0) return found.slice(0, MAX_HEADED_SECTIONS);
      }
  return [];
}

/** The lead quoted before the card: its section's heading path, the passage, what it introduces. */
function renderLead(lead: Lead, citation: number): string {
  const path = lead.section.section.headingPath.filter((heading) => heading.trim()).join(" › ");
  return [
    ...(path ? [`**${path}**`] : []),
    `${lead.sentences.join(" ")} [${citation}]`,
    ...(lead.attached ? [renderBlock(lead.attached)] : []),
  ].join("\n\n");
}

/**
 * Records a citation of a shown section: its anchor when the section is merged into its chunk,
 * and the passage its link highlights (the first one given for that citation).
 */
function cite(
  answer: BookAnswer,
  shown: ScoredSection,
  citation: number,
  quote: string | undefined,
): void {
  const { section } = shown;
  if (section.merged && !answer.quotedSections.some((quoted) => quoted.citation === citation))
    answer.quotedSections.push({
      citation,
      url: section.url,
      section: section.section,
      headingPath: section.headingPath,
    });
  if (quote && !answer.quotes.some((quoted) => quoted.citation === citation))
    answer.quotes.push({ citation, text: asOnThePage(quote) });
  answer.cited.push(citation);
}

/**
 * For "what is X", the sections where a book says what X is, ranked or not: the opening of each
 * result's page, the sections headed X anywhere in the book, and the glossary's entries. They
 * stand as high as the best section, so the definition's own strength decides.
 */
function definingSections(
  input: SynthesisInput,
  subject: string,
  best: ScoredSection,
): ScoredSection[] {
  if (!subject) return [];
  const pages = [...new Set(input.results.map((result) => result.chunk.filePath))];
  const chunks = [
    ...pages.flatMap((page) => input.pageChunks?.(page).slice(0, 1) ?? []),
    ...(input.sectionsHeaded?.(subject) ?? []).slice(0, MAX_HEADED_SECTIONS),
    ...(input.glossaryPages ?? []).flatMap((page) => input.pageChunks?.(page) ?? []),
  ];
  const known = new Set<string>();
  const found: ScoredSection[] = [];
  for (const chunk of chunks) {
    if (known.has(chunk.id)) continue;
    known.add(chunk.id);
    // A result keeps its own number; another chunk is a source of its own after the results.
    const source = input.results.findIndex((result) => result.chunk.id === chunk.id);
    for (const section of sectionsOf(chunk, source))
      found.push({ section, score: best.score, similarity: best.similarity });
  }
  return found;
}

/** What `sectionAnswer` quotes: its text, the citations, the sources and sections it adds. */
export interface BookAnswer {
  text: string;
  /** Citation numbers the text uses. */
  cited: number[];
  /**
   * Chunks the answer quotes that are not among the results, in citation order: the first is
   * cited as [results.length + 1 + offset], the next one after it.
   */
  extraSources: RetrievedChunk[];
  /** Citations whose quote sits in a section merged into its chunk: the section to link to. */
  quotedSections: QuotedSection[];
  quotes: CitedQuote[];
  /** Whether a passage of the book holds any of the question's words (a lead was found). */
  matched: boolean;
}

export interface SectionAnswerOptions {
  /** Added to every citation number: a selection is [1] and the book's sources follow it. */
  offset?: number;
  /** Text the lead may not quote (the reader's selection, in front of them). */
  avoid?: string;
  /** The selection a question is about, weighed beside the question (see `questionWords`). */
  aside?: { text: string; share: number };
}

/** The link under a card cut for length, to the whole section on the book's page. */
export const WHOLE_SECTION = "The whole section";

/** Sections headed by a definition question's subject that join the lead's candidates. */
const MAX_HEADED_SECTIONS = 2;

/**
 * The sections shown after the best one: the next best that score within `weights.second` of it,
 * a second and, with `weights.thirdWords`, a third. Each is in a chunk of its own (a sibling
 * packed with a shown one shares its search score, so it would nearly always come close), is
 * another section, and does not hold the lead passage (shown).
 */
function closeSections(
  ranked: ScoredSection[],
  weights: CardWeights,
  leadPassage: string | undefined,
): ScoredSection[] {
  const [best, ...rest] = ranked;
  if (!best || weights.second <= 0) return [];
  const lead = leadPassage === undefined ? undefined : squeezed(leadPassage);
  const most = weights.thirdWords > 0 ? 2 : 1;
  const shown = [best];
  for (const candidate of rest) {
    if (shown.length > most || candidate.score < weights.second * best.score) break;
    const apart = shown.every(
      (entry) =>
        candidate.section.chunk.id !== entry.section.chunk.id &&
        candidate.section.url !== entry.section.url,
    );
    if (apart && !(lead && holdsPassage(candidate.section, lead))) shown.push(candidate);
  }
  return shown.slice(1);
}

/**
 * What a model answers from: the results, then the chunks of the card's best-ranked sections that
 * are not results (up to `weights.modelSections`), best first. A model reads the sections an
 * extractive answer would show as well as what the search returned.
 */
export function modelSources(
  input: SynthesisInput,
  weights: CardWeights = CARD_WEIGHTS,
): RetrievedChunk[] {
  if (input.results.length === 0 || !input.pageChunks || weights.modelSections < 1)
    return input.results;
  const idf = input.idf ?? resultsIdf(input.results);
  const question = questionWords(
    input.context ? `${input.question} ${input.context}` : input.question,
    idf,
  );
  const extra: RetrievedChunk[] = [];
  for (const { section, similarity } of rankedSections(
    input.results,
    question,
    weights,
    input.pageChunks,
  ).slice(0, weights.modelSections)) {
    if (section.source >= 0 || extra.some((known) => known.chunk.id === section.chunk.id)) continue;
    extra.push({ chunk: section.chunk, score: 0, similarityScore: similarity, coverage: 0 });
  }
  return [...input.results, ...extra];
}

/**
 * The citation of a shown section: its result's number, or, for a section from another chunk of
 * a result's page, a source of its own after the results (added to `extraSources` once).
 */
function citationOf(
  shown: ScoredSection,
  resultCount: number,
  extraSources: RetrievedChunk[],
): number {
  if (shown.section.source >= 0) return shown.section.source + 1;
  const known = extraSources.findIndex((extra) => extra.chunk.id === shown.section.chunk.id);
  if (known >= 0) return resultCount + known + 1;
  extraSources.push({
    chunk: shown.section.chunk,
    score: 0,
    similarityScore: shown.similarity,
    coverage: 0,
  });
  return resultCount + extraSources.length;
}

/** A quote's text as the page shows it: a link is its words (a text fragment matches those). */
function asOnThePage(text: string): string {
  return text.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
}

/** An idf over the results alone, for callers that give none of the book's. */
function resultsIdf(results: RetrievedChunk[]): (term: string) => number {
  const termSets = results.map((result) => new Set(analyze(result.chunk.text)));
  const n = termSets.length;
  return (term) => {
    const df = termSets.filter((terms) => terms.has(term)).length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
}

/** A selection's words together weigh at most this share of the question's own words. */
const SELECTION_CONTEXT_SHARE = 1;

/** A quote holding this share of the selection's words or more gives the selection back. */
const ECHO_SHARE = 0.8;

/** Whether a quote (its citation markers aside) is most of the selection, or all within it. */
function echoes(quote: string, selection: string): boolean {
  const quoted = wordsOf(quote.replace(/\s*\[\d+\]/g, ""));
  const selected = wordsOf(selection);
  if (quoted.length === 0) return false;
  return (
    quoted.length >= ECHO_SHARE * selected.length && selected.join(" ").includes(quoted.join(" "))
  );
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Words of a selection that join its search: a long selection (up to 64,000 characters) would
 * otherwise bring thousands of terms into one BM25 query.
 */
const SELECTION_SEARCH_WORDS = 80;

/**
 * What a selected-text question is searched with: the question, with the selection's words
 * joining at a lower weight, or the selection itself when the question only points at it
 * ("explain this in simpler terms"); the selection's first SELECTION_SEARCH_WORDS words.
 */
export function selectionSearch(
  question: string,
  selection: string,
): { query: string; context: string } {
  const context = selection.trim().split(/\s+/).slice(0, SELECTION_SEARCH_WORDS).join(" ");
  // "What does X mean?" names all it asks about: the selection's words would pull the search to
  // the passage the reader is reading, not to where the book says what X is.
  if (definedTerm(question)) return { query: question, context: "" };
  return { query: pointsOnly(question) ? context : question, context };
}

/** The X of "what is X / what does X mean", unless X only points at the selection ("this"). */
export function definedTerm(question: string): string {
  const subject = definitionSubject(question);
  return analyzeQuery(subject).words.some((word) => !DEICTIC_WORDS.has(word)) ? subject : "";
}

/**
 * Whether a question about a selection asks for what the selection does not say itself: it only
 * points at it ("explain this", "give me an example") or asks what a term means.
 */
function explainsSelection(question: string, topicTerms: string[]): boolean {
  return topicTerms.length === 0 || definedTerm(question) !== "";
}

/** Whether the question has no words of its own beyond pointing at the selection ("explain this"). */
function pointsOnly(question: string): boolean {
  return analyzeQuery(question).words.every((term) => DEICTIC_WORDS.has(term));
}

/** At most this many of the question's unknown words are named. */
const MAX_NAMED_WORDS = 3;

/**
 * The reply to a question the book does not cover: it names the question's words the book never
 * uses when there are any ("…: it never mentions “SLAM”."), so the reader sees why.
 */
export function noResultsMessage(unknownWords: string[] | undefined): string {
  const list = namedWords(unknownWords ?? []);
  return list
    ? `I couldn't find this in the book: it never mentions ${list}. Try rephrasing the question, or ask about a topic the book covers.`
    : NO_RESULTS_MESSAGE;
}

/** Up to MAX_NAMED_WORDS of the words, quoted and joined ("“a”, “b” or “c”"); null for none. */
function namedWords(words: string[]): string | null {
  const named = [
    ...new Set(
      words.filter((word) => /\p{L}/u.test(word) && word.length >= 3 && !/.{3}ly$/i.test(word)),
    ),
  ];
  if (named.length === 0) return null;
  const quoted = named.slice(0, MAX_NAMED_WORDS).map((word) => `“${word}”`);
  return quoted.length === 1
    ? (quoted[0] as string)
    : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

/** Streams a finished text in word groups, so clients render it progressively. */
export async function emitInPieces(text: string, options: RunOptions): Promise<void> {
  if (!options.onDelta) return;
  const pieces = text.match(/\S+\s*/g) ?? [];
  for (let start = 0; start < pieces.length; start += 6) {
    if (options.signal?.aborted) return;
    options.onDelta(pieces.slice(start, start + 6).join(""));
    // Yield so a client disconnect can be noticed between pieces.
    await new Promise<void>((resolve) => nextTurn(resolve));
  }
}
