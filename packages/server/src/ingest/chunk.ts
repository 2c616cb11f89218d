import type { Block } from "./markdown.ts";

/**
 * Heading-aware chunking. A document is cut into sections at its headings; each section is packed
 * into chunks of about `targetTokens`, never more than `maxTokens`, and consecutive chunks of one
 * section share about `overlapRatio` of the target as overlap. A fenced code block is never split
 * unless it alone exceeds `maxTokens`.
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
  code: boolean;
}

export function chunkSections(sections: Section[], options: ChunkingOptions): ChunkDraft[] {
  const drafts: ChunkDraft[] = [];
  for (const section of sections) {
    for (const text of packUnits(sectionUnits(section, options), options)) {
      drafts.push({
        text,
        tokens: estimateTokens(text),
        section: section.heading,
        headingPath: section.headingPath,
        anchor: section.anchor,
      });
    }
  }
  return drafts;
}

const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z0-9`"'([])/;

function sectionUnits(section: Section, options: ChunkingOptions): Unit[] {
  const units: Unit[] = [];
  for (const block of section.blocks) {
    if (block.kind === "code") {
      const fenced = fence(block.lang, block.code);
      if (estimateTokens(fenced) <= options.maxTokens) {
        units.push({ text: fenced, tokens: estimateTokens(fenced), joiner: "\n\n", code: true });
      } else {
        for (const [index, piece] of splitCode(
          block.lang,
          block.code,
          options.maxTokens,
        ).entries()) {
          units.push({
            text: piece,
            tokens: estimateTokens(piece),
            joiner: index === 0 ? "\n\n" : "\n",
            code: true,
          });
        }
      }
      continue;
    }
    if (block.kind !== "prose") continue;
    const lines = block.text.includes("\n") ? block.text.split("\n") : [block.text];
    let firstOfBlock = true;
    for (const line of lines) {
      const sentences = line.split(SENTENCE_END);
      for (const [index, sentence] of sentences.entries()) {
        const joiner = firstOfBlock ? "\n\n" : index === 0 ? "\n" : " ";
        firstOfBlock = false;
        for (const [pieceIndex, piece] of splitLongText(sentence, options.maxTokens).entries()) {
          units.push({
            text: piece,
            tokens: estimateTokens(piece),
            joiner: pieceIndex === 0 ? joiner : " ",
            code: false,
          });
        }
      }
    }
  }
  return units;
}

function packUnits(units: Unit[], options: ChunkingOptions): string[] {
  const chunks: Unit[][] = [];
  const overlapBudget = Math.floor(options.targetTokens * options.overlapRatio);
  let current: Unit[] = [];
  let fresh = 0; // units in `current` that are not overlap

  const size = (list: Unit[]) => estimateTokens(render(list));
  for (const unit of units) {
    if (fresh > 0 && size([...current, unit]) > options.targetTokens) {
      chunks.push(current);
      current = overlapTail(current, overlapBudget);
      fresh = 0;
    }
    current.push(unit);
    fresh++;
    // Overlap gives way when it would push a chunk past the hard maximum.
    while (current.length > fresh && size(current) > options.maxTokens) current.shift();
  }
  if (fresh > 0) chunks.push(current);

  // A small trailing piece reads better as part of the chunk before it.
  const last = chunks.at(-1);
  const previous = chunks.at(-2);
  if (last && previous && size(last) < options.targetTokens * 0.2) {
    const overlapCount = last.filter((unit) => previous.includes(unit)).length;
    const merged = [...previous, ...last.slice(overlapCount)];
    if (size(merged) <= options.maxTokens) chunks.splice(-2, 2, merged);
  }
  return chunks.map(render);
}

function overlapTail(chunk: Unit[], budget: number): Unit[] {
  const tail: Unit[] = [];
  let tokens = 0;
  for (let index = chunk.length - 1; index >= 0; index--) {
    const unit = chunk[index];
    if (!unit || unit.code) break;
    // Allow one sentence a little over budget so long sentences still overlap.
    const limit = tail.length === 0 ? budget * 2 : budget;
    if (tokens + unit.tokens > limit) break;
    tail.unshift(unit);
    tokens += unit.tokens;
  }
  // Keep at least one unit of the chunk new: never repeat a whole chunk.
  return tail.length === chunk.length ? tail.slice(1) : tail;
}

function render(units: Unit[]): string {
  return units.map((unit, index) => (index === 0 ? unit.text : unit.joiner + unit.text)).join("");
}

function fenceMarker(code: string): string {
  const longestRun = Math.max(2, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length));
  return "`".repeat(longestRun + 1);
}

function fence(lang: string, code: string, marker = fenceMarker(code)): string {
  return `${marker}${lang}\n${code}\n${marker}`;
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
    for (let start = 0; start < Math.max(rawLine.length, 1); start += budget) {
      const line = rawLine.slice(start, start + budget);
      if (current.length > 0 && length + 1 + line.length > budget) {
        pieces.push(fence(lang, current.join("\n"), marker));
        current = [];
        length = 0;
      }
      length += (current.length > 0 ? 1 : 0) + line.length;
      current.push(line);
    }
  }
  if (current.length > 0) pieces.push(fence(lang, current.join("\n"), marker));
  return pieces;
}

function splitLongText(text: string, maxTokens: number): string[] {
  if (estimateTokens(text) <= maxTokens) return [text];
  const budget = maxTokens * 4;
  const pieces: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/)) {
    for (let start = 0; start < word.length; start += budget) {
      const part = word.slice(start, start + budget);
      if (current && current.length + 1 + part.length > budget) {
        pieces.push(current);
        current = part;
      } else current = current ? `${current} ${part}` : part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}
