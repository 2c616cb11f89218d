import type { ChatInput } from "@lectern/engine/pipeline/types";
import { cutText } from "@lectern/engine/util/cut-text";
import * as z from "zod/mini";
import { renumberCitations } from "../../llm/citations.ts";
import type { ErrorContext } from "../../pipeline/error-classification.ts";
import { answerText } from "./s4.ts";
import { type AnsweredTurn, bookSources, type SeedError } from "./shape.ts";

/**
 * Seed S0 ("Agent Pipeline"): its frontend keeps the conversation in memory and sends each
 * question alone, `POST /query {question}`, reading `{answer, sources}` where a source is the
 * chapter and section it came from ("Chapter / Section"). A question is 1–10,000 characters.
 * Failures are S0's ErrorContext as the frontend sees it: `{error_type, user_safe_message,
 * retry_able}`. S0 keeps nothing on the server; Lectern does so with `HISTORY=off`.
 */

export const S0_MAX_QUESTION_CHARS = 10_000;

export const S0QueryRequestSchema = z.object({
  question: z.string().check(
    z.refine((text) => text.trim().length > 0, "question must not be empty"),
    z.maxLength(S0_MAX_QUESTION_CHARS),
  ),
});
export type S0QueryRequest = z.infer<typeof S0QueryRequestSchema>;

export const S0QueryResponseSchema = z.object({
  answer: z.string().check(z.minLength(1), z.maxLength(S0_MAX_QUESTION_CHARS)),
  /** "Chapter / Section" for each source the answer is grounded in; empty when it is not. */
  sources: z.array(z.string()),
});
export type S0QueryResponse = z.infer<typeof S0QueryResponseSchema>;

export const S0ErrorTypeSchema = z.enum([
  "network",
  "database",
  "llm",
  "validation",
  "agent",
  "unknown",
]);

export const S0ErrorSchema = z.object({
  error_type: S0ErrorTypeSchema,
  user_safe_message: z.string(),
  retry_able: z.boolean(),
});
export type S0Error = z.infer<typeof S0ErrorSchema>;

/** S0's question as pipeline input: a new conversation every time (S0 keeps none). */
export function s0Input(
  body: S0QueryRequest,
  ids: { requestId: string; sessionId: string },
): ChatInput {
  return {
    requestId: ids.requestId,
    sessionId: ids.sessionId,
    query: body.question.replaceAll("\u0000", "").trim(),
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
  };
}

export function toS0Response({ response }: AnsweredTurn): S0QueryResponse {
  const book = bookSources(response.sources);
  const names = book.map((source) =>
    source.section && source.section !== source.title
      ? `${source.title} / ${source.section}`
      : source.title,
  );
  const sources = [...new Set(names)];
  // A marker names its source's place in S0's list (sections named alike are listed once).
  const places = new Map(
    book.map((source, index) => [source.citation_number, sources.indexOf(names[index] ?? "") + 1]),
  );
  return {
    // S0's messages hold at most 10,000 characters, the answer's too; cut between characters.
    answer: cutText(
      renumberCitations(answerText(response), (citation) => places.get(citation)),
      S0_MAX_QUESTION_CHARS,
    ),
    sources,
  };
}

const INPUT_CODES = new Set(["VALIDATION_ERROR", "EMPTY_QUERY", "QUERY_TOO_LONG", "INVALID_JSON"]);

/**
 * S0 names no status codes; a bad body is 422 as in its framework (FastAPI), everything else
 * keeps Lectern's status. Being rate limited is transient, so it is a retryable network error.
 */
export function toS0Error(error: ErrorContext): SeedError {
  const rateLimited = error.errorCode === "RATE_LIMITED";
  const body: S0Error = {
    error_type: rateLimited ? "network" : error.errorType,
    user_safe_message: error.userSafeMessage,
    retry_able: error.retryable,
  };
  return { status: INPUT_CODES.has(error.errorCode) ? 422 : error.status, body };
}
