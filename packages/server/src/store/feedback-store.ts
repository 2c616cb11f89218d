import type { SqlClient } from "./sql-client.ts";

/** A reader's thumbs up or down on one answer; a second vote on the same answer replaces the first. */
export interface Feedback {
  sessionId: string;
  messageId: string;
  rating: "up" | "down";
  comment: string | null;
}

export interface StoredFeedback extends Feedback {
  createdAt: Date;
}

export class FeedbackStore {
  constructor(private readonly db: SqlClient) {}

  async save(feedback: Feedback): Promise<void> {
    await this.db.query(
      `INSERT INTO feedback (session_id, message_id, rating, comment) VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id, message_id) DO UPDATE SET rating = $3, comment = $4, created_at = now()`,
      [feedback.sessionId, feedback.messageId, feedback.rating, feedback.comment],
    );
  }

  /** Everything, oldest first (the export). */
  async all(limit = 10_000): Promise<StoredFeedback[]> {
    const rows = await this.db.query<{
      session_id: string;
      message_id: string;
      rating: "up" | "down";
      comment: string | null;
      created_at: Date | string;
    }>(
      "SELECT session_id, message_id, rating, comment, created_at FROM feedback ORDER BY id LIMIT $1",
      [limit],
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      messageId: row.message_id,
      rating: row.rating,
      comment: row.comment,
      createdAt: new Date(row.created_at),
    }));
  }
}
