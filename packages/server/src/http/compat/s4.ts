import type { ChatInput } from "@lectern/engine/pipeline/types";
import * as z from "zod/mini";
import { renumberCitations } from "../../llm/citations.ts";
import type { ErrorContext } from "../../pipeline/error-classification.ts";
import { absoluteUrl } from "../public-origin.ts";
import type { ChatResponse, Citation } from "../wire.ts";
import { type AnsweredTurn, bookSources, excerpt, placesOf, type SeedError } from "./shape.ts";

/**
 * Seed S4 ("Backend–Frontend Integration"): its clients post to the same `/chat` as S1, but
 * speak `query_text` and may ask for `response_format: "stream"`. A body carrying either field
 * is answered in S4's words: `answer_text`, `sources` of `{text, url, section_path,
 * relevance_score}`, `confidence`, `session_id`, `latency_ms`; errors as `{error, error_code,
 * session_id, retry_after}`, 422 for any invalid field, limits of 1,000 (question) and 5,000
 * (selection) characters.
 */

/** The fields whose presence marks a body as S4's (S1's body has neither). */
export const S4_MARKERS = ["query_text", "response_format"] as const;

export function isS4Body(body: Record<string, unknown>): boolean {
  return S4_MARKERS.some((field) => field in body);
}

export const S4_LIMITS = { queryText: 1_000, selectedText: 5_000 } as const;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** S4's ChatRequest. `session_id` may be left out to begin a conversation (S4 marks it required). */
export const S4ChatRequestSchema = z.object({
  query_text: z.string().check(
    z.refine((text) => text.trim().length > 0, "query_text must not be empty"),
    z.maxLength(S4_LIMITS.queryText),
  ),
  session_id: z.optional(z.nullable(z.string().check(z.regex(UUID_V4, "must be a UUID v4")))),
  selected_text: z.optional(z.nullable(z.string().check(z.maxLength(S4_LIMITS.selectedText)))),
  source_url: z.optional(z.nullable(z.url())),
  response_format: z._default(z.enum(["json", "stream"]), "json"),
});
export type S4ChatRequest = z.infer<typeof S4ChatRequestSchema>;

export const S4SourceCitationSchema = z.object({
  text: z.string().check(z.minLength(1), z.maxLength(500)),
  url: z.string(),
  /** The page title and headings down to the section, joined with " > ". */
  section_path: z.string().check(z.minLength(1)),
  relevance_score: z.number().check(z.minimum(0), z.maximum(1)),
});

export const S4ChatResponseSchema = z.object({
  answer_text: z.string().check(z.minLength(1)),
  sources: z.array(S4SourceCitationSchema).check(z.minLength(1), z.maxLength(10)),
  confidence: z.enum(["high", "medium", "low"]),
  session_id: z.string(),
  latency_ms: z.int().check(z.positive()),
  /** The earlier questions of the session that were given as context to this answer. */
  context_summaries: z.array(z.string()),
});
export type S4ChatResponse = z.infer<typeof S4ChatResponseSchema>;

export const S4ErrorSchema = z.object({
  error: z.string(),
  error_code: z.enum([
    "VALIDATION_ERROR",
    "SESSION_NOT_FOUND",
    "RETRIEVAL_FAILED",
    "AGENT_ERROR",
    "TIMEOUT",
    "SERVICE_UNAVAILABLE",
    "RATE_LIMITED",
  ]),
  session_id: z.string(),
  retry_after: z.optional(z.nullable(z.int().check(z.positive()))),
});
export type S4Error = z.infer<typeof S4ErrorSchema>;
type S4ErrorCode = S4Error["error_code"];

/** S4's request as pipeline input (already validated against S4ChatRequestSchema). */
export function s4Input(
  body: S4ChatRequest,
  ids: { requestId: string; sessionId: string },
): ChatInput {
  return {
    requestId: ids.requestId,
    sessionId: ids.sessionId,
    query: body.query_text.replaceAll("\u0000", "").trim(),
    selectedText: body.selected_text?.trim() ? body.selected_text.replaceAll("\u0000", "") : null,
    // The seed's selection is context for the question: the book around it answers too.
    bookAroundSelection: true,
    filters: undefined,
    sourceUrl: body.source_url ?? null,
    topK: undefined,
  };
}

/**
 * Lectern's answer in S4's words. A selection is cited as a source of its own (S4 requires at
 * least one), pointing at the page it came from.
 */
/** `origin` makes the book's page links absolute, as S4's `url` is (see `publicOrigin`). */
export function toS4Response(
  turn: AnsweredTurn,
  latencyMs: number,
  origin?: string,
): S4ChatResponse {
  const { input, response } = turn;
  const listed = s4Listed(response);
  return {
    // The markers follow the sources as S4 lists them: the selection first, then best first.
    answer_text: renumberCitations(answerText(response), placesOf(listed)),
    sources: listed.map((source) => s4Source(input, source, origin)),
    confidence: response.confidence,
    session_id: response.session_id,
    latency_ms: Math.max(1, Math.round(latencyMs)),
    context_summaries: (input.history ?? []).map((exchange) => exchange.query),
  };
}

export function answerText(response: ChatResponse): string {
  return response.answer ?? response.fallback_message ?? "";
}

/** The response's sources in the order S4 lists them: the selection, then the book's, best first. */
function s4Listed(response: ChatResponse): Citation[] {
  const selection = response.sources.filter((source) => source.source_type === "selected_text");
  return [...selection, ...bookSources(response.sources)].slice(0, 10);
}

function s4Source(
  input: ChatInput,
  source: Citation,
  origin: string | undefined,
): S4ChatResponse["sources"][number] {
  if (source.source_type === "selected_text")
    return {
      text: source.snippet || "(selected text)",
      // Without the page it came from, the book's own address: S4's url is always a URL.
      url: source.source_url ?? input.sourceUrl ?? absoluteUrl("/", origin),
      section_path: "Selected text",
      relevance_score: 1,
    };
  return {
    text: excerpt(source.snippet || source.title, 500),
    url: absoluteUrl(source.source_url, origin),
    section_path: source.section_path.join(" > ") || source.title,
    relevance_score: source.similarity_score,
  };
}

const BY_LECTERN_CODE: Partial<Record<string, S4ErrorCode>> = {
  VALIDATION_ERROR: "VALIDATION_ERROR",
  INVALID_SESSION_ID: "VALIDATION_ERROR",
  EMPTY_QUERY: "VALIDATION_ERROR",
  QUERY_TOO_LONG: "VALIDATION_ERROR",
  SELECTION_TOO_LONG: "VALIDATION_ERROR",
  INVALID_JSON: "VALIDATION_ERROR",
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  // S4 knows no ended state: a conversation that is over is one the server no longer has.
  SESSION_ENDED: "SESSION_NOT_FOUND",
  RATE_LIMITED: "RATE_LIMITED",
  TIMEOUT: "TIMEOUT",
  INTERNAL_ERROR: "AGENT_ERROR",
};

const STATUS: Record<S4ErrorCode, number> = {
  VALIDATION_ERROR: 422,
  SESSION_NOT_FOUND: 404,
  RETRIEVAL_FAILED: 404,
  AGENT_ERROR: 500,
  TIMEOUT: 504,
  SERVICE_UNAVAILABLE: 503,
  RATE_LIMITED: 429,
};

/** A failure in S4's words and status codes; `sessionId` is the request's (or "" before it is known). */
export function toS4Error(
  error: Pick<ErrorContext, "errorCode" | "status" | "userSafeMessage">,
  sessionId: string,
  retryAfter: number | undefined,
): SeedError {
  const code: S4ErrorCode =
    BY_LECTERN_CODE[error.errorCode] ??
    (error.status >= 500 ? "SERVICE_UNAVAILABLE" : "VALIDATION_ERROR");
  const body: S4Error = {
    error: error.userSafeMessage,
    error_code: code,
    session_id: sessionId,
    ...(retryAfter ? { retry_after: retryAfter } : {}),
  };
  return { status: STATUS[code], body };
}

/** An answer with nothing to cite: S4's RETRIEVAL_FAILED, carrying the reason Lectern gives. */
export function s4RetrievalFailed(response: ChatResponse): SeedError {
  const body: S4Error = {
    error: answerText(response) || "No relevant content was found in the book.",
    error_code: "RETRIEVAL_FAILED",
    session_id: response.session_id,
  };
  return { status: STATUS.RETRIEVAL_FAILED, body };
}
