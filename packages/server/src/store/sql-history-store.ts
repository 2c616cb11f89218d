import { createError } from "@lectern/engine/errors";
import { storableJsonText } from "../util/storable-text.ts";
import { GroupCommit } from "./group-commit.ts";
import { clampLimit, isUuid, requireUuid } from "./history-ids.ts";
import type { HistoryEntry, HistoryExchange, HistoryStore, SessionState } from "./history-store.ts";
import type { SqlClient } from "./sql-client.ts";
import { sqlLiteral } from "./sql-literal.ts";

/** An exchange checked and serialised, ready to be written. */
type PreparedExchange = HistoryExchange & { sourcesJson: string; metadataJson: string };

/**
 * Conversation history in the `sessions` and `conversations` tables (migration 2), on PGlite or
 * PostgreSQL. Session ids are UUIDs in the usual hyphenated form, in any letter case: the database
 * compares them case-insensitively and returns them in lower case. A malformed id is an unknown
 * session for the read and delete methods (no query is sent) and is refused by `saveExchange`.
 */
export class SqlHistoryStore implements HistoryStore {
  readonly kind = "sql";
  /** On PGlite, exchanges that finish together are written in one transaction. */
  private readonly group: GroupCommit<PreparedExchange> | undefined;
  private readonly literalBatches: boolean;

  constructor(
    private readonly db: SqlClient,
    options: { groupCommit?: boolean; literalBatches?: boolean } = {},
  ) {
    this.literalBatches = options.literalBatches ?? true;
    // PostgreSQL commits on many connections at once; PGlite runs every transaction on this
    // thread, so there one commit per group of exchanges is what keeps up under load.
    if (options.groupCommit ?? db.kind === "pglite") {
      this.group = new GroupCommit((batch) => this.writeExchanges(batch));
    }
  }

  async saveExchange(exchange: HistoryExchange): Promise<void> {
    requireUuid(exchange.sessionId, "session id");
    requireUuid(exchange.requestId, "request id");
    requireUuid(exchange.messageId, "message id");
    // Serialised before the transaction, so a value JSON cannot hold fails before any write.
    const prepared: PreparedExchange = {
      ...exchange,
      sourcesJson: storableJsonText(exchange.sources),
      metadataJson: storableJsonText(exchange.metadata),
    };
    if (this.group) return this.group.submit(prepared);
    await this.writeExchanges([prepared]);
  }

  /** One transaction: the sessions touched, then the exchanges in the order they were given. */
  private async writeExchanges(batch: PreparedExchange[]): Promise<void> {
    if (this.db.script && this.literalBatches) {
      await this.db.script(exchangesScript(batch));
      return;
    }
    const sessionIds = sessionsOf(batch);
    const exchangeRows = batch.map((_, index) => {
      const base = index * 8;
      return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8}, ${WRITTEN_AT})`;
    });
    await this.db.transaction(async (tx) => {
      await tx.query(
        `${UPSERT_SESSIONS} ${sessionIds.map((_, index) => `($${index + 1})`).join(", ")} ${ON_CONFLICT}`,
        sessionIds,
      );
      await tx.query(
        `${INSERT_EXCHANGES} ${exchangeRows.join(", ")}`,
        batch.flatMap(exchangeValues),
      );
    });
  }

  async sessionExists(sessionId: string): Promise<boolean> {
    if (!isUuid(sessionId)) return false;
    const rows = await this.db.query("SELECT 1 FROM sessions WHERE session_id = $1", [sessionId]);
    return rows.length > 0;
  }

  async sessionState(sessionId: string): Promise<SessionState | undefined> {
    if (!isUuid(sessionId)) return undefined;
    const rows = await this.db.query<SessionRow>(
      "SELECT created_at, last_active, ended_at FROM sessions WHERE session_id = $1",
      [sessionId],
    );
    return rows[0] ? toState(rows[0]) : undefined;
  }

  async openSession(sessionId: string): Promise<SessionState> {
    requireUuid(sessionId, "session id");
    // An existing session is left as it is; the row either way comes back.
    const rows = await this.db.query<SessionRow>(
      `WITH opened AS (
         INSERT INTO sessions (session_id) VALUES ($1) ON CONFLICT (session_id) DO NOTHING
         RETURNING created_at, last_active, ended_at)
       SELECT * FROM opened
       UNION ALL
       SELECT created_at, last_active, ended_at FROM sessions WHERE session_id = $1`,
      [sessionId],
    );
    const row = rows[0];
    if (!row) throw createError("INTERNAL_ERROR", "The session could not be opened.");
    return toState(row);
  }

  async endSession(sessionId: string): Promise<SessionState | undefined> {
    if (!isUuid(sessionId)) return undefined;
    const rows = await this.db.query<SessionRow>(
      `UPDATE sessions SET ended_at = COALESCE(ended_at, now()) WHERE session_id = $1
       RETURNING created_at, last_active, ended_at`,
      [sessionId],
    );
    return rows[0] ? toState(rows[0]) : undefined;
  }

  async hasMessage(sessionId: string, messageId: string): Promise<boolean> {
    if (!isUuid(sessionId) || !isUuid(messageId)) return false;
    const rows = await this.db.query(
      "SELECT 1 FROM conversations WHERE session_id = $1 AND message_id = $2",
      [sessionId, messageId],
    );
    return rows.length > 0;
  }

  async getHistory(
    sessionId: string,
    limit: number,
  ): Promise<{ entries: HistoryEntry[]; total: number; ended?: boolean } | undefined> {
    if (!isUuid(sessionId)) return undefined;
    // One statement, so the entries and the total come from the same snapshot. A session without
    // exchanges (or limit 0) still yields one row, with NULL exchange columns.
    const rows = await this.db.query<ConversationRow>(
      `SELECT (SELECT count(*) FROM conversations WHERE session_id = s.session_id) AS total,
              s.ended_at IS NOT NULL AS ended, c.id, c.message_id, c.request_id, c."timestamp", c.query, c.response, c.selected_text, c.sources,
              c.metadata, c.sources_text, c.metadata_text
         FROM sessions s
         LEFT JOIN LATERAL (
           SELECT * FROM conversations
            WHERE session_id = s.session_id
            ORDER BY id DESC
            LIMIT $2
         ) c ON true
        WHERE s.session_id = $1
        ORDER BY c.id`,
      [sessionId, clampLimit(limit)],
    );
    const first = rows[0];
    if (!first) return undefined;
    const entries: HistoryEntry[] = [];
    for (const row of rows) if (row.id !== null) entries.push(toEntry(row));
    return { entries, total: Number(first.total), ended: first.ended === true };
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    if (!isUuid(sessionId)) return false;
    // Its conversations go with it (ON DELETE CASCADE).
    const rows = await this.db.query(
      "DELETE FROM sessions WHERE session_id = $1 RETURNING session_id",
      [sessionId],
    );
    return rows.length > 0;
  }

  async purgeInactiveSince(cutoff: Date): Promise<number> {
    if (Number.isNaN(cutoff.getTime())) {
      throw createError("INTERNAL_ERROR", "The history purge cutoff is not a valid date.");
    }
    const rows = await this.db.query<{ deleted: string | number | bigint }>(
      `WITH gone AS (DELETE FROM sessions WHERE last_active < $1::timestamptz RETURNING 1)
       SELECT count(*) AS deleted FROM gone`,
      [cutoff.toISOString()],
    );
    return Number(rows[0]?.deleted ?? 0);
  }

  async ping(): Promise<void> {
    await this.db.query("SELECT 1");
  }
}

const UPSERT_SESSIONS = "INSERT INTO sessions (session_id) VALUES";
const ON_CONFLICT = "ON CONFLICT (session_id) DO UPDATE SET last_active = now()";
const INSERT_EXCHANGES =
  'INSERT INTO conversations (session_id, message_id, request_id, query, response, selected_text, sources_text, metadata_text, "timestamp") VALUES';
/**
 * An exchange's time, read when its row is written. The column's default, now(), is when the
 * transaction began; the session's row, locked by the upsert before the insert, makes writes to a
 * session take their turns, so a write that began first may still be written second: its id
 * would then be the later and its timestamp the earlier. Read after the lock, the clock runs in
 * the same order as the ids.
 */
const WRITTEN_AT = "clock_timestamp()";

function sessionsOf(batch: PreparedExchange[]): string[] {
  return [...new Set(batch.map((exchange) => exchange.sessionId.toLowerCase()))];
}

/** An exchange's values in INSERT_EXCHANGES's column order. */
function exchangeValues(exchange: PreparedExchange): (string | null)[] {
  return [
    exchange.sessionId,
    exchange.messageId,
    exchange.requestId,
    exchange.query,
    exchange.response,
    exchange.selectedText,
    exchange.sourcesJson,
    exchange.metadataJson,
  ];
}

/** The same writes as one text of statements (see `SqlClient.script`). */
function exchangesScript(batch: PreparedExchange[]): string {
  const sessions = sessionsOf(batch).map((id) => `(${sqlLiteral(id)})`);
  const rows = batch.map(
    (exchange) => `(${exchangeValues(exchange).map(sqlLiteral).join(", ")}, ${WRITTEN_AT})`,
  );
  // Statements sent in one text run as one implicit transaction: an error rolls all back.
  return `${UPSERT_SESSIONS} ${sessions.join(", ")} ${ON_CONFLICT};\n${INSERT_EXCHANGES} ${rows.join(", ")}`;
}

type Json<T> = T | string;

interface SessionRow {
  created_at: Date | string;
  last_active: Date | string;
  ended_at: Date | string | null;
}

function toState(row: SessionRow): SessionState {
  return {
    createdAt: asDate(row.created_at),
    lastActive: asDate(row.last_active),
    endedAt: row.ended_at === null ? undefined : asDate(row.ended_at),
  };
}

function asDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

interface ConversationRow {
  total: string | number | bigint;
  ended: boolean;
  // NULL only on the single row of a session with no exchanges in the window.
  id: string | number | bigint | null;
  message_id: string;
  request_id: string;
  timestamp: Date | string;
  query: string;
  response: string;
  selected_text: string | null;
  /** JSONB, read from rows written before migration 22 (the text columns NULL there). */
  sources: Json<unknown[]>;
  metadata: Json<Record<string, unknown>>;
  /** JSON text, written since migration 22. */
  sources_text: string | null;
  metadata_text: string | null;
}

function toEntry(row: ConversationRow): HistoryEntry {
  return {
    id: String(row.id),
    messageId: row.message_id,
    requestId: row.request_id,
    timestamp: row.timestamp instanceof Date ? row.timestamp : new Date(row.timestamp),
    query: row.query,
    response: row.response,
    selectedText: row.selected_text,
    sources: parseJson(row.sources_text ?? row.sources),
    metadata: parseJson(row.metadata_text ?? row.metadata),
  };
}

/** JSONB arrives parsed from PGlite and pg, but a driver configured otherwise hands over text. */
function parseJson<T>(value: Json<T>): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}
