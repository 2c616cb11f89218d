import type { ChunkRecord, PageSummary } from "../book/records.ts";
import { urlPath } from "../util/url-path.ts";
import { starterQuestions } from "./suggestions.ts";

/**
 * The answer to "what is this book about?": a synopsis built from what the author wrote about the
 * book as a whole — the introduction page's opening (or its description), the top-level parts and
 * where to start — citing the introduction page. Questions about the whole book rarely share words
 * with any one passage ("book" may not even occur), so search alone cannot answer them.
 */
export interface Synopsis {
  /** The answer text, citing the introduction page as [1]. */
  text: string;
  /** What the book is about in a sentence or two, without citation (llms.txt's summary). */
  about: string;
  intro: ChunkRecord;
  /** Questions to offer a reader before the first one (see suggestions.ts). */
  starters: string[];
}

const INTRO_NAME =
  /^(index|readme|intro|introduction|overview|welcome|getting[-_ ]?started|start[-_ ]?here|quick[-_ ]?start)$/i;
const INTRO_FOLDER = /^(intro|introduction|overview|getting[-_ ]?started|start[-_ ]?here)$/i;
const SENTENCE = /(?<=[.!?])\s+(?=[A-Z0-9`"'([])/;

export function buildSynopsis(
  pages: PageSummary[],
  chunks: Iterable<ChunkRecord>,
): Synopsis | undefined {
  const firstChunks = new Map<string, ChunkRecord>();
  for (const chunk of chunks) {
    const known = firstChunks.get(chunk.filePath);
    if (!known || chunk.chunkIndex < known.chunkIndex) firstChunks.set(chunk.filePath, chunk);
  }
  if (firstChunks.size === 0) return undefined;
  const summaries = pages.filter((page) => firstChunks.has(page.filePath));
  const paths = summaries.map((page) => urlPath(page.url));
  const intro = summaries
    .map((page) => {
      const chunk = firstChunks.get(page.filePath) as ChunkRecord;
      return { page, chunk, score: introScore(page, chunk, paths) };
    })
    .sort(
      (left, right) => right.score - left.score || left.page.url.length - right.page.url.length,
    )[0];
  if (!intro) return undefined;

  const opening = openingSentences(intro.chunk.text);
  const description = intro.page.description?.trim();
  const about =
    opening.length > 0
      ? opening.join(" ")
      : description
        ? `${intro.page.title}: ${lowerFirst(description.replace(/[.\s]*$/, "."))}`
        : `${intro.page.title}.`;
  const parts = topLevelParts(summaries);
  const lines = [`${about} [1]`];
  if (parts.length > 1) lines.push(`It is organised in these parts: ${parts.join(", ")}.`);
  lines.push(`A good place to start is "${intro.page.title}" [1].`);
  return {
    text: lines.join("\n\n"),
    about,
    intro: intro.chunk,
    starters: starterQuestions(summaries, intro.page.filePath),
  };
}

function introScore(page: PageSummary, chunk: ChunkRecord, paths: string[]): number {
  const segments = page.filePath.split("/");
  const name = (segments.at(-1) ?? "").replace(/\.mdx?$/i, "");
  const folder = segments.length > 1 ? (segments.at(-2) ?? "") : "";
  const path = urlPath(page.url);
  let score = 0;
  // The page at the root of every other page's URL is the book's front page.
  if (paths.every((other) => other === path || other.startsWith(`${path.replace(/\/$/, "")}/`)))
    score += 100;
  if (INTRO_NAME.test(name.replace(/^\d+[-_.]?/, ""))) score += 50;
  if (INTRO_FOLDER.test(folder.replace(/^\d+[-_.]?/, ""))) score += 20;
  if (page.position !== undefined && page.position <= 1) score += 5;
  score -= 5 * segments.length;
  // A front page that is only a list of links says nothing about the book.
  if (openingSentences(chunk.text).length === 0) score -= 80;
  return score;
}

/**
 * The first two sentences of the first paragraph of prose (not a list, table, code, heading or
 * figure).
 */
function openingSentences(text: string): string[] {
  const paragraphs = text
    .replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, "\n\n")
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(
      (paragraph) =>
        paragraph.split(/\s+/).length >= 8 &&
        !/^([-*+]|\d+\.|#|\||>|!\[|import |export )/.test(paragraph),
    );
  const first = paragraphs[0];
  if (!first) return [];
  return first
    .replace(/\s+/g, " ")
    .replace(/\*\*|__/g, "")
    .split(SENTENCE)
    .slice(0, 2);
}

function topLevelParts(pages: PageSummary[]): string[] {
  const parts = new Map<string, number>();
  for (const page of pages) {
    const part = page.categories[0];
    if (!part) continue;
    const order = page.position ?? Number.MAX_SAFE_INTEGER;
    parts.set(part, Math.min(parts.get(part) ?? Number.MAX_SAFE_INTEGER, order));
  }
  return [...parts.keys()].slice(0, 12);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
