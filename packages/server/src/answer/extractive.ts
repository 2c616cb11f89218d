import { analyze } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";

/**
 * The answer given when no language model is configured: the sentences of the retrieved passages
 * that best match the question, each followed by the [n] marker of the source it comes from
 * (n = position in `sources`, starting at 1).
 */

export interface ExtractiveAnswer {
  text: string;
  /** 1-based source numbers the answer cites. */
  cited: number[];
}

export interface ExtractiveOptions {
  maxSentences?: number; // default 3
  maxPerSource?: number; // default 2
}

const SENTENCE = /(?<=[.!?])\s+(?=[A-Z0-9`"'([])/;

export function extractiveAnswer(
  question: string,
  results: RetrievedChunk[],
  options: ExtractiveOptions = {},
): ExtractiveAnswer {
  const maxSentences = options.maxSentences ?? 3;
  const maxPerSource = options.maxPerSource ?? 2;
  const queryTerms = new Set(analyze(question));
  const candidates: { text: string; source: number; score: number; order: number }[] = [];

  for (const [position, result] of results.entries()) {
    // The headings above a passage say what its sentences are about.
    const headingTerms = new Set(analyze(result.chunk.headingPath.join(" ")));
    const headingShare = shareOf(queryTerms, headingTerms);
    const sentences = proseOf(result.chunk.text).flatMap((paragraph) => paragraph.split(SENTENCE));
    for (const [order, sentence] of sentences.entries()) {
      const clean = sentence.replace(/\s+/g, " ").trim();
      if (clean.length < 20 || clean.length > 400) continue;
      const sentenceShare = shareOf(queryTerms, new Set(analyze(clean)));
      if (sentenceShare === 0) continue;
      // What the sentence says counts most, then where it sits and how well its passage ranked;
      // earlier sentences break ties.
      const score =
        0.5 * sentenceShare + 0.2 * headingShare + 0.3 * result.similarityScore - order * 0.001;
      candidates.push({ text: clean, source: position + 1, score, order });
    }
  }

  candidates.sort((left, right) => right.score - left.score);
  const chosen: typeof candidates = [];
  const perSource = new Map<number, number>();
  for (const candidate of candidates) {
    if (chosen.length >= maxSentences) break;
    const used = perSource.get(candidate.source) ?? 0;
    if (used >= maxPerSource || chosen.some((other) => other.text === candidate.text)) continue;
    perSource.set(candidate.source, used + 1);
    chosen.push(candidate);
  }
  if (chosen.length === 0 && results[0]) {
    const first = proseOf(results[0].chunk.text)[0]?.split(SENTENCE)[0]?.trim();
    if (first) chosen.push({ text: first, source: 1, score: 0, order: 0 });
  }
  // Read in source order, then in the order the sentences appear.
  chosen.sort((left, right) => left.source - right.source || left.order - right.order);
  return {
    text: chosen.map((sentence) => `${sentence.text} [${sentence.source}]`).join(" "),
    cited: [...new Set(chosen.map((sentence) => sentence.source))],
  };
}

function shareOf(queryTerms: Set<string>, terms: Set<string>): number {
  if (queryTerms.size === 0) return 0;
  let matched = 0;
  for (const term of queryTerms) if (terms.has(term)) matched++;
  return matched / queryTerms.size;
}

/** The prose paragraphs of a chunk: code blocks and table rows are not quotable sentences. */
function proseOf(text: string): string[] {
  return text
    .replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, "\n\n")
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph && !paragraph.includes(" | "));
}
