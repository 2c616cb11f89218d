import { storableJsonText } from "../util/storable-text.ts";
import type { SqlClient } from "./sql-client.ts";
import { type LiteralValue, sqlLiteral } from "./sql-literal.ts";

/**
 * The question log for authors (`lectern insights`, GET /admin): one row per answered question,
 * already redacted, with what the answer stood on. Kept INSIGHTS_RETENTION_DAYS, then purged.
 */

/** A book passage an answer cited, as it was when the answer was given. */
export interface CitedChunk {
  url: string;
  filePath: string;
  title: string;
  section: string;
  chunkId: string;
  contentHash: string;
}

export interface QuestionLogEntry {
  sessionId: string;
  /** What a reader rates the answer by; null when history is off (no feedback is possible). */
  messageId: string | null;
  askedAt: Date;
  /** Redacted. */
  question: string;
  /** Redacted; null unless INSIGHTS_KEEP_SELECTED_TEXT is set. */
  selectedText: string | null;
  mode: string;
  lowConfidence: boolean;
  /** The best source's 0..1 similarity; null without sources. */
  topScore: number | null;
  unknownWords: string[];
  cited: CitedChunk[];
  /** The docs version the answer was searched in; null (or absent) for a book without versions. */
  version?: string | null;
  /** The locale the answer was searched in; null (or absent) for an untranslated book. */
  locale?: string | null;
}

/** A logged question with the reader's vote on its answer, when there is one. */
export interface LoggedQuestion extends QuestionLogEntry {
  rating: "up" | "down" | null;
  comment: string | null;
}

interface Row {
  session_id: string;
  message_id: string | null;
  asked_at: Date | string;
  question: string;
  selected_text: string | null;
  mode: string;
  low_confidence: boolean;
  top_score: number | null;
  unknown_words: string[] | string;
  cited: CitedChunk[] | string;
  version: string | null;
  locale: string | null;
  rating: "up" | "down" | null;
  comment: string | null;
}

const COLUMNS = 13;

export class QuestionLogStore {
  constructor(
    private readonly db: SqlClient,
    private readonly collection: string,
    private readonly options: { literalBatches?: boolean } = {},
  ) {}

  /** Stores a batch in one statement (on PGlite with its values written in: `SqlClient.script`). */
  async saveMany(entries: readonly QuestionLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const literal = this.db.script !== undefined && (this.options.literalBatches ?? true);
    const values: LiteralValue[] = [];
    const rows = entries.map((entry, index) => {
      values.push(
        this.collection,
        entry.askedAt.toISOString(),
        entry.sessionId,
        entry.messageId,
        entry.question,
        entry.selectedText,
        entry.mode,
        entry.lowConfidence,
        entry.topScore,
        storableJsonText(entry.unknownWords),
        storableJsonText(entry.cited),
        entry.version ?? null,
        entry.locale ?? null,
      );
      if (literal) return `(${values.slice(-COLUMNS).map(sqlLiteral).join(", ")})`;
      const base = index * COLUMNS;
      return `(${Array.from({ length: COLUMNS }, (_, column) => `$${base + column + 1}`).join(", ")})`;
    });
    const insert = `INSERT INTO question_log (collection, asked_at, session_id, message_id, question, selected_text,
         mode, low_confidence, top_score, unknown_words, cited, version, locale)
       VALUES ${rows.join(", ")}`;
    if (literal && this.db.script) await this.db.script(insert);
    else await this.db.query(insert, values);
  }

  /** Questions asked from `since` on, oldest first, each with the feedback on its answer. */
  async since(since: Date, limit = 50_000): Promise<LoggedQuestion[]> {
    const rows = await this.db.query<Row>(
      `SELECT q.session_id, q.message_id, q.asked_at, q.question, q.selected_text, q.mode,
              q.low_confidence, q.top_score, q.unknown_words, q.cited, q.version, q.locale,
              f.rating, f.comment
         FROM question_log q
         LEFT JOIN feedback f ON f.session_id::text = lower(q.session_id) AND f.message_id = lower(q.message_id)
        WHERE q.collection = $1 AND q.asked_at >= $2
        ORDER BY q.asked_at, q.id
        LIMIT $3`,
      [this.collection, since.toISOString(), limit],
    );
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      messageId: row.message_id,
      askedAt: new Date(row.asked_at),
      question: row.question,
      selectedText: row.selected_text,
      mode: row.mode,
      lowConfidence: row.low_confidence,
      topScore: row.top_score === null ? null : Number(row.top_score),
      unknownWords: parsed(row.unknown_words),
      cited: parsed(row.cited),
      version: row.version,
      locale: row.locale,
      rating: row.rating,
      comment: row.comment,
    }));
  }

  /** Deletes questions asked before `cutoff` (every collection's); returns how many. */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    const rows = await this.db.query<{ count: string | number }>(
      `WITH removed AS (DELETE FROM question_log WHERE asked_at < $1 RETURNING 1)
       SELECT count(*) AS count FROM removed`,
      [cutoff.toISOString()],
    );
    return Number(rows[0]?.count ?? 0);
  }
}

/** JSONB arrives parsed from PGlite and pg; text when a driver leaves it so. */
function parsed<T>(value: T[] | string): T[] {
  return typeof value === "string" ? (JSON.parse(value) as T[]) : value;
}
