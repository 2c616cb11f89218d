import { CONTEXT_WEIGHT, type RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { sum } from "../util/numbers.ts";
import { comparedItems } from "./comparisons.ts";
import { definingChunks } from "./definitions.ts";
import { bestWindow, type Passage } from "./passages.ts";
import { anyOf, coverageOf, weighQuestion } from "./question-weights.ts";
import { type Candidate, forEachWindow, parsedChunk, parseText, render } from "./units.ts";

/**
 * The lead passage of the answer given when no language model is configured: the best contiguous
 * passage of the retrieved chunks, quoted as it stands and followed by the [n] marker of its
 * source (n = position in `results`, starting at 1), featured-snippet style. The section card
 * (section-card.ts) follows it; the synthesizer drops the lead when the card holds it. With
 * `maxPassages: 2`, a second short passage from another source is added when the first covers
 * little of the question; not by default, because the words such a passage adds are nearly always
 * incidental.
 *
 * A passage is a window of 1–4 consecutive sentences under one heading of one chunk, scored in
 * passages.ts (`bestWindow`): the question's words it contains, each weighted by how rare it is
 * among the candidate chunks; the heading path above it; the chunk's calibrated similarity; for a
 * "what is X" question, the strength of a sentence defining X (definitions.ts); small costs for
 * sentences without a question word and for paragraph breaks crossed.
 *
 * Definitions sit where a retrieved chunk may not be: at the opening of the page about X, at the
 * start of the section about X, in the glossary. Given the pages' chunks (`pageChunks`), a "what
 * is X" question also weighs those chunks (`definingChunks`); a chunk quoted this way is returned
 * in `extraSources` and cited after the results. This is the one look-up beyond the results that
 * gains on the pooled dev sets (docs/retrieval.md); the others were measured and removed
 * (docs/notes/retrieval-trials.md).
 *
 * A passage from a section merged into its chunk after the first is returned in `quotedSections`
 * with that section's anchor, so its citation links to where the quote is.
 *
 * What is never quoted: heading lines, sentences of fewer than four words, table rows, images,
 * admonition markers ("Note:"), a sentence ending in ":" whose list or code block is not there,
 * and a window opening with a reference to something before it ("This", "It") or after it ("The
 * example below") that it does not include.
 */

export interface ExtractiveAnswer {
  text: string;
  /** True when no passage could be quoted and the text only points to the sources. */
  pointerOnly?: boolean;
  /** 1-based source numbers the answer cites. */
  cited: number[];
  /**
   * Chunks the answer quotes that are not among the results (see `pageChunks`), in citation
   * order: the first is cited as [results.length + 1 + citationOffset], the next one after it.
   */
  extraSources: RetrievedChunk[];
  /**
   * Where a quoted passage sits when that is a section merged into its chunk after the first: the
   * link its citation should carry instead of the chunk's own.
   */
  quotedSections: QuotedSection[];
}

/** The section of a chunk an answer quotes, for the citation `citation`. */
export interface QuotedSection {
  citation: number;
  /** The page URL with the section's anchor. */
  url: string;
  section: string;
  headingPath: string[];
}

export interface ExtractiveOptions {
  /** Most sentences in one passage; default 4. */
  maxSentences?: number;
  /** Most passages (each from a different source); default 1. */
  maxPassages?: number;
  /** Added to every [n] marker, for answers whose sources follow other citations; default 0. */
  citationOffset?: number;
  /**
   * The chunks of a page in page order. With it, a definition question also weighs the chunks of
   * the results' pages where a definition usually sits (`definingChunks`).
   */
  pageChunks?: (filePath: string) => ChunkRecord[];
  /** The book's glossary pages: a definition question also looks up its term there. */
  glossaryPages?: string[];
  /** The chunks opening a page or section titled exactly this (a definition question's X). */
  sectionsHeaded?: (heading: string) => ChunkRecord[];
  /** The earlier question a follow-up was searched with: its words count at half weight. */
  context?: string;
  /** Text whose sentences the passage may not quote: a reader's selection, which they have read. */
  avoid?: string;
  /**
   * The reader asks for an example although the question searched with does not say so ("Give me
   * an example" about a selection is searched with the selection's words).
   */
  asksExample?: boolean;
  /**
   * `context` is a selection the question asks about ("How do I fix it?"), not an earlier turn:
   * its words together may weigh as much as the question's own (SELECTION_CONTEXT_SHARE), where an
   * earlier turn's weigh at most half as much.
   */
  selectionContext?: boolean;
}

/** A selection's words together weigh at most this share of the question's own words. */
const SELECTION_CONTEXT_SHARE = 1;

export function extractiveAnswer(
  question: string,
  results: RetrievedChunk[],
  options: ExtractiveOptions = {},
): ExtractiveAnswer {
  const maxSentences = options.maxSentences ?? 4;
  const maxPassages = options.maxPassages ?? 1;
  const offset = options.citationOffset ?? 0;
  const candidates: Candidate[] = results.map((result, rank) => ({
    result,
    parsed: parsedChunk(result.chunk),
    rank,
  }));
  const compared = comparedItems(question);
  const weighed = weighQuestion(
    question,
    candidates.map((candidate) => candidate.parsed),
    options.context,
    compared,
    options.selectionContext ? SELECTION_CONTEXT_SHARE : CONTEXT_WEIGHT,
  );
  const query = options.asksExample ? { ...weighed, example: true } : weighed;
  if (query.subject && options.pageChunks)
    candidates.push(
      ...definingChunks(
        query,
        results,
        options.pageChunks,
        options.glossaryPages ?? [],
        options.sectionsHeaded?.(query.subjectText) ?? [],
      ),
    );
  const passages: Passage[] = [];
  const first = bestWindow(query, candidates, {
    maxSentences,
    rankCount: results.length,
    ...(options.avoid ? { avoid: options.avoid } : {}),
  });
  if (first) {
    passages.push(first);
    if (maxPassages > 1 && first.coverage < 0.5) {
      const second = bestWindow(query, candidates, {
        maxSentences: 2,
        rankCount: results.length,
        exclude: first,
      });
      if (second && second.newCoverage >= 0.2) passages.push(second);
    }
  }
  if (passages.length === 0 && results.length > 0) return pointerToSources(results, offset);
  const extraSources: RetrievedChunk[] = [];
  const citationOf = (passage: Passage) => {
    const candidate = candidates[passage.source];
    if (passage.source < results.length || !candidate) return passage.source + 1 + offset;
    // A result weighed again at a better rank (a glossary entry) keeps its own number, as does
    // the start of a result's section (a source is listed once per section).
    const chunk = candidate.result.chunk;
    const asResult = results.findIndex(
      (result) =>
        result.chunk.id === chunk.id ||
        (result.chunk.url === chunk.url &&
          result.chunk.headingPath.join("\n") === chunk.headingPath.join("\n")),
    );
    if (asResult >= 0) return asResult + 1 + offset;
    if (!extraSources.includes(candidate.result)) extraSources.push(candidate.result);
    return results.length + extraSources.indexOf(candidate.result) + 1 + offset;
  };
  const citations = passages.map(citationOf);
  const quotedSections: QuotedSection[] = [];
  for (const [index, passage] of passages.entries()) {
    const candidate = candidates[passage.source];
    const citation = citations[index];
    const section = candidate && quotedSection(candidate, passage);
    if (section && citation !== undefined) quotedSections.push({ citation, ...section });
  }
  return {
    text: passages
      .map((passage, index) => render(passage.units, citations[index] ?? null))
      .join("\n\n"),
    cited: [...new Set(citations)],
    extraSources,
    quotedSections,
  };
}

/**
 * When every result is code or a list of links there is no sentence to quote, but the reader
 * still deserves more than an empty answer: where to look, by the results' titles.
 */
function pointerToSources(results: RetrievedChunk[], offset: number): ExtractiveAnswer {
  const shown = results.slice(0, 3);
  const cited = shown.map((_, index) => index + 1 + offset);
  const places = shown.map((result, index) => {
    const title = result.chunk.headingPath.at(-1) ?? result.chunk.title;
    return `${title} [${cited[index]}]`;
  });
  return {
    text: `The closest passages are code or lists of links rather than prose; see ${places.join(", ")}.`,
    pointerOnly: true,
    cited,
    extraSources: [],
    quotedSections: [],
  };
}

/**
 * The merged section a passage is quoted from, found by the heading line above it (or the nearest
 * one above that with an anchor: a short line standing alone reads as a heading too). Null for the
 * chunk's first section, and for chunks stored without their sections' anchors.
 */
function quotedSection(
  candidate: Candidate,
  passage: Passage,
): Omit<QuotedSection, "citation"> | null {
  const { chunk } = candidate.result;
  const anchors = chunk.sectionAnchors ?? [];
  for (let section = passage.units[0]?.section ?? 0; section > 0; section--) {
    const heading = candidate.parsed.headings[section]?.trim();
    const found = anchors.find((anchor) => anchor.heading.trim() === heading);
    if (found)
      return {
        url: `${chunk.url.replace(/#.*$/, "")}#${found.anchor}`,
        section: found.heading,
        headingPath: found.headingPath,
      };
  }
  return null;
}

/** The best passage of a plain text (the reader's selection), or null when nothing matches. */
export interface TextPassage {
  text: string;
  /** Weighted share of the question's words the passage contains (0..1). */
  coverage: number;
}

/**
 * Quotes at most `maxSentences` consecutive sentences of `text`: the ones that contain the
 * question's `topicTerms`, without the sentences around them that do not (the reader already has
 * the whole text in front of them). With no topic terms ("explain this"), the sentences sharing the
 * most words with the rest of the text, which is where a passage states its point.
 */
export function quotePassage(
  text: string,
  topicTerms: string[],
  options: { maxSentences?: number } = {},
): TextPassage | null {
  const maxSentences = options.maxSentences ?? 3;
  const parsed = parseText(text);
  if (parsed.units.length === 0) return null;
  if (topicTerms.length === 0) {
    const frequency = new Map<string, number>();
    for (const unit of parsed.units)
      for (const term of unit.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    let best: { start: number; end: number; score: number } | null = null;
    forEachWindow(parsed.units, maxSentences, (start, end) => {
      let score = -start * 0.01;
      const seen = new Set<string>();
      for (let index = start; index <= end; index++)
        for (const term of parsed.units[index]?.terms ?? [])
          if (!seen.has(term)) {
            seen.add(term);
            score += (frequency.get(term) ?? 1) - 1;
          }
      if (!best || score > best.score) best = { start, end, score };
    });
    const chosen = best as { start: number; end: number } | null;
    if (!chosen) return null;
    return { text: render(parsed.units.slice(chosen.start, chosen.end + 1), null), coverage: 0 };
  }
  const weights = new Map(topicTerms.map((term) => [term, 1]));
  const total = topicTerms.length;
  let best: { start: number; end: number; score: number; coverage: number } | null = null;
  forEachWindow(parsed.units, maxSentences, (start, end) => {
    const units = parsed.units.slice(start, end + 1);
    // Quote only sentences that say something about the question.
    if (units.some((unit) => !anyOf(weights, unit.terms))) return;
    const coverage = coverageOf(weights, total, units);
    // Sentences that each carry more of the topic first, then the earlier passage.
    const density = sum(units.map((unit) => coverageOf(weights, total, [unit]))) / units.length;
    const score = coverage + 0.1 * density - 0.001 * start + 0.0001 * units.length;
    if (!best || score > best.score) best = { start, end, score, coverage };
  });
  const chosen = best as { start: number; end: number; coverage: number } | null;
  if (!chosen) return null;
  return {
    text: render(parsed.units.slice(chosen.start, chosen.end + 1), null),
    coverage: chosen.coverage,
  };
}
