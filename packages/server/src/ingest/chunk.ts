// Over 300 lines on purpose: sections, merging, packing with overlap and code splitting are one algorithm over shared unit types.
import {
  type ChunkBlock,
  listItemsOf,
  withInferredHeadings,
} from "@lectern/engine/book/chunk-blocks";
import { cutText } from "@lectern/engine/util/cut-text";
import { readsFor } from "@lectern/engine/util/reading-list";
import type { SectionAnchor } from "../store/document-store.ts";
import type { Block } from "./markdown.ts";
import { fence, fenceMarker, LIST_START } from "./markdown-text.ts";

/**
 * Heading-aware chunking. A document is cut into sections at its headings; consecutive small
 * sections are packed together and large ones split, into chunks of about `targetTokens`, never
 * more than `maxTokens`; consecutive chunks of one section share about `overlapRatio` of the
 * target as overlap. A fenced code block, a table or a list is never split unless it alone exceeds
 * `maxTokens` (a table's pieces each repeat its header row; a list is then cut between items).
 */

export interface ChunkingOptions {
  targetTokens: number;
  maxTokens: number;
  overlapRatio: number;
}

export interface Section {
  /** The document title followed by the headings above and at this section. */
  headingPath: string[];
  /** This section's heading text (the document title for the text before the first heading). */
  heading: string;
  /** The heading's anchor; undefined for the text before the first heading. */
  anchor: string | undefined;
  blocks: Block[];
}

export interface ChunkDraft {
  text: string;
  tokens: number;
  section: string;
  headingPath: string[];
  anchor: string | undefined;
  /** The sections merged into the chunk after its first, by their heading lines in the text. */
  sectionAnchors: SectionAnchor[];
  /** The text's blocks, as the parser read them (never re-read from the text). */
  blocks: ChunkBlock[];
}

/** Rough token count (≈ 4 characters per token for English prose and code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function buildSections(
  blocks: Block[],
  title: string,
  anchorFor: (heading: Extract<Block, { kind: "heading" }>) => string,
): Section[] {
  const sections: Section[] = [];
  const stack: { depth: number; text: string }[] = [];
  let current: Section = { headingPath: [title], heading: title, anchor: undefined, blocks: [] };
  let sawTitleHeading = false;

  for (const block of blocks) {
    if (block.kind !== "heading") {
      current.blocks.push(block);
      continue;
    }
    const anchor = anchorFor(block);
    // The first level-1 heading is the page title (Docusaurus' contentTitle), not a section.
    if (
      block.depth === 1 &&
      !sawTitleHeading &&
      sections.length === 0 &&
      current.blocks.length === 0
    ) {
      sawTitleHeading = true;
      continue;
    }
    if (current.blocks.length > 0) sections.push(current);
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= block.depth) stack.pop();
    stack.push({ depth: block.depth, text: block.text });
    current = {
      headingPath: [title, ...stack.map((entry) => entry.text)],
      heading: block.text,
      anchor,
      blocks: [],
    };
  }
  if (current.blocks.length > 0) sections.push(current);
  return sections;
}

interface Unit {
  text: string;
  tokens: number;
  /** Placed before this unit when it follows another one in a chunk. */
  joiner: string;
  /** A code block, a table or a list: kept whole, and never repeated as overlap. */
  whole: boolean;
  /** A section's heading line: shown inside a chunk, left out when it starts one. */
  heading: boolean;
  /** Index of the section the unit belongs to. */
  section: number;
  /** What the unit is part of: consecutive pieces of one parsed block make one block again. */
  kind: ChunkBlock["kind"];
  /** The parsed block the unit is (part of); undefined for a heading line. */
  source: Block | undefined;
}

/**
 * A chunk whose new text is under this share of the target is joined to a neighbour when the
 * result stays within `maxTokens` (≈ 87 tokens for the default target of 350): short sections
 * whose heading happens to match one query word otherwise outrank the passage that explains.
 */
const MIN_SHARE = 0.25;

/**
 * Chunks one page. Consecutive sections share a chunk while it stays within `targetTokens`; a
 * merged section keeps its heading as a Markdown heading line, and the chunk takes the section,
 * heading path and anchor of its first section. A section too large to join is split with
 * overlap; a piece smaller than `MIN_SHARE` of the target is joined to a neighbour when that stays
 * within `maxTokens`.
 */
export function chunkSections(sections: Section[], options: ChunkingOptions): ChunkDraft[] {
  const minTokens = Math.floor(options.targetTokens * MIN_SHARE);
  const chunks = joinSmallChunks(packSections(sections, options, minTokens), options, minTokens);
  const drafts: ChunkDraft[] = [];
  for (const units of chunks) {
    const text = render(units);
    const section = sections[units[0]?.section ?? 0];
    if (!text || !section) continue;
    drafts.push({
      text,
      tokens: estimateTokens(text),
      section: section.heading,
      headingPath: section.headingPath,
      anchor: section.anchor,
      sectionAnchors: innerSections(units, sections),
      blocks: blocksOfUnits(units),
    });
  }
  return drafts;
}

const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z0-9`"'([])/;

function headingUnit(section: Section, index: number): Unit {
  const level = "#".repeat(Math.min(6, Math.max(2, section.headingPath.length)));
  const text = `${level} ${section.heading}`;
  return {
    text,
    tokens: estimateTokens(text),
    joiner: "\n\n",
    whole: false,
    heading: true,
    section: index,
    kind: "heading",
    source: undefined,
  };
}

function sectionUnits(section: Section, index: number, options: ChunkingOptions): Unit[] {
  const units: Unit[] = [headingUnit(section, index)];
  for (const block of section.blocks) {
    if (block.kind === "heading") continue;
    const kind: ChunkBlock["kind"] =
      block.kind === "code"
        ? "code"
        : block.table
          ? "table"
          : LIST_START.test(block.text)
            ? "list"
            : "paragraph";
    const push = (text: string, joiner: string, whole: boolean) =>
      units.push({
        text,
        tokens: estimateTokens(text),
        joiner,
        whole,
        heading: false,
        section: index,
        kind,
        source: block,
      });
    if (block.kind === "prose" && block.table) {
      for (const piece of splitTable(block.text, options.maxTokens)) push(piece, "\n\n", true);
      continue;
    }
    if (block.kind === "code") {
      const fenced = fence(block.lang, block.code);
      if (estimateTokens(fenced) <= options.maxTokens) push(fenced, "\n\n", true);
      else {
        for (const [pieceIndex, piece] of splitCode(
          block.lang,
          block.code,
          options.maxTokens,
        ).entries()) {
          push(piece, pieceIndex === 0 ? "\n\n" : "\n", true);
        }
      }
      continue;
    }
    if (block.kind !== "prose") continue;
    if (kind === "list") {
      // A list cut between its items leaves the items after the cut without the sentence that
      // introduces them ("There are several approaches that can be used:"): it stays whole where
      // it fits, else each item stays whole where it fits.
      if (estimateTokens(block.text) <= options.maxTokens) {
        push(block.text, "\n\n", true);
        continue;
      }
      for (const [itemIndex, item] of listItems(block.text).entries()) {
        if (estimateTokens(item) <= options.maxTokens) {
          push(item, itemIndex === 0 ? "\n\n" : "\n", false);
          continue;
        }
        for (const [pieceIndex, piece] of splitLongText(item, options.maxTokens).entries()) {
          push(piece, pieceIndex > 0 ? " " : itemIndex === 0 ? "\n\n" : "\n", false);
        }
      }
      continue;
    }
    const lines = block.text.includes("\n") ? block.text.split("\n") : [block.text];
    let firstOfBlock = true;
    for (const line of lines) {
      const sentences = line.split(SENTENCE_END);
      for (const [sentenceIndex, sentence] of sentences.entries()) {
        const joiner = firstOfBlock ? "\n\n" : sentenceIndex === 0 ? "\n" : " ";
        firstOfBlock = false;
        for (const [pieceIndex, piece] of splitLongText(sentence, options.maxTokens).entries()) {
          push(piece, pieceIndex === 0 ? joiner : " ", false);
        }
      }
    }
  }
  return units;
}

const size = (units: Unit[]) => estimateTokens(render(units));

function packSections(sections: Section[], options: ChunkingOptions, minTokens: number): Unit[][] {
  const chunks: Unit[][] = [];
  const overlapBudget = Math.floor(options.targetTokens * options.overlapRatio);
  let current: Unit[] = [];
  let fresh = 0; // units at the end of `current` that are not overlap
  const hasContent = () => current.slice(current.length - fresh).some((unit) => !unit.heading);
  const freshTokens = () => size(current.slice(current.length - fresh));

  for (const [index, section] of sections.entries()) {
    const units = sectionUnits(section, index, options);
    if (hasContent()) {
      const whole = size([...current, ...units]);
      if (
        whole <= options.targetTokens ||
        ((freshTokens() < minTokens || readsFurther(section, sections[index - 1])) &&
          whole <= options.maxTokens)
      ) {
        // The whole section joins the chunk.
        current.push(...units);
        fresh += units.length;
        continue;
      }
      if (freshTokens() >= minTokens) {
        // A section that does not fit starts a chunk of its own, without overlap.
        chunks.push(current);
        current = [];
        fresh = 0;
      }
      // Otherwise the small start rides along with the section that follows it.
    }
    for (const unit of units) {
      if (hasContent() && size([...current, unit]) > options.targetTokens) {
        // A heading never ends a chunk: it moves on with the text under it. Nor does a sentence
        // introducing the code or table that follows ("There are three kinds of components:").
        const carried = current.at(-1)?.heading
          ? current.splice(-1)
          : introduces(current, fresh, unit, options.maxTokens)
            ? current.splice(-1)
            : [];
        chunks.push(current);
        current = carried.length > 0 ? carried : overlapTail(current, overlapBudget);
        fresh = carried.length;
      }
      current.push(unit);
      fresh++;
      // Overlap gives way when it would push a chunk past the hard maximum.
      while (current.length > fresh && size(current) > options.maxTokens) current.shift();
    }
  }
  if (hasContent()) chunks.push(current);
  return chunks;
}

/**
 * Whether the section is the reading list ("Further information") of the section before it. It
 * stays with that section within `maxTokens`: alone, or opening the next chunk, its titles match a
 * reader's question ("#1768 Allow reducers to consult global state") while the chunk it heads
 * holds another section's answer, or none.
 */
function readsFurther(section: Section, previous: Section | undefined): boolean {
  return previous !== undefined && readsFor(section.headingPath, previous.headingPath);
}

/**
 * Whether the chunk's last unit is a sentence ending in ":" that introduces `next`, a code block,
 * table or list, and can move on with it: the chunk keeps other new text (of its last `fresh` units,
 * the rest being overlap), and the two fit in `maxTokens`.
 */
function introduces(chunk: Unit[], fresh: number, next: Unit, maxTokens: number): boolean {
  const last = chunk.at(-1);
  if (!last || !next.whole || last.whole || last.heading || !/:\s*$/.test(last.text)) return false;
  const otherNew = chunk.slice(chunk.length - fresh, -1);
  return otherNew.some((unit) => !unit.heading) && size([last, next]) <= maxTokens;
}

/** Joins every chunk with too little new text to its previous (else next) chunk where it fits. */
function joinSmallChunks(chunks: Unit[][], options: ChunkingOptions, minTokens: number): Unit[][] {
  const joined = [...chunks];
  let index = 0;
  while (index < joined.length && joined.length > 1) {
    const chunk = joined[index] as Unit[];
    const previous = joined[index - 1];
    const next = joined[index + 1];
    const fresh = previous ? chunk.filter((unit) => !previous.includes(unit)) : chunk;
    if (size(fresh) < minTokens) {
      const withPrevious = previous && [...previous, ...fresh];
      if (withPrevious && size(withPrevious) <= options.maxTokens) {
        joined.splice(index - 1, 2, withPrevious);
        index = Math.max(0, index - 2);
        continue;
      }
      const withNext = next && [...chunk, ...next.filter((unit) => !chunk.includes(unit))];
      if (withNext && size(withNext) <= options.maxTokens) {
        joined.splice(index, 2, withNext);
        index = Math.max(0, index - 1);
        continue;
      }
    }
    index++;
  }
  return joined;
}

function overlapTail(chunk: Unit[], budget: number): Unit[] {
  const tail: Unit[] = [];
  let tokens = 0;
  for (let index = chunk.length - 1; index >= 0; index--) {
    const unit = chunk[index];
    // Overlap stays within one section and never repeats code.
    if (!unit || unit.whole || unit.heading) break;
    // Allow one sentence a little over budget so long sentences still overlap.
    const limit = tail.length === 0 ? budget * 2 : budget;
    if (tokens + unit.tokens > limit) break;
    tail.unshift(unit);
    tokens += unit.tokens;
  }
  // Keep at least one unit of the chunk new: never repeat a whole chunk.
  return tail.length === chunk.length ? tail.slice(1) : tail;
}

/** The sections whose heading lines the chunk's text shows (not the ones that open it). */
function innerSections(units: Unit[], sections: Section[]): SectionAnchor[] {
  const start = units.findIndex((unit) => !unit.heading);
  const found: SectionAnchor[] = [];
  for (const unit of units.slice(start < 0 ? units.length : start)) {
    const section = unit.heading ? sections[unit.section] : undefined;
    if (section?.anchor)
      found.push({
        heading: section.heading,
        anchor: section.anchor,
        headingPath: section.headingPath,
      });
  }
  return found;
}

/**
 * The chunk's blocks, from the units its text is made of: consecutive pieces of one parsed block
 * are one block again (a paragraph cut into sentences, a list into items); each piece of a split
 * code block or table stands alone, as its text does. Heading lines that open the chunk are left
 * out, as `render` leaves them out.
 */
function blocksOfUnits(units: Unit[]): ChunkBlock[] {
  const start = units.findIndex((unit) => !unit.heading);
  const blocks: ChunkBlock[] = [];
  let open: Unit | undefined;
  let text = "";
  const close = () => {
    if (open) blocks.push(chunkBlock(open.kind, text));
    open = undefined;
  };
  for (const unit of units.slice(start < 0 ? units.length : start)) {
    const continues =
      open !== undefined &&
      unit.source !== undefined &&
      unit.source === open.source &&
      unit.kind !== "code" &&
      unit.kind !== "table";
    if (continues) {
      text += unit.joiner + unit.text;
      continue;
    }
    close();
    open = unit;
    text = unit.text;
  }
  close();
  return withInferredHeadings(blocks);
}

function chunkBlock(kind: ChunkBlock["kind"], text: string): ChunkBlock {
  const lines = text.split("\n");
  switch (kind) {
    case "heading":
      return { kind, text: text.replace(/^#+\s*/, "") };
    case "code":
      return { kind, fence: lines[0] ?? "```", lines: lines.slice(1, -1) };
    case "table":
      return { kind, rows: lines.map((line) => line.trim()).filter(Boolean) };
    case "list":
      return { kind, items: listItemsOf(text) };
    default: {
      const joined = lines
        .map((line) => line.trim())
        .filter(Boolean)
        .join(" ");
      // A figure (its alt text, for the search) or a directive the parser left as text.
      return /^(?:!\[|:::)/.test(joined) ? { kind: "other" } : { kind: "paragraph", text: joined };
    }
  }
}

/** The chunk's text; heading lines that open it are left out (the chunk's metadata names them). */
function render(units: Unit[]): string {
  const start = units.findIndex((unit) => !unit.heading);
  if (start < 0) return "";
  return units
    .slice(start)
    .map((unit, index) => (index === 0 ? unit.text : unit.joiner + unit.text))
    .join("");
}

/**
 * A table as one piece, or, when it alone exceeds `maxTokens`, as pieces of consecutive rows that
 * each start with the header row: a piece without it would not say what its columns are, to the
 * search or to an answer quoting a row.
 */
export function splitTable(text: string, maxTokens: number): string[] {
  if (estimateTokens(text) <= maxTokens) return [text];
  const [header = "", ...rows] = text.split("\n");
  const pieces: string[] = [];
  let current: string[] = [];
  // A row too long to fit with the header even alone is cut at words, as a long sentence is.
  const flush = () => {
    if (current.length > 0)
      pieces.push(...splitLongText([header, ...current].join("\n"), maxTokens));
    current = [];
  };
  for (const row of rows) {
    if (current.length > 0 && estimateTokens([header, ...current, row].join("\n")) > maxTokens)
      flush();
    current.push(row);
  }
  flush();
  return pieces.length > 0 ? pieces : splitLongText(text, maxTokens);
}

/** Splits an oversized code block at line boundaries into fenced pieces within `maxTokens`. */
function splitCode(lang: string, code: string, maxTokens: number): string[] {
  // One marker for every piece, long enough for any backtick run in the block.
  const marker = fenceMarker(code);
  const budget = Math.max(1, maxTokens * 4 - fence(lang, "", marker).length);
  const pieces: string[] = [];
  let current: string[] = [];
  let length = 0;
  for (const rawLine of code.split("\n")) {
    let start = 0;
    do {
      const line = pieceAt(rawLine, start, budget);
      start += line.length;
      if (current.length > 0 && length + 1 + line.length > budget) {
        pieces.push(fence(lang, current.join("\n"), marker));
        current = [];
        length = 0;
      }
      length += (current.length > 0 ? 1 : 0) + line.length;
      current.push(line);
    } while (start < rawLine.length);
  }
  if (current.length > 0) pieces.push(fence(lang, current.join("\n"), marker));
  return pieces;
}

/** A list's items, each with the lines under it (nested items, code inside the item). */
function listItems(list: string): string[] {
  const items: string[] = [];
  for (const line of list.split("\n")) {
    const last = items.length - 1;
    if (LIST_START.test(line) || last < 0) items.push(line);
    else items[last] = `${items[last]}\n${line}`;
  }
  return items;
}

/**
 * At most `budget` units of `text` from `start`, not ending inside a surrogate pair (an emoji is
 * never split between two chunks); a single unit when not even one whole character fits.
 */
function pieceAt(text: string, start: number, budget: number): string {
  return (
    cutText(text.slice(start, start + budget + 1), budget) || text.slice(start, start + budget)
  );
}

function splitLongText(text: string, maxTokens: number): string[] {
  if (estimateTokens(text) <= maxTokens) return [text];
  const budget = maxTokens * 4;
  const pieces: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/)) {
    for (let start = 0; start < word.length; ) {
      const part = pieceAt(word, start, budget);
      start += part.length;
      if (current && current.length + 1 + part.length > budget) {
        pieces.push(current);
        current = part;
      } else current = current ? `${current} ${part}` : part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}
