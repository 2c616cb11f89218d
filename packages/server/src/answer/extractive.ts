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
    const analyzed = analyzedChunk(result.chunk);
    const headingShare = shareOf(queryTerms, analyzed.headingTerms);
    for (const sentence of analyzed.sentences) {
      const sentenceShare = shareOf(queryTerms, sentence.terms);
      if (sentenceShare === 0) continue;
      // What the sentence says counts most, then where it sits and how well its passage ranked;
      // earlier sentences break ties.
      const score =
        0.5 * sentenceShare +
        0.2 * headingShare +
        0.3 * result.similarityScore -
        sentence.order * 0.001;
      candidates.push({ text: sentence.text, source: position + 1, score, order: sentence.order });
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

interface AnalyzedChunk {
  headingTerms: Set<string>;
  sentences: { text: string; order: number; terms: Set<string> }[];
}

// Chunks repeat across questions; analysing their sentences once saves most of the work.
const analyzedChunks = new Map<string, AnalyzedChunk>();

function analyzedChunk(chunk: RetrievedChunk["chunk"]): AnalyzedChunk {
  const key = `${chunk.id}:${chunk.contentHash}`;
  let analyzed = analyzedChunks.get(key);
  if (!analyzed) {
    const sentences = proseOf(chunk.text)
      .flatMap((paragraph) => paragraph.split(SENTENCE))
      .map((sentence, order) => ({ text: sentence.replace(/\s+/g, " ").trim(), order }))
      .filter((sentence) => sentence.text.length >= 20 && sentence.text.length <= 400)
      .map((sentence) => ({ ...sentence, terms: new Set(analyze(sentence.text)) }));
    analyzed = { headingTerms: new Set(analyze(chunk.headingPath.join(" "))), sentences };
    if (analyzedChunks.size >= 5_000) analyzedChunks.clear();
    analyzedChunks.set(key, analyzed);
  }
  return analyzed;
}

function shareOf(queryTerms: Set<string>, terms: Set<string>): number {
  if (queryTerms.size === 0) return 0;
  let matched = 0;
  for (const term of queryTerms) if (terms.has(term)) matched++;
  return matched / queryTerms.size;
}

/**
 * The prose paragraphs of a chunk: code blocks, table rows and the heading lines of sections
 * merged into the chunk are not quotable sentences.
 */
function proseOf(text: string): string[] {
  return text
    .replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, "\n\n")
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph && !paragraph.includes(" | ") && !/^#{1,6} /.test(paragraph));
}
