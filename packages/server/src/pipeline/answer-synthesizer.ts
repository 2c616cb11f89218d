import { extractiveAnswer } from "../answer/extractive.ts";
import type { ResponseMode } from "../http/wire.ts";
import type { Exchange } from "../llm/prompts.ts";
import { analyze } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import type { RunOptions } from "./types.ts";

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
    "explain explanation clarify simplify simpler simple terms mean meaning means summarize summarise summary tl dr elaborate detail details say says said passage selection selected text paragraph sentence part bit example examples please tell describe understand rephrase words plain english",
  ),
);

const SENTENCE = /(?<=[.!?])\s+(?=[A-Z0-9`"'([])/;

export class ExtractiveSynthesizer implements AnswerSynthesizer {
  readonly kind = "extractive";

  async synthesize(input: SynthesisInput, options: RunOptions = {}): Promise<SynthesisOutput> {
    if (input.selectedText !== null) return this.fromSelection(input, options);
    const { text } = extractiveAnswer(input.question, input.results);
    await emitInPieces(text, options);
    return { answer: text, fallbackMessage: EXTRACTIVE_FALLBACK_MESSAGE, mode: "retrieval_only" };
  }

  private async fromSelection(
    input: SynthesisInput,
    options: RunOptions,
  ): Promise<SynthesisOutput> {
    const selection = input.selectedText ?? "";
    const sentences = selection
      .split(/\n{2,}/)
      .flatMap((paragraph) => paragraph.split(SENTENCE))
      .map((sentence) => sentence.replace(/\s+/g, " ").trim())
      .filter((sentence) => sentence.length > 0);
    const topicTerms = new Set(analyze(input.question).filter((term) => !DEICTIC_WORDS.has(term)));
    let chosen: string[];
    if (topicTerms.size === 0) {
      // "Explain this": the selection's opening sentences are the best quote without a model.
      chosen = sentences.slice(0, 3);
    } else {
      chosen = sentences
        .map((sentence, order) => {
          const terms = new Set(analyze(sentence));
          let matched = 0;
          for (const term of topicTerms) if (terms.has(term)) matched++;
          return { sentence, order, matched };
        })
        .filter((entry) => entry.matched > 0)
        .sort((left, right) => right.matched - left.matched || left.order - right.order)
        .slice(0, 3)
        .sort((left, right) => left.order - right.order)
        .map((entry) => entry.sentence);
    }
    if (chosen.length === 0) {
      await emitInPieces(SELECTION_UNANSWERABLE_MESSAGE, options);
      return {
        answer: SELECTION_UNANSWERABLE_MESSAGE,
        fallbackMessage: null,
        mode: "selected_text",
        answeredFromSelection: false,
      };
    }
    const text = `${chosen.join(" ")} [1]`;
    await emitInPieces(text, options);
    return {
      answer: text,
      fallbackMessage: EXTRACTIVE_FALLBACK_MESSAGE,
      mode: "selected_text",
      answeredFromSelection: true,
    };
  }
}

/** Streams a finished text in word groups, so clients render it progressively. */
export async function emitInPieces(text: string, options: RunOptions): Promise<void> {
  if (!options.onDelta) return;
  const pieces = text.match(/\S+\s*/g) ?? [];
  for (let start = 0; start < pieces.length; start += 6) {
    if (options.signal?.aborted) return;
    options.onDelta(pieces.slice(start, start + 6).join(""));
    // Yield so a client disconnect can be noticed between pieces.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
