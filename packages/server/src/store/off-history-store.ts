import type { HistoryEntry, HistoryExchange, HistoryStore } from "./history-store.ts";

/** `HISTORY=off`: nothing is stored, so every session is unknown and there is nothing to purge. */
export class OffHistoryStore implements HistoryStore {
  readonly kind = "off";

  async saveExchange(_exchange: HistoryExchange): Promise<void> {}

  async sessionExists(_sessionId: string): Promise<boolean> {
    return false;
  }

  async hasMessage(_sessionId: string, _messageId: string): Promise<boolean> {
    return false;
  }

  async getHistory(
    _sessionId: string,
    _limit: number,
  ): Promise<{ entries: HistoryEntry[]; total: number } | undefined> {
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
