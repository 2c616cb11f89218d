import * as z from "zod/mini";
import type { HistoryEntry } from "../../store/history-store.ts";
import { nameUuid } from "./s3.ts";

/**
 * Seed S2 ("RAG Chatbot Agent"): a conversation moves NEW → ACTIVE → INACTIVE (no message for
 * 30 minutes, `HISTORY_INACTIVE_MINUTES`) → ENDED (ended explicitly); its messages are
 * ChatMessages with `sender_type` user or agent. At most 50 messages (`HISTORY_MAX_CONTEXT_MESSAGES`)
 * reach the model as context, the oldest dropped; history keeps every one until retention.
 */

export const S2StateSchema = z.enum(["NEW", "ACTIVE", "INACTIVE", "ENDED"]);
export type S2State = z.infer<typeof S2StateSchema>;

export const S2SessionSchema = z.object({
  session_id: z.string().check(z.uuid()),
  state: S2StateSchema,
  created_at: z.iso.datetime(),
  last_activity_at: z.iso.datetime(),
  message_count: z.int().check(z.minimum(0)),
});
export type S2Session = z.infer<typeof S2SessionSchema>;

export const S2ChatMessageSchema = z.object({
  id: z.string().check(z.minLength(1)),
  content: z.string().check(z.minLength(1)),
  sender_type: z.enum(["user", "agent"]),
  timestamp: z.iso.datetime(),
  conversation_id: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

export const S2MessagesResponseSchema = z.object({
  session_id: z.string().check(z.uuid()),
  messages: z.array(S2ChatMessageSchema),
});

export interface ConversationFacts {
  sessionId: string;
  createdAt: Date;
  lastActivityAt: Date;
  messageCount: number;
  endedAt: Date | undefined;
}

/** The state at `now`: ENDED once ended, NEW before a message, INACTIVE after the idle time. */
export function conversationState(facts: ConversationFacts, now: Date, idleMs: number): S2State {
  if (facts.endedAt) return "ENDED";
  if (facts.messageCount === 0) return "NEW";
  return now.getTime() - facts.lastActivityAt.getTime() >= idleMs ? "INACTIVE" : "ACTIVE";
}

export function toS2Session(facts: ConversationFacts, now: Date, idleMs: number): S2Session {
  return {
    session_id: facts.sessionId,
    state: conversationState(facts, now, idleMs),
    created_at: facts.createdAt.toISOString(),
    last_activity_at: facts.lastActivityAt.toISOString(),
    message_count: facts.messageCount,
  };
}

/** One stored exchange as S2's two messages: the reader's (user) and the answer (agent). */
export function toS2Messages(sessionId: string, entry: HistoryEntry) {
  const timestamp = entry.timestamp.toISOString();
  return [
    {
      id: nameUuid(`question:${entry.requestId}`),
      content: entry.query,
      sender_type: "user" as const,
      timestamp,
      conversation_id: sessionId,
      metadata: entry.selectedText === null ? {} : { selected_text: entry.selectedText },
    },
    {
      id: entry.requestId,
      content: entry.response || "(no answer)",
      sender_type: "agent" as const,
      timestamp,
      conversation_id: sessionId,
      metadata: { sources: entry.sources, mode: entry.metadata.mode ?? null },
    },
  ];
}
