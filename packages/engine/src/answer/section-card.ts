import {
  type ChunkBlock as Block,
  blocksOf,
  isSeparatorRow,
  renderBlock,
  tableCells,
} from "../book/chunk-blocks.ts";
import type { ChunkRecord, PackedTerms } from "../book/records.ts";
import { analyze } from "../search/analyzer.ts";
import { analyzeQuestion } from "../search/search-terms.ts";
import type { RetrievedChunk } from "../search/types.ts";
import { cachedIn, keptWith } from "../util/bounded-cache.ts";

/**
 * The section card: the answer's core when no model writes one. The section of the book that best
 * matches the question, shown as the book shows it (its heading path, then its prose, lists,
 * tables and code as Markdown), with the sentences that match the question best set in bold rather
 * than cut out. Measured on four books (docs/retrieval.md), the best section shown whole contains
 * the fact asked for more often than any passage picked sentence by sentence. A chunk may hold
 * several sections (small sibling sections are packed together): each is a candidate of its own,
 * so the card shows one section and its sub-sections, never a neighbour that shares the chunk.
 */

/** Every weight of the section card, with why it is there. Fitted by `npm run eval:dev -- --fit`. */
export const CARD_WEIGHTS = {
  /** The question's words in the section's text, BM25-saturated and idf-weighted (share of all). */
  text: 1,
  /** Share of the question's words (idf-weighted) in the section's own heading: what it is about. */
  heading: 0.5,
  /** The chunk's calibrated search score: the ranking saw the whole chunk and the page. */
  similarity: 2,
  /**
   * The sections of the first this-many result pages are candidates too, not only the chunks the
   * search returned: the right page is found far more often than the right chunk of it. Such a
   * section counts its page's best score times `pageSimilarity` as its own.
   */
  pages: 2,
  pageSimilarity: 1,

  /**
   * A second section is shown after the best one when it scores at least this share of the best's
   * score (0: never): the two best sections often come this close, and the fact asked for is as
   * often in the second. The two share the word budget.
   */
  second: 0.75,
  /** The second section's share of `maxWords` when it is shown. */
  secondWords: 100,
  /**
   * A third section within `second` of the best is shown too, in this many words more (0: never):
   * the fact asked for is in the third best section about as often as in the second, and the
   * reader sees it under its heading rather than in another search (docs/retrieval.md).
   */
  thirdWords: 60,

  /** Most words shown before the card is cut (blocks stay whole; the least matching go first). */
  maxWords: 250,
  /** BM25's length normalisation: a section this many words long is of average length. */
  averageWords: 150,
  /** Most sentences set in bold. */
  marks: 2,
  /** A sentence is marked when it matches at least this share of the best one's match. */
  markShare: 0.7,

  /**
   * The lead passage (lead.ts): the sections of the ranking whose sentences are candidates. The
   * sections of a definition question's own pages and glossary join them.
   */
  leadSections: 40,
  /** Most sentences in one lead passage (a list item is one). */
  leadSentences: 2,
  /**
   * The section's score in the ranking, as a share of the best one's, times this: the card's
   * ranking saw the whole section and its page, a window only its own words.
   */
  leadSection: 0.6,
  /** For "what is X": a sentence opening on X and saying what it is. */
  leadDefinition: 0.1,
  /**
   * The share of the question's adjacent-word pairs a window holds side by side (the reader's
   * phrase, not only its words): the fact comes into the answer's first 60 words more often.
   */
  leadPhrase: 0.15,

  /**
   * A model reads the results and, after them, the chunks of this many of the best-ranked
   * sections that are not among the results (other sections of the result pages): the fact asked
   * for is in one of these for more of the dev sets' answer rows than in the results alone
   * (docs/retrieval.md, "What a model reads"). Bounded by the prompt's token budget, not fitted:
   * more never holds less.
   */
  modelSections: 4,
} as const;

export type CardWeights = { [key in keyof typeof CARD_WEIGHTS]: number };

/** One section of a chunk: its heading path, where it links to, and its blocks. */
export interface CardSection {
  chunk: ChunkRecord;
  /** The result the chunk is, in `results` order. */
  source: number;
  headingPath: string[];
  section: string;
  url: string;
  /** Whether this is a section merged into the chunk after its first. */
  merged: boolean;
  blocks: Block[];
  /** The analysed terms of the section's text, each with its count, and how many there are. */
  termCounts: Map<string, number>;
  length: number;
  /** The analysed terms of its own heading (the last of its heading path). */
  headingTerms: Set<string>;
}

/** The question's words and how much each weighs (the book's idf). */
export interface QuestionWords {
  words: string[];
  /** Each word's weight, in the order of `words` (read in loops: `weight` for lookups). */
  weights: number[];
  weight: Map<string, number>;
  total: number;
  /** Each pair of words next to each other in the question ("a b"), with the pair's weight. */
  pairs: Map<string, number>;
}

/**
 * With `aside` (a reader's selection the question is about), the aside's own words join the
 * question's at most `asideShare` of the question's weight together: the question says what is
 * asked, the selection what about.
 */
export function questionWords(
  question: string,
  idf: (term: string) => number,
  aside?: { text: string; share: number },
): QuestionWords {
  const sequence = analyzeQuestion(question).words;
  const own = [...new Set(sequence)];
  const weight = new Map(own.map((word) => [word, Math.max(0, idf(word))]));
  const ownTotal = [...weight.values()].reduce((sum, value) => sum + value, 0);
  if (aside) {
    const extra = [...new Set(analyzeQuestion(aside.text).words)].filter(
      (word) => !weight.has(word),
    );
    const extraTotal = extra.reduce((sum, word) => sum + Math.max(0, idf(word)), 0);
    const scale =
      extraTotal > 0 ? Math.min(1, (aside.share * Math.max(ownTotal, 1)) / extraTotal) : 0;
    for (const word of extra) weight.set(word, Math.max(0, idf(word)) * scale);
  }
  const words = [...weight.keys()];
  const total = [...weight.values()].reduce((sum, value) => sum + value, 0);
  const pairs = new Map<string, number>();
  for (let index = 1; index < sequence.length; index++) {
    const [first = "", second = ""] = [sequence[index - 1], sequence[index]];
    if (first !== second)
      pairs.set(`${first} ${second}`, Math.min(weight.get(first) ?? 0, weight.get(second) ?? 0));
  }
  return { words, weights: [...weight.values()], weight, total, pairs };
}

/** The pairs of adjacent analysed words of a text ("a b"), kept as its terms are. */
export function pairsOf(text: string): Set<string> {
  return cachedIn(analysedPairs, text, MAX_ANALYSED_TEXTS, (words) => {
    const sequence = analyze(words);
    const pairs = new Set<string>();
    for (let index = 1; index < sequence.length; index++)
      pairs.add(`${sequence[index - 1]} ${sequence[index]}`);
    return pairs;
  });
}

const analysedPairs = new Map<string, Set<string>>();

/** The sections a chunk holds: its own first one, then each merged one under its heading line. */
export function sectionsOf(chunk: ChunkRecord, source: number): readonly CardSection[] {
  const key = keptWith(chunkKeys, chunk, () => `${chunk.id}:${chunk.contentHash}`);
  let parsed = parsedSections.get(key);
  if (!parsed || parsed.chunk !== chunk) {
    parsed = { chunk, sections: parsed?.sections ?? parseSections(chunk), placed: new Map() };
    if (parsedSections.size >= MAX_PARSED_CHUNKS) parsedSections.clear();
    parsedSections.set(key, parsed);
  }
  let placed = parsed.placed.get(source);
  if (!placed) {
    placed = parsed.sections.map((section) => ({ ...section, chunk, source }));
    parsed.placed.set(source, placed);
  }
  return placed;
}

/**
 * A chunk's sections, parsed and analysed once: every request weighs the sections of its results'
 * pages, and those chunks stay the same until a re-ingest changes their content hash. They are
 * kept as each source number shows them too (a chunk is one of the first few results, or none).
 */
const parsedSections = new Map<
  string,
  {
    chunk: ChunkRecord;
    sections: Omit<CardSection, "chunk" | "source">[];
    placed: Map<number, CardSection[]>;
  }
>();
const MAX_PARSED_CHUNKS = 5_000;
/** A chunk's key in `parsedSections`, made once: the same string is found without hashing it again. */
const chunkKeys = new WeakMap<ChunkRecord, string>();

function parseSections(chunk: ChunkRecord): Omit<CardSection, "chunk" | "source">[] {
  const source = -1;
  const blocks = blocksOf(chunk);
  const anchors = [...(chunk.sectionAnchors ?? [])];
  const sections: CardSection[] = [];
  let current: CardSection = {
    chunk,
    source,
    headingPath: chunk.headingPath,
    section: chunk.section,
    url: chunk.url,
    merged: false,
    blocks: [],
    ...NOT_ANALYSED,
  };
  for (const block of blocks) {
    const anchorIndex =
      block.kind === "heading" && !block.inferred
        ? anchors.findIndex((anchor) => anchor.heading === block.text)
        : -1;
    const anchor = anchors[anchorIndex];
    if (!anchor) {
      current.blocks.push(block);
      continue;
    }
    anchors.splice(0, anchorIndex + 1);
    if (current.blocks.length > 0) sections.push(current);
    current = {
      chunk,
      source,
      headingPath: anchor.headingPath,
      section: anchor.heading,
      url: `${chunk.url.replace(/#.*$/, "")}#${anchor.anchor}`,
      merged: true,
      blocks: [],
      ...NOT_ANALYSED,
    };
  }
  if (current.blocks.length > 0) sections.push(current);
  // A section's sub-sections belong to its card: they are folded into the section above them.
  const folded: CardSection[] = [];
  for (const section of sections) {
    const parent = folded.at(-1);
    if (parent && isUnder(section.headingPath, parent.headingPath)) {
      parent.blocks.push({ kind: "heading", text: section.section }, ...section.blocks);
    } else folded.push({ ...section, blocks: [...section.blocks] });
  }
  // Terms shipped with the chunk are those of these same sections (a static book's build ran this).
  const shipped = chunk.sectionTerms?.length === folded.length ? chunk.sectionTerms : undefined;
  return folded.map(({ chunk: _chunk, source: _source, ...section }, at) => {
    const packed = shipped?.[at];
    const { termCounts, length } = packed
      ? unpackTerms(packed)
      : countedTerms(analyze(section.blocks.map(blockWords).join("\n")));
    // The section's own heading: the page title above it is every section's of the page, and
    // the page's match is in the search score already.
    const headingTerms = new Set(analyze(section.headingPath.at(-1) ?? ""));
    return { ...section, termCounts, length, headingTerms };
  });
}

function countedTerms(terms: string[]): { termCounts: Map<string, number>; length: number } {
  const termCounts = new Map<string, number>();
  for (const term of terms) termCounts.set(term, (termCounts.get(term) ?? 0) + 1);
  return { termCounts, length: terms.length };
}

function unpackTerms(packed: PackedTerms): { termCounts: Map<string, number>; length: number } {
  const parts = packed.split(" ");
  const termCounts = new Map<string, number>();
  for (let at = 1; at + 1 < parts.length; at += 2)
    termCounts.set(parts[at] as string, Number(parts[at + 1]));
  return { termCounts, length: Number(parts[0]) };
}

/**
 * The analysed terms of each of a chunk's sections, packed to ship with the chunk (a static
 * book's page shards): the book's to analyse once when it is built rather than in every
 * reader's browser.
 */
export function packedSectionTerms(chunk: ChunkRecord): PackedTerms[] {
  const { sectionTerms: _shipped, ...own } = chunk;
  return parseSections(own).map(({ termCounts, length }) => {
    const parts: (string | number)[] = [length];
    for (const [term, count] of termCounts) parts.push(term, count);
    return parts.join(" ");
  });
}

const NOT_ANALYSED = {
  termCounts: new Map<string, number>(),
  length: 0,
  headingTerms: new Set<string>(),
};

function isUnder(path: string[], parent: string[]): boolean {
  return path.length > parent.length && parent.every((heading, index) => path[index] === heading);
}

/** The words of a block a reader sees (list items, table rows and code included). */
function blockWords(block: Block): string {
  if (block.kind === "paragraph" || block.kind === "heading") return block.text;
  if (block.kind === "list") return block.items.join("\n");
  if (block.kind === "code") return block.lines.join("\n");
  if (block.kind === "table") return block.rows.join("\n");
  return "";
}

/** How well text matches the question: idf-weighted, BM25-saturated term counts, as a share. */
function textMatch(section: CardSection, question: QuestionWords, weights: CardWeights): number {
  if (question.total === 0) return 0;
  const k1 = 1.2;
  const b = 0.75;
  const lengthNorm = 1 - b + (b * section.length) / weights.averageWords;
  let score = 0;
  const { words, weights: wordWeights } = question;
  for (let at = 0; at < words.length; at++) {
    const count = section.termCounts.get(words[at] as string) ?? 0;
    if (count > 0)
      score += ((wordWeights[at] as number) * count * (k1 + 1)) / (count + k1 * lengthNorm);
  }
  return score / question.total;
}

/**
 * The distinct analysed terms of a block, sentence or row of the book, kept: the same ones are
 * shown again and again, and analysing them was most of a card's cost.
 */
export function termsOf(text: string): Set<string> {
  return cachedIn(analysedTexts, text, MAX_ANALYSED_TEXTS, (words) => new Set(analyze(words)));
}

const analysedTexts = new Map<string, Set<string>>();

/** The distinct analysed terms of a block, kept with the block (the chunk's, stored). */
export function blockTerms(block: Block): Set<string> {
  return keptWith(analysedBlocks, block, (kept) => new Set(analyze(blockWords(kept))));
}

const analysedBlocks = new WeakMap<Block, Set<string>>();
const MAX_ANALYSED_TEXTS = 20_000;

/** Share of the question's weight whose words the text holds at least once. */
function coverage(terms: Iterable<string>, question: QuestionWords): number {
  if (question.total === 0) return 0;
  return heldWeight(question, terms instanceof Set ? terms : new Set(terms)) / question.total;
}

/**
 * The weight of the question's words that `terms` holds, summed in the question's order: texts
 * holding the same words tie exactly in every runtime (Node's and a browser's `Math.log` differ).
 */
export function heldWeight(question: QuestionWords, terms: { has(term: string): boolean }): number {
  let held = 0;
  const { words, weights } = question;
  for (let at = 0; at < words.length; at++)
    if (terms.has(words[at] as string)) held += weights[at] as number;
  return held;
}

function scoreSection(
  section: CardSection,
  similarity: number,
  question: QuestionWords,
  weights: CardWeights,
): number {
  return (
    weights.text * textMatch(section, question, weights) +
    weights.heading * coverage(section.headingTerms, question) +
    weights.similarity * similarity
  );
}

export interface ScoredSection {
  section: CardSection;
  score: number;
  similarity: number;
}

/**
 * The sections matching the question, best first: those of the results' chunks (each chunk split
 * into its sections) and, with `pageChunks`, of the other chunks of the first `weights.pages`
 * result pages. A section from such a chunk has `source` -1: it is not among the results.
 */
export function rankedSections(
  results: RetrievedChunk[],
  question: QuestionWords,
  weights: CardWeights = CARD_WEIGHTS,
  pageChunks?: (filePath: string) => ChunkRecord[],
): ScoredSection[] {
  const candidates: ScoredSection[] = [];
  const consider = (chunk: ChunkRecord, source: number, similarity: number) => {
    for (const section of sectionsOf(chunk, source))
      candidates.push({
        section,
        score: scoreSection(section, similarity, question, weights),
        similarity,
      });
  };
  // Stable: among equal scores the earlier result, then the earlier section, comes first.
  const ranked = () => candidates.sort((a, b) => b.score - a.score);
  for (const [source, result] of results.entries())
    consider(result.chunk, source, result.similarityScore);
  if (!pageChunks || weights.pages < 1) return ranked();
  const seen = new Set(results.map((result) => result.chunk.id));
  const pages = new Map<string, number>();
  for (const result of results)
    if (!pages.has(result.chunk.filePath) && pages.size < weights.pages)
      pages.set(result.chunk.filePath, result.similarityScore);
  for (const [filePath, similarity] of pages)
    for (const chunk of pageChunks(filePath))
      if (!seen.has(chunk.id)) consider(chunk, -1, similarity * weights.pageSimilarity);
  return ranked();
}

/** The text of a block as a card shows it, to find a quoted passage in it. */
function shownText(block: Block): string {
  if (block.kind === "paragraph" || block.kind === "heading") return block.text;
  return renderBlock(block);
}

/**
 * Whether the section holds the (squeezed) passage, sentence by sentence: a passage running on
 * from a paragraph into an admonition quotes the admonition without its label ("Warning:").
 */
export function holdsPassage(section: CardSection, quoted: string): boolean {
  const text = keptWith(shownTexts, section.blocks, (blocks) =>
    squeezed(blocks.map(shownText).join(" ")),
  );
  return quoted.split(/(?<=[.!?])\s+/).every((sentence) => text.includes(sentence));
}

/** A section's text as `holdsPassage` compares it, by its blocks (shared by every copy of it). */
const shownTexts = new WeakMap<Block[], string>();

/** A sentence boundary: end punctuation, then space and what opens a sentence. */
export const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z`*"'(\d])/;

/**
 * A paragraph's sentences (none for other blocks), split once and kept with the block: every card
 * and lead weighs them, and the same strings each time are found in the caches keyed by text
 * without being hashed again.
 */
export function sentencesOf(block: Block): readonly string[] {
  if (block.kind !== "paragraph") return NO_SENTENCES;
  const text = block.text;
  return keptWith(paragraphSentences, block, () => text.split(SENTENCE_END));
}

const paragraphSentences = new WeakMap<Block, string[]>();

/** The sentences of the blocks' paragraphs, in order. */
function sentencesIn(blocks: readonly Block[]): string[] {
  const sentences: string[] = [];
  for (const block of blocks) for (const sentence of sentencesOf(block)) sentences.push(sentence);
  return sentences;
}
const NO_SENTENCES: readonly string[] = [];

/**
 * The card for a section: its heading path and `[citation]`, then its blocks, the best-matching
 * sentences in bold. Over `maxWords`, the blocks matching the question least are left out (the
 * first block, which says what the section is, stays), with "…" where they were.
 */
export function renderCard(
  section: CardSection,
  citation: number,
  question: QuestionWords,
  weights: CardWeights = CARD_WEIGHTS,
  /** A passage inside the section to mark instead: its sentences are the ones set in bold. */
  passage?: string,
  /** Text whose sentences are never set in bold: the reader's selection, already read. */
  unmarked?: string,
): { text: string; cut: boolean; highlight: string | undefined } {
  const blocks = section.blocks.filter((block) => block.kind !== "other");
  const kept = keptBlocks(blocks, question, weights.maxWords, passage);
  const read = unmarked ? squeezed(unmarked) : undefined;
  const chosen = new Set(
    [
      ...((passage && sentencesWithin(blocks, passage)) ||
        markedSentences(blocks, question, weights)),
    ].filter((sentence) => !read?.includes(squeezed(sentence))),
  );
  // Bold on every sentence points at nothing: a short section is shown plain.
  const sentences = sentencesIn(blocks);
  const marked = sentences.every((sentence) => chosen.has(sentence)) ? new Set<string>() : chosen;
  const lines: string[] = [];
  let skipped = false;
  for (const [index, block] of blocks.entries()) {
    if (!kept.has(index)) {
      skipped = true;
      continue;
    }
    // The sentences of the reader's selection are in front of them: "…" stands for them.
    const shown =
      read && block.kind === "paragraph" ? { ...block, text: unread(block, read) } : block;
    if (shown.kind === "paragraph" && !shown.text) {
      skipped = true;
      continue;
    }
    if (skipped && lines.at(-1) !== "…") lines.push("…");
    skipped = false;
    lines.push(renderShown(shown, marked, question));
  }
  if (skipped) lines.push("…");
  const path = section.headingPath.filter((heading) => heading.trim()).join(" › ");
  return {
    text: [`**${path}** [${citation}]`, ...lines].join("\n\n"),
    cut: kept.size < blocks.length,
    // What the link highlights on the page: the first sentence in bold, else the section's first.
    highlight: sentences.find((sentence) => marked.has(sentence)) ?? sentences[0],
  };
}

/**
 * The blocks a card shows within `maxWords`: over it, those matching the question least are left
 * out, except the first (it says what the section is) and the one holding the lead passage.
 */
function keptBlocks(
  blocks: Block[],
  question: QuestionWords,
  maxWords: number,
  passage: string | undefined,
): Set<number> {
  const match = blocks.map((block) => coverage(blockTerms(block), question));
  const size = blocks.map(blockWordCount);
  const kept = new Set(blocks.keys());
  let total = size.reduce((sum, words) => sum + words, 0);
  const quoted = passage ? squeezed(passage) : undefined;
  const holdsQuote = (index: number) => {
    const block = blocks[index];
    return quoted !== undefined && block !== undefined && squeezedBlock(block).includes(quoted);
  };
  const byMatch = [...blocks.keys()]
    .slice(1)
    .filter((index) => !holdsQuote(index))
    .sort((a, b) => (match[a] ?? 0) - (match[b] ?? 0));
  for (const index of byMatch) {
    if (total <= maxWords) break;
    kept.delete(index);
    total -= size[index] ?? 0;
  }
  return kept;
}

/** A paragraph without the sentences the reader has read (`read`, squeezed), "…" for each run. */
function unread(block: Block, read: string): string {
  const parts = sentencesOf(block).map((sentence) =>
    read.includes(squeezed(sentence)) ? "…" : sentence,
  );
  const joined = parts.filter((part, index) => part !== "…" || parts[index - 1] !== "…");
  return joined.every((part) => part === "…") ? "" : joined.join(" ");
}

/** How many words a block shows, counted once per block: the blocks are the chunk's, kept. */
function blockWordCount(block: Block): number {
  return keptWith(
    wordCounts,
    block,
    (kept) => blockWords(kept).split(/\s+/).filter(Boolean).length,
  );
}

const wordCounts = new WeakMap<Block, number>();

/** A block's words squeezed (see `squeezed`), kept with the block. */
function squeezedBlock(block: Block): string {
  return keptWith(squeezedBlocks, block, (kept) => squeeze(blockWords(kept)));
}

const squeezedBlocks = new WeakMap<Block, string>();

/** Text with citation markers, emphasis, code marks and spacing dropped, to compare quotes. */
export function squeezed(text: string): string {
  return cachedIn(squeezedTexts, text, MAX_ANALYSED_TEXTS, squeeze);
}

/** Sentences and passages of the book, squeezed once: each is compared on every card shown. */
const squeezedTexts = new Map<string, string>();

function squeeze(text: string): string {
  return text
    .replace(/\s*\[\d+\]/g, "")
    .replace(/\*\*|`/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** An admonition's label as a squeezed sentence opens with it; a quoted passage leaves it out. */
const ADMONITION_LABEL = /^(?:note|tip|info|warning|caution|danger|important): /;

/** The paragraph sentences of the blocks that the passage quotes; undefined when none. */
function sentencesWithin(blocks: Block[], passage: string): Set<string> | undefined {
  const quoted = squeezed(passage);
  const within = blocks.flatMap((block) =>
    sentencesOf(block).filter((sentence) =>
      quoted.includes(squeezed(sentence).replace(ADMONITION_LABEL, "")),
    ),
  );
  return within.length > 0 ? new Set(within) : undefined;
}

/** The sentences to set in bold: the best match and any near it, at most `marks`. */
function markedSentences(
  blocks: Block[],
  question: QuestionWords,
  weights: CardWeights,
): Set<string> {
  const scored = sentencesIn(blocks)
    .map((sentence) => ({ sentence, score: coverage(termsOf(sentence), question) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score);
  const best = scored[0]?.score ?? 0;
  return new Set(
    scored
      .filter((entry) => entry.score >= weights.markShare * best)
      .slice(0, weights.marks)
      .map((entry) => entry.sentence),
  );
}

/** Lists and tables longer than this show their first rows and those matching the question. */
const MAX_ROWS = 12;

function renderShown(block: Block, marked: Set<string>, question: QuestionWords): string {
  if (block.kind === "heading") return `**${block.text.replace(/\*\*/g, "")}**`;
  if (block.kind === "paragraph")
    return sentencesOf(block)
      .map((sentence) =>
        marked.has(sentence) && !/\*\*|`{3}/.test(sentence) ? `**${sentence}**` : sentence,
      )
      .join(" ");
  if (block.kind === "table") return renderTable(block.rows, question);
  if (block.kind === "list" && block.items.length > MAX_ROWS) {
    const shown = matchingRows(block.items, question);
    return [...shown, ...(shown.length < block.items.length ? ["- …"] : [])].join("\n");
  }
  if (block.kind === "list") return block.items.join("\n");
  return renderBlock(block);
}

/**
 * A table as Markdown with its header row and the line under it, whatever the chunk's text kept
 * of its pipes; over MAX_ROWS rows, its first rows and those matching the question, then "…".
 */
function renderTable(rows: string[], question: QuestionWords): string {
  const [header = "", ...rest] = rows;
  const body = rest.filter((row) => !isSeparatorRow(row));
  const headerCells = tableCells(header);
  const line = (cells: string[]) =>
    `| ${headerCells.map((_, index) => cells[index] ?? "").join(" | ")} |`;
  const shown = body.length > MAX_ROWS ? matchingRows(body, question) : body;
  return [
    line(headerCells),
    line(headerCells.map(() => "---")),
    ...shown.map((row) => line(tableCells(row))),
    ...(shown.length < body.length ? [line(headerCells.map(() => "…"))] : []),
  ].join("\n");
}

/** The first rows and the rows matching the question best, in their order, at most MAX_ROWS. */
function matchingRows(rows: string[], question: QuestionWords): string[] {
  const scored = rows.map((row, index) => ({ index, score: coverage(termsOf(row), question) }));
  const chosen = new Set(
    scored
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_ROWS - 3)
      .map((entry) => entry.index),
  );
  for (let index = 0; chosen.size < MAX_ROWS && index < rows.length; index++) chosen.add(index);
  return rows.filter((_, index) => chosen.has(index));
}
