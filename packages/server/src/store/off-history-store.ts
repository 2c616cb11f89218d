import type { HistoryEntry, HistoryExchange, HistoryStore, SessionState } from "./history-store.ts";

/** `HISTORY=off`: nothing is stored, so every session is unknown and there is nothing to purge. */
export class OffHistoryStore implements HistoryStore {
  readonly kind = "off";

  async saveExchange(_exchange: HistoryExchange): Promise<void> {}

  async sessionExists(_sessionId: string): Promise<boolean> {
    return false;
  }

  async sessionState(_sessionId: string): Promise<SessionState | undefined> {
    return undefined;
  }

  /** The session as it would begin; nothing is kept, so it stays unknown. */
  async openSession(_sessionId: string): Promise<SessionState> {
    const now = new Date();
    return { createdAt: now, lastActive: now, endedAt: undefined };
  }

  async endSession(_sessionId: string): Promise<SessionState | undefined> {
    return undefined;
  }

  async hasMessage(_sessionId: string, _messageId: string): Promise<boolean> {
    return false;
  }

  async getHistory(
    _sessionId: string,
    _limit: number,
  ): Promise<{ entries: HistoryEntry[]; total: number; ended?: boolean } | undefined> {
    return undefined;
  }

  async deleteSession(_sessionId: string): Promise<boolean> {
    return false;
  }

  async purgeInactiveSince(_cutoff: Date): Promise<number> {
    return 0;
  }

  async ping(): Promise<void> {}
}
