import type { Citation, Confidence, ResponseMetadata, ResponseMode } from "@lectern/protocol";
import type { FeedbackRating } from "../api/send-feedback.ts";
import { ANSWER_ROUTES } from "../api/wire-checks.ts";

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
  /** How the server routed the question; "question" until the `sources` event says otherwise. */
  route: AnswerRoute;
  lowConfidence: boolean;
  fallbackMessage: string | null;
  /** Id of the stored exchange (from the `done` event), needed for feedback. */
  messageId: string | null;
  feedback: FeedbackState | null;
  /** Follow-up questions the server suggests after this answer. */
  suggestions: string[];
}

export type ChatMessage = UserMessage | AssistantMessage;

/** How many follow-up questions are offered under an answer. */
export const MAX_FOLLOW_UPS = 3;

export type AnswerRoute = NonNullable<ResponseMetadata["route"]>;

/**
 * Reads a route from the server's metadata or from storage. Servers that send no route, answers
 * saved before routes were stored and routes this widget does not know are all plain questions,
 * which keep every signal (confidence, notices, feedback) on display.
 */
export function answerRouteOf(value: unknown): AnswerRoute {
  return (ANSWER_ROUTES as readonly unknown[]).includes(value)
    ? (value as AnswerRoute)
    : "question";
}

/** Greetings and thanks: a canned reply, not an answer from the book. */
export function isSmallTalk(route: AnswerRoute): boolean {
  return route === "greeting" || route === "thanks";
}

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
    route: "question",
    lowConfidence: false,
    fallbackMessage: null,
    messageId: null,
    feedback: null,
    suggestions: [],
  };
}
