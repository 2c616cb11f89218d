/**
 * Conversation history: sessions and their question/answer exchanges. Backends: the SQL store
 * (PGlite or PostgreSQL, `HISTORY=postgres`), an in-process map (`HISTORY=memory`) and none at
 * all (`HISTORY=off`). Every backend runs the same contract suite (history-contract.test.ts).
 */

/** One finished question and answer, as stored (not the prompt history of llm/prompts.ts). */
export interface HistoryExchange {
  sessionId: string;
  /**
   * The exchange's own id (UUID), assigned by the server: what a reader rates it by. Unique in its
   * session, unlike the request id, which a client may send twice.
   */
  messageId: string;
  /** The request that produced this exchange (UUID), for following it through the logs. */
  requestId: string;
  query: string;
  selectedText: string | null;
  /** The answer text, or the fallback message when there was no answer. */
  response: string;
  /** Citations exactly as returned to the client. */
  sources: unknown[];
  /** Response metadata as returned to the client (mode, timings, …). */
  metadata: Record<string, unknown>;
}

export interface HistoryEntry {
  id: string;
  messageId: string;
  requestId: string;
  timestamp: Date;
  query: string;
  response: string;
  selectedText: string | null;
  sources: unknown[];
  metadata: Record<string, unknown>;
}

/** A session's lifecycle as stored: when it began, when it was last active, when it ended. */
export interface SessionState {
  createdAt: Date;
  lastActive: Date;
  /** Set once the session is ended (seed S2's ENDED); an ended session takes no new exchange. */
  endedAt: Date | undefined;
}

export interface HistoryStore {
  readonly kind: "sql" | "memory" | "off";
  /**
   * Stores one finished exchange in one transaction, creating the session when it does not exist
   * yet (a well-formed but unknown id starts a new session with that id) and updating its
   * last_active. Either all of it is stored or nothing.
   */
  saveExchange(exchange: HistoryExchange): Promise<void>;
  sessionExists(sessionId: string): Promise<boolean>;
  /** The session's state; undefined when there is no such session (or the id is malformed). */
  sessionState(sessionId: string): Promise<SessionState | undefined>;
  /** Opens a session with no exchanges yet (seed S2's NEW), or leaves an existing one as it is. */
  openSession(sessionId: string): Promise<SessionState>;
  /**
   * Ends the session for good, keeping its exchanges until retention; ending it again keeps the
   * first time. Undefined when there is no such session.
   */
  endSession(sessionId: string): Promise<SessionState | undefined>;
  /** Whether the session has an exchange with this message id (false for malformed ids). */
  hasMessage(sessionId: string, messageId: string): Promise<boolean>;
  /**
   * The session's last `limit` exchanges, oldest first, and how many it has in all; undefined when
   * the session does not exist.
   */
  getHistory(
    sessionId: string,
    limit: number,
  ): Promise<{ entries: HistoryEntry[]; total: number; ended?: boolean } | undefined>;
  /** Deletes the session and everything in it; false when there was no such session. */
  deleteSession(sessionId: string): Promise<boolean>;
  /** Deletes sessions whose last activity is before `cutoff` (with their exchanges); returns how many. */
  purgeInactiveSince(cutoff: Date): Promise<number>;
  /** Throws when the backend cannot be reached (used by /health). */
  ping(): Promise<void>;
}
