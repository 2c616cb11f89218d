import type { RetrievedChunk } from "../search/retriever.ts";
import { nextTurn } from "../util/next-turn.ts";
import type { RunOptions } from "./types.ts";

/**
 * Follow-up questions under an answer, written by the model when one is configured (the server's
 * `LlmFollowUpWriter` is the `FollowUpWriter` that calls it). The call is
 * made beside the answer's own (from the same passages, not from the answer), so it is usually
 * done by the time the answer is; a streamed answer starts it once its first text is on its way to
 * the reader, so that building a second request never delays the first token. The answer then
 * waits for it at most `followUpWaitMs`, and on
 * any failure, refusal or delay the follow-ups made from the book's headings
 * (answer/suggestions.ts) are sent instead. What the model writes is only kept if it reads as a
 * short question, once, and not the reader's own question again; a reply that repeats the prompt
 * (its canary or a run of its instructions) is dropped whole.
 */

export const MAX_FOLLOW_UPS = 3;
/** Longest follow-up kept, in characters: a chip under the answer, not a paragraph. */
export const MAX_FOLLOW_UP_CHARS = 150;

export interface FollowUpInput {
  question: string;
  /** The passages the answer is drawn from, best first. */
  results: RetrievedChunk[];
}

/** Writes follow-up questions; resolves to none rather than failing when it cannot. */
export interface FollowUpWriter {
  write(input: FollowUpInput, signal: AbortSignal): Promise<string[]>;
}

/** A follow-up call in flight beside an answer. */
export interface PendingFollowUps {
  /** The model's questions, waiting at most the configured time; none after that. */
  settle(): Promise<string[]>;
  /** The answer failed or found nothing: the call is stopped and its questions dropped. */
  cancel(): void;
}

export class ModelFollowUps {
  constructor(
    private readonly writer: FollowUpWriter,
    /** Longest wait once the answer is complete, in milliseconds. */
    private readonly waitMs: number,
  ) {}

  /**
   * The call beside an answer run with `options`, and the options to run the answer with: a
   * streamed answer (`onDelta`) starts the call after its first text, any other at once.
   */
  beside(
    input: FollowUpInput,
    options: RunOptions,
  ): { pending: PendingFollowUps; options: RunOptions } {
    const { onDelta, signal } = options;
    if (!onDelta) return { pending: this.start(input, signal), options };
    const later = new FollowUpsAfterFirstText(() => this.start(input, signal));
    let first = true;
    const passOn = (text: string) => {
      onDelta(text);
      if (first) later.onFirstText();
      first = false;
    };
    return { pending: later, options: { ...options, onDelta: passOn } };
  }

  start(input: FollowUpInput, signal?: AbortSignal): PendingFollowUps {
    const controller = new AbortController();
    const combined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    const written = this.writer.write(input, combined).catch(() => [] as string[]);
    return {
      cancel: () => controller.abort(),
      settle: async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<string[]>((resolve) => {
          timer = setTimeout(() => resolve([]), this.waitMs);
        });
        try {
          return await Promise.race([written, late]);
        } finally {
          clearTimeout(timer);
          controller.abort();
        }
      },
    };
  }
}

/**
 * Follow-ups for a streamed answer: the call starts in the turn of the event loop after the
 * answer's first text is handed on (`onFirstText`), once that text has gone to the reader; or at
 * `settle` when no text came before the answer ended. `cancel` before then means no call at all.
 */
export class FollowUpsAfterFirstText implements PendingFollowUps {
  private pending: PendingFollowUps | undefined;
  private cancelled = false;

  constructor(private readonly begin: () => PendingFollowUps) {}

  onFirstText(): void {
    nextTurn(() => this.start());
  }

  settle(): Promise<string[]> {
    return this.start()?.settle() ?? Promise.resolve([]);
  }

  cancel(): void {
    this.cancelled = true;
    this.pending?.cancel();
  }

  private start(): PendingFollowUps | undefined {
    if (!this.pending && !this.cancelled) this.pending = this.begin();
    return this.pending;
  }
}

/**
 * The questions in a model's reply, one per line: list marks and quotes removed, kept only when
 * they read as one short question (a question mark at the end, three words or more, no citation
 * markers, tags or links), each once, never the reader's own question.
 */
export function cleanFollowUps(text: string, question: string, max = MAX_FOLLOW_UPS): string[] {
  const seen = new Set([questionKey(question)]);
  const kept: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const candidate = line
      .replace(/^\s*(?:[-*•]|\d{1,2}[.)])\s*/, "")
      .replace(/\*\*|__/g, "")
      .replace(/^["'“‘]+|["'”’]+$/g, "")
      .replace(/\s+/g, " ")
      .trim();
    if (!isShortQuestion(candidate)) continue;
    const key = questionKey(candidate);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(candidate);
    if (kept.length >= max) break;
  }
  return kept;
}

/**
 * The model's questions when it wrote at least two; otherwise what it wrote topped up with the
 * book's own (from the headings after the cited section), without repeats or the question itself.
 */
export function mergeFollowUps(
  fromModel: string[],
  fromBook: string[],
  question: string,
  max = MAX_FOLLOW_UPS,
): string[] {
  const candidates = fromModel.length >= 2 ? fromModel : [...fromModel, ...fromBook];
  const seen = new Set([questionKey(question)]);
  const merged: string[] = [];
  for (const candidate of candidates) {
    const key = questionKey(candidate);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(candidate);
    if (merged.length >= max) break;
  }
  return merged;
}

function isShortQuestion(text: string): boolean {
  return (
    text.length <= MAX_FOLLOW_UP_CHARS &&
    text.endsWith("?") &&
    text.split(" ").length >= 3 &&
    !/\[\d+\]|[<>]|https?:\/\//i.test(text)
  );
}

/** "What is a URDF?" and "what is a URDF" are the same question. */
function questionKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
