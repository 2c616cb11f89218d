import { createError } from "@lectern/engine/errors";
import { storableJsonText } from "../util/storable-text.ts";
import { clampLimit, lowerUuid, requireUuid } from "./history-ids.ts";
import type { HistoryEntry, HistoryExchange, HistoryStore, SessionState } from "./history-store.ts";

export interface MemoryHistoryLimits {
  /** Sessions kept at most; past it the least recently active session is evicted. */
  maxSessions?: number;
  /** Exchanges kept per session at most; past it the session's oldest exchange is dropped. */
  maxExchangesPerSession?: number;
  /** Approximate bytes of text and JSON kept in all; past it whole sessions are evicted as above. */
  maxBytes?: number;
}

/**
 * Conversation history in a Map, for `HISTORY=memory`: nothing survives a restart, and memory is
 * bounded so a busy or abusive client cannot grow the process without limit:
 * - at most 10,000 sessions; a new session beyond that evicts the least recently active one;
 * - at most 1,000 exchanges per session; a new exchange beyond that drops the session's oldest,
 *   and `total` counts the exchanges kept;
 * - at most about 256 MiB of stored text and JSON (a query may be 32,000 characters and a selection
 *   64,000, so the counts alone do not bound memory); past it the least recently active sessions
 *   are evicted, and, should the session being written exceed it alone, its oldest exchanges.
 * Session and request ids follow the SQL store: UUIDs in the hyphenated form, any letter case, kept
 * in lower case. Sources and metadata are stored as JSON text, so they round-trip exactly as through
 * JSONB (a value JSON cannot hold is refused, `undefined` members vanish) and callers never share
 * objects with the store.
 */
export class MemoryHistoryStore implements HistoryStore {
  readonly kind = "memory";
  private readonly sessions = new Map<string, MemorySession>();
  private readonly maxSessions: number;
  private readonly maxExchangesPerSession: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private lastId = 0;

  /** `now` is the clock for timestamps and activity (injectable for tests). */
  constructor(
    private readonly now: () => Date = () => new Date(),
    limits: MemoryHistoryLimits = {},
  ) {
    this.maxSessions = Math.max(1, limits.maxSessions ?? 10_000);
    this.maxExchangesPerSession = Math.max(1, limits.maxExchangesPerSession ?? 1_000);
    this.maxBytes = Math.max(1, limits.maxBytes ?? 256 * 1024 * 1024);
  }

  async saveExchange(exchange: HistoryExchange): Promise<void> {
    const sessionId = requireUuid(exchange.sessionId, "session id");
    const requestId = requireUuid(exchange.requestId, "request id");
    const messageId = requireUuid(exchange.messageId, "message id");
    // Everything that can throw happens before the first change: either all is stored or nothing.
    const sources = storableJsonText(exchange.sources);
    const metadata = storableJsonText(exchange.metadata);
    const timestamp = this.now().getTime();
    const stored: StoredExchange = {
      id: String(++this.lastId),
      messageId,
      requestId,
      timestamp,
      query: exchange.query,
      response: exchange.response,
      selectedText: exchange.selectedText,
      sources,
      metadata,
      bytes:
        2 *
          (exchange.query.length +
            exchange.response.length +
            (exchange.selectedText?.length ?? 0) +
            sources.length +
            metadata.length) +
        OVERHEAD_BYTES,
    };
    const session = this.sessions.get(sessionId) ?? {
      createdAt: timestamp,
      lastActive: timestamp,
      exchanges: [],
    };
    session.lastActive = timestamp;
    // Re-inserting keeps the Map in order of activity, least recent first.
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, session);
    session.exchanges.push(stored);
    this.bytes += stored.bytes;
    while (session.exchanges.length > this.maxExchangesPerSession) this.dropOldest(session);
    this.evictBeyondLimits(sessionId);
    while (this.bytes > this.maxBytes && session.exchanges.length > 1) this.dropOldest(session);
  }

  async sessionExists(sessionId: string): Promise<boolean> {
    return this.find(sessionId) !== undefined;
  }

  async sessionState(sessionId: string): Promise<SessionState | undefined> {
    const session = this.find(sessionId);
    return session ? stateOf(session) : undefined;
  }

  async openSession(sessionId: string): Promise<SessionState> {
    const id = requireUuid(sessionId, "session id");
    const existing = this.sessions.get(id);
    if (existing) return stateOf(existing);
    const now = this.now().getTime();
    const session: MemorySession = { createdAt: now, lastActive: now, exchanges: [] };
    this.sessions.set(id, session);
    this.evictBeyondLimits(id);
    return stateOf(session);
  }

  async endSession(sessionId: string): Promise<SessionState | undefined> {
    const session = this.find(sessionId);
    if (!session) return undefined;
    session.endedAt ??= this.now().getTime();
    return stateOf(session);
  }

  async hasMessage(sessionId: string, messageId: string): Promise<boolean> {
    const id = lowerUuid(messageId);
    return this.find(sessionId)?.exchanges.some((stored) => stored.messageId === id) ?? false;
  }

  async getHistory(
    sessionId: string,
    limit: number,
  ): Promise<{ entries: HistoryEntry[]; total: number; ended?: boolean } | undefined> {
    const session = this.find(sessionId);
    if (!session) return undefined;
    const { exchanges } = session;
    const count = Math.min(clampLimit(limit), exchanges.length);
    return {
      entries: exchanges.slice(exchanges.length - count).map(toEntry),
      total: exchanges.length,
      ended: session.endedAt !== undefined,
    };
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    const id = lowerUuid(sessionId);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (id === undefined || !session) return false;
    this.remove(id, session);
    return true;
  }

  async purgeInactiveSince(cutoff: Date): Promise<number> {
    const limit = cutoff.getTime();
    if (Number.isNaN(limit)) {
      throw createError("INTERNAL_ERROR", "The history purge cutoff is not a valid date.");
    }
    let deleted = 0;
    for (const [id, session] of this.sessions) {
      if (session.lastActive < limit) {
        this.remove(id, session);
        deleted++;
      }
    }
    return deleted;
  }

  async ping(): Promise<void> {}

  /** Evicts the least recently active sessions (never `keep`) while over a limit. */
  private evictBeyondLimits(keep: string): void {
    for (const [id, other] of this.sessions) {
      if (this.sessions.size <= this.maxSessions && this.bytes <= this.maxBytes) break;
      if (id === keep) break;
      this.remove(id, other);
    }
  }

  private find(sessionId: string): MemorySession | undefined {
    const id = lowerUuid(sessionId);
    return id === undefined ? undefined : this.sessions.get(id);
  }

  private remove(id: string, session: MemorySession): void {
    this.sessions.delete(id);
    for (const exchange of session.exchanges) this.bytes -= exchange.bytes;
  }

  private dropOldest(session: MemorySession): void {
    const oldest = session.exchanges.shift();
    if (oldest) this.bytes -= oldest.bytes;
  }
}

/** A rough allowance for the object, its id, request id and timestamp. */
const OVERHEAD_BYTES = 200;

interface MemorySession {
  createdAt: number;
  lastActive: number;
  endedAt?: number;
  exchanges: StoredExchange[];
}

interface StoredExchange {
  id: string;
  messageId: string;
  requestId: string;
  timestamp: number;
  query: string;
  response: string;
  selectedText: string | null;
  sources: string;
  metadata: string;
  bytes: number;
}

function stateOf(session: MemorySession): SessionState {
  return {
    createdAt: new Date(session.createdAt),
    lastActive: new Date(session.lastActive),
    endedAt: session.endedAt === undefined ? undefined : new Date(session.endedAt),
  };
}

function toEntry(stored: StoredExchange): HistoryEntry {
  return {
    id: stored.id,
    messageId: stored.messageId,
    requestId: stored.requestId,
    timestamp: new Date(stored.timestamp),
    query: stored.query,
    response: stored.response,
    selectedText: stored.selectedText,
    sources: JSON.parse(stored.sources) as unknown[],
    metadata: JSON.parse(stored.metadata) as Record<string, unknown>,
  };
}
