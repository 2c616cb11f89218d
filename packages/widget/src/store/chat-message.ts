import type { Citation, Confidence, ResponseMode } from "@lectern/server/wire";
import type { FeedbackRating } from "../api/send-feedback.ts";

export interface UserMessage {
  id: string;
  role: "user";
  text: string;
  /** Text the reader selected on the page and asked about. */
  selectedText: string | null;
}

export interface FeedbackState {
  rating: FeedbackRating;
  status: "sending" | "sent";
}

export interface AssistantMessage {
  id: string;
  role: "assistant";
  /** The answer as streamed so far; the final answer once the `sources` event arrives. */
  text: string;
  /** Still receiving deltas. */
  streaming: boolean;
  /** The reader pressed Stop; `text` is what arrived before. */
  stopped: boolean;
  /** Whether the `sources` event arrived, so citations can be resolved. */
  complete: boolean;
  sources: Citation[];
  confidence: Confidence | null;
  mode: ResponseMode | null;
  lowConfidence: boolean;
  fallbackMessage: string | null;
  /** Id of the stored exchange (from the `done` event), needed for feedback. */
  messageId: string | null;
  feedback: FeedbackState | null;
}

export type ChatMessage = UserMessage | AssistantMessage;

export function newAssistantMessage(id: string): AssistantMessage {
  return {
    id,
    role: "assistant",
    text: "",
    streaming: true,
    stopped: false,
    complete: false,
    sources: [],
    confidence: null,
    mode: null,
    lowConfidence: false,
    fallbackMessage: null,
    messageId: null,
    feedback: null,
  };
}
