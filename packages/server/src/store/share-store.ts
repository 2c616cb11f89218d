import { randomBytes } from "node:crypto";
import { storableJsonText } from "../util/storable-text.ts";
import type { SqlClient } from "./sql-client.ts";

/** A shared answer: a copy of one exchange, readable by anyone with its id. */
export interface SharedAnswer {
  id: string;
  sessionId: string;
  messageId: string;
  query: string;
  response: string;
  sources: unknown[];
  createdAt: Date;
}

/**
 * Shared answers, kept apart from the conversation they come from: deleting the conversation (or
 * its retention running out) leaves a link that was handed out working until its owner deletes
 * it. Ids are 128 random bits, so a link cannot be guessed from another.
 */
export class ShareStore {
  constructor(
    private readonly db: SqlClient,
    private readonly newId: () => string = () => randomBytes(16).toString("base64url"),
  ) {}

  async create(answer: Omit<SharedAnswer, "id" | "createdAt">): Promise<SharedAnswer> {
    const id = this.newId();
    const rows = await this.db.query<{ created_at: Date | string }>(
      `INSERT INTO shares (id, session_id, message_id, query, response, sources)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [
        id,
        answer.sessionId,
        answer.messageId,
        answer.query,
        answer.response,
        storableJsonText(answer.sources),
      ],
    );
    return { ...answer, id, createdAt: new Date(rows[0]?.created_at ?? Date.now()) };
  }

  async get(id: string): Promise<SharedAnswer | undefined> {
    const rows = await this.db.query<{
      id: string;
      session_id: string;
      message_id: string;
      query: string;
      response: string;
      sources: unknown;
      created_at: Date | string;
    }>(
      "SELECT id, session_id, message_id, query, response, sources, created_at FROM shares WHERE id = $1",
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const sources = typeof row.sources === "string" ? JSON.parse(row.sources) : row.sources;
    return {
      id: row.id,
      sessionId: row.session_id,
      messageId: row.message_id,
      query: row.query,
      response: row.response,
      sources: Array.isArray(sources) ? sources : [],
      createdAt: new Date(row.created_at),
    };
  }

  /** Deletes the share if `sessionId` owns it; false when there is no such share of that session. */
  async delete(id: string, sessionId: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "DELETE FROM shares WHERE id = $1 AND session_id = $2 RETURNING id",
      [id, sessionId],
    );
    return rows.length > 0;
  }
}
