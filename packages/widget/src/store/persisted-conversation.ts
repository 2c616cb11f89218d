import { readQuestions } from "../api/wire-checks.ts";
import { isUuidV4 } from "../util/random-uuid.ts";
import {
  type AssistantMessage,
  answerRouteOf,
  type ChatMessage,
  MAX_FOLLOW_UPS,
} from "./chat-message.ts";

/** What survives a reload: the session and the messages the reader could see. */
export interface PersistedConversation {
  sessionId: string;
  messages: ChatMessage[];
}

// Fields added later are optional in storage, so conversations saved by an earlier widget still load.
const FORMAT_VERSION = 1;

/** A message as read back from storage: answers saved before routes were stored have none. */
type StoredMessage =
  | Exclude<ChatMessage, AssistantMessage>
  | (Omit<AssistantMessage, "route" | "suggestions"> & { route?: unknown; suggestions?: unknown });

/** One conversation per API, so two widgets for two books on one site stay apart. */
export function storageKeyFor(apiUrl: string): string {
  return `lectern-chat:${apiUrl}`;
}

// sessionStorage throws in some sandboxed frames and when full; losing persistence is acceptable.

export function loadConversation(key: string): PersistedConversation | null {
  try {
    const raw = window.sessionStorage.getItem(key);
    if (!raw) return null;
    const stored = JSON.parse(raw) as Partial<PersistedConversation> & { version?: number };
    if (stored.version !== FORMAT_VERSION || !isUuidV4(stored.sessionId)) return null;
    if (!Array.isArray(stored.messages) || !stored.messages.every(isStoredMessage)) return null;
    return { sessionId: stored.sessionId, messages: stored.messages.map(settle) };
  } catch {
    return null;
  }
}

export function saveConversation(key: string, conversation: PersistedConversation): void {
  try {
    window.sessionStorage.setItem(
      key,
      JSON.stringify({ version: FORMAT_VERSION, ...conversation }),
    );
  } catch {
    // Quota or access denied: the conversation simply does not survive a reload.
  }
}

export function removeConversation(key: string): void {
  try {
    window.sessionStorage.removeItem(key);
  } catch {
    // Nothing stored that we could reach.
  }
}

function isStoredMessage(value: unknown): value is StoredMessage {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Partial<ChatMessage>;
  if (typeof message.id !== "string" || typeof message.text !== "string") return false;
  if (message.role === "user") return true;
  return message.role === "assistant" && Array.isArray(message.sources);
}

/** A feedback request cut off by the reload never finished: offer the buttons again. */
function settle(message: StoredMessage): ChatMessage {
  if (message.role !== "assistant") return message;
  const feedback = message.feedback?.status === "sent" ? message.feedback : null;
  return {
    ...message,
    streaming: false,
    feedback,
    route: answerRouteOf(message.route),
    suggestions: readQuestions(message.suggestions, MAX_FOLLOW_UPS),
  };
}
