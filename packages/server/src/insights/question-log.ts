import type { Logger } from "pino";
import type { AnsweredQuestion, QuestionRecorder } from "../pipeline/chat-service.ts";
import type {
  CitedChunk,
  QuestionLogEntry,
  QuestionLogStore,
} from "../store/question-log-store.ts";
import { redact } from "./redact.ts";

/**
 * The question log's writer: each answered question is redacted and queued, and the queue is
 * written in one statement every `flushMs` (or at BATCH_SIZE entries), so an answer never waits
 * for the log. A failed write is logged and its batch dropped: the log serves authors, and must
 * not hold memory or readers hostage to a database that is down.
 */

/** Entries written in one statement at most; a full queue is written at once. */
export const BATCH_SIZE = 200;
/** Entries kept waiting at most while the database is slow; beyond that, new ones are dropped. */
export const MAX_QUEUED = 5_000;

export class BatchedQuestionLog implements QuestionRecorder {
  private queue: QuestionLogEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastWarning = 0;

  constructor(
    private readonly store: QuestionLogStore,
    private readonly options: { flushMs: number; keepSelectedText: boolean; logger?: Logger },
  ) {}

  record(question: AnsweredQuestion): void {
    const entry = toLogEntry(question, this.options.keepSelectedText);
    if (!entry || this.queue.length >= MAX_QUEUED) return;
    this.queue.push(entry);
    if (this.queue.length >= BATCH_SIZE) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.flushMs);
      this.timer.unref?.();
    }
  }

  /** Writes everything queued so far; resolves once it is stored (or has failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH_SIZE);
      this.writing = this.writing.then(() => this.write(batch));
    }
    return this.writing;
  }

  /** Writes what is queued; called on shutdown before the database closes. */
  close(): Promise<void> {
    return this.flush();
  }

  private async write(batch: QuestionLogEntry[]): Promise<void> {
    try {
      await this.store.saveMany(batch);
    } catch (error) {
      if (Date.now() - this.lastWarning < 60_000) return;
      this.lastWarning = Date.now();
      this.options.logger?.warn(
        { err: error, dropped: batch.length },
        "the question log could not be written; those questions are not in the insights",
      );
    }
  }
}

/**
 * What the log keeps of a turn; undefined for small talk (greetings and thanks are no questions).
 * The question is redacted, the selection dropped unless kept on purpose (and then redacted too),
 * and a word the book lacks is kept only when it survived redaction.
 */
export function toLogEntry(
  { input, response, outcome, askedAt }: AnsweredQuestion,
  keepSelectedText: boolean,
): QuestionLogEntry | undefined {
  const route = outcome?.route ?? response.metadata.route;
  if (route === "greeting" || route === "thanks") return undefined;
  const question = redact(input.query);
  const lowered = question.toLowerCase();
  const bookSources = response.sources.filter(
    (source) => source.source_type !== "selected_text",
  ) as Extract<AnsweredQuestion["response"]["sources"][number], { file_path: string }>[];
  const chunks = outcome?.sourceChunks ?? [];
  const cited: CitedChunk[] = [];
  bookSources.forEach((source, index) => {
    const chunk = chunks[index];
    // Model answers say which sources they cite; the others stand on all of them.
    if (!chunk || source.cited === false) return;
    cited.push({
      url: source.source_url,
      filePath: source.file_path,
      title: source.title,
      section: source.section,
      chunkId: chunk.id,
      contentHash: chunk.contentHash,
    });
  });
  const scores = bookSources.map((source) => source.similarity_score);
  return {
    sessionId: input.sessionId,
    messageId: response.message_id ?? null,
    askedAt,
    question,
    selectedText: keepSelectedText && input.selectedText ? redact(input.selectedText) : null,
    mode: response.metadata.mode,
    lowConfidence: response.metadata.low_confidence,
    topScore: scores.length > 0 ? Math.max(...scores) : null,
    unknownWords: (outcome?.unknownWords ?? []).filter((word) =>
      lowered.includes(word.toLowerCase()),
    ),
    cited,
    version: outcome?.slice?.version ?? null,
    locale: outcome?.slice?.locale ?? null,
  };
}
