import * as z from "zod/mini";

/**
 * The wire format of Lectern's HTTP API, one zod schema per message. Compatible with the seeds'
 * contract (chat-api.openapi.yaml): its fields are all here under their names; Lectern adds fields,
 * never renames or drops one. The widget imports this module for the stream events.
 */

export const MetadataFilterSchema = z.object({
  source_url_prefix: z.optional(z.string()),
  section: z.optional(z.string()),
  /**
   * The docs version the reader reads, on a versioned book: a version's name ("29.7", "current"),
   * its label ("Next"), its URL segment ("next") or "latest". Absent: the version of the page in
   * `source_url`, else the latest. Ignored by a book without versions.
   */
  version: z.optional(z.string().check(z.maxLength(100))),
  /**
   * The locale the reader reads, on a translated book: "fr", "pt-BR", or the page's `<html lang>`
   * ("fr-FR" is fr). Absent: the locale of the page in `source_url`, else the default locale.
   * Ignored by an untranslated book.
   */
  locale: z.optional(z.string().check(z.maxLength(35))),
});

/**
 * Request body of POST /chat and /chat/stream. `question` is accepted as an alias of `query`;
 * lengths and emptiness are checked after parsing so they can answer with their own error codes.
 * A /chat body carrying `query_text` or `response_format` is seed S4's and is answered in S4's
 * shape (docs/compatibility.md); /chat/stream still reads `query_text` as `query`.
 */
export const ChatRequestSchema = z.object({
  query: z.optional(z.string()),
  question: z.optional(z.string()),
  query_text: z.optional(z.string()),
  selected_text: z.optional(z.nullable(z.string())),
  /**
   * What a question with `selected_text` is answered from: the selection alone (`selection`, the
   * default, as seed S1 says), or the selection and the book around it (`selection_and_book`).
   */
  selection_scope: z.optional(z.enum(["selection", "selection_and_book"])),
  session_id: z.optional(z.nullable(z.string())),
  filters: z.optional(z.nullable(MetadataFilterSchema)),
  source_url: z.optional(z.nullable(z.string())),
  /** Seed S4's; on POST /chat it selects S4's answer (see above), on /chat/stream it is ignored. */
  response_format: z.optional(z.enum(["json", "stream"])),
  top_k: z.optional(z.int().check(z.minimum(1), z.maximum(20))),
});
export type ChatRequestBody = z.infer<typeof ChatRequestSchema>;

export const SourceCitationSchema = z.object({
  source_type: z.optional(z.literal("book")),
  /** Full URL of the section, with its #anchor. */
  source_url: z.string(),
  title: z.string(),
  section: z.string(),
  chunk_position: z.int().check(z.minimum(0)),
  similarity_score: z.number().check(z.minimum(0), z.maximum(1)),
  /**
   * First 200 characters of the passage: of what the answer quotes from it when it is cited (the
   * sentence set in bold, the lead passage), so a link's text fragment highlights that.
   */
  snippet: z.string().check(z.maxLength(200)),
  file_path: z.string(),
  /** Page title and headings down to the section. */
  section_path: z.array(z.string()),
  /** 1-based number used by [n] markers in the answer. */
  citation_number: z.int().check(z.minimum(1)),
  /** Whether the answer cites this source; absent when that is not tracked. */
  cited: z.optional(z.boolean()),
});
export type SourceCitation = z.infer<typeof SourceCitationSchema>;

export const SelectedTextCitationSchema = z.object({
  source_type: z.literal("selected_text"),
  selection_length: z.int().check(z.minimum(0)),
  snippet: z.string().check(z.maxLength(200)),
  relevance_note: z.string(),
  source_url: z.optional(z.nullable(z.string())),
  citation_number: z.int().check(z.minimum(1)),
});
export type SelectedTextCitation = z.infer<typeof SelectedTextCitationSchema>;

export const CitationSchema = z.union([SourceCitationSchema, SelectedTextCitationSchema]);
export type Citation = z.infer<typeof CitationSchema>;

export const ResponseModeSchema = z.enum(["full", "selected_text", "retrieval_only", "no_results"]);
export type ResponseMode = z.infer<typeof ResponseModeSchema>;

export const ConfidenceSchema = z.enum(["high", "medium", "low"]);
export type Confidence = z.infer<typeof ConfidenceSchema>;

export const ResponseMetadataSchema = z.object({
  query_time_ms: z.number().check(z.minimum(0)),
  retrieval_count: z.int().check(z.minimum(0)),
  mode: ResponseModeSchema,
  low_confidence: z.boolean(),
  request_id: z.string().check(z.uuid()),
  /** The question as searched (normalised, or rewritten from a follow-up). */
  search_query: z.optional(z.nullable(z.string())),
  original_query: z.optional(z.string()),
  /** How the question was routed: a question for the book, one about the whole book, or small talk. */
  route: z.optional(z.enum(["question", "greeting", "thanks", "overview"])),
  /** The question looked like an attempt to override instructions; it was treated as plain text. */
  injection_flagged: z.optional(z.boolean()),
  /** Milliseconds spent per pipeline stage. */
  timings: z.optional(z.record(z.string(), z.number())),
  support: z.optional(z.number()),
  /** A model is configured but failed, so the answer quotes the book instead. */
  degraded: z.optional(z.boolean()),
});
export type ResponseMetadata = z.infer<typeof ResponseMetadataSchema>;

export const ChatResponseSchema = z.object({
  answer: z.nullable(z.string()),
  fallback_message: z.nullable(z.string()),
  sources: z.array(CitationSchema),
  metadata: ResponseMetadataSchema,
  session_id: z.string().check(z.uuid()),
  /** Seed S4's rule: high when the top source scores > 0.75 with ≥ 2 sources, medium when the mean is > 0.5, else low. */
  confidence: ConfidenceSchema,
  /** Id of the stored exchange, for feedback; null when history is off. */
  message_id: z.optional(z.nullable(z.string())),
  /** Questions the reader may want to ask next (clicking one asks it); absent when there are none. */
  suggestions: z.optional(z.array(z.string())),
});
export type ChatResponse = z.infer<typeof ChatResponseSchema>;

export const ErrorBodySchema = z.object({
  error_code: z.string(),
  message: z.string(),
  request_id: z.string(),
  details: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/* Server-Sent Events of /chat/stream: `event: <name>` plus `data: <json>` per event. */

export const StreamDeltaEventSchema = z.object({ delta: z.string() });
export const StreamSourcesEventSchema = z.object({
  sources: z.array(CitationSchema),
  metadata: ResponseMetadataSchema,
  session_id: z.string().check(z.uuid()),
  confidence: ConfidenceSchema,
  answer: z.nullable(z.string()),
  fallback_message: z.nullable(z.string()),
  suggestions: z.optional(z.array(z.string())),
});
export const StreamDoneEventSchema = z.object({
  done: z.literal(true),
  message_id: z.optional(z.nullable(z.string())),
});
export const StreamErrorEventSchema = z.object({
  error: z.object({
    error_code: z.string(),
    message: z.string(),
    request_id: z.string(),
    retry_able: z.boolean(),
  }),
});

export const StreamEventSchema = z.union([
  StreamDeltaEventSchema,
  StreamSourcesEventSchema,
  StreamDoneEventSchema,
  StreamErrorEventSchema,
]);
export type StreamEvent = z.infer<typeof StreamEventSchema>;

export const STREAM_EVENT_NAMES = ["delta", "sources", "done", "error"] as const;
export type StreamEventName = (typeof STREAM_EVENT_NAMES)[number];

/** Parses one SSE event by its name; throws on a malformed payload. */
export function parseStreamEvent(name: string, data: string) {
  const json = JSON.parse(data) as unknown;
  switch (name) {
    case "delta":
      return { name, data: StreamDeltaEventSchema.parse(json) } as const;
    case "sources":
      return { name, data: StreamSourcesEventSchema.parse(json) } as const;
    case "done":
      return { name, data: StreamDoneEventSchema.parse(json) } as const;
    case "error":
      return { name, data: StreamErrorEventSchema.parse(json) } as const;
    default:
      throw new Error(`Unknown stream event "${name}"`);
  }
}

export const ServiceStatusSchema = z.object({
  name: z.string(),
  /** Seed S1's statuses; a service the server does not use (postgres, qdrant) is not listed. */
  status: z.enum(["healthy", "degraded", "unavailable"]),
  latency_ms: z.optional(z.nullable(z.number())),
  error: z.optional(z.nullable(z.string())),
});

export const HealthResponseSchema = z.object({
  status: z.enum(["healthy", "degraded", "unavailable"]),
  timestamp: z.string(),
  services: z.record(z.string(), ServiceStatusSchema),
  version: z.string(),
});

export const HistoryEntrySchema = z.object({
  timestamp: z.string(),
  query: z.string(),
  response: z.string(),
  sources: z.array(z.unknown()),
  selected_text: z.nullable(z.string()),
  message_id: z.string(),
  request_id: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

export const ConversationHistoryResponseSchema = z.object({
  session_id: z.string().check(z.uuid()),
  entries: z.array(HistoryEntrySchema),
  total_entries: z.int().check(z.minimum(0)),
});

/** POST /feedback: a reader's thumbs up or down on an answer. */
export const FeedbackRequestSchema = z.object({
  session_id: z.string(),
  message_id: z.string().check(z.minLength(1), z.maxLength(200)),
  rating: z.enum(["up", "down"]),
  comment: z.optional(z.nullable(z.string().check(z.maxLength(2_000)))),
});
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

/** GET /search?q=…: sections whose words match what the reader has typed so far. */
export const SearchResultSchema = z.object({
  page_title: z.string(),
  /** The section's heading; null for a page's opening. */
  section: z.nullable(z.string()),
  url: z.string(),
  snippet: z.string(),
  /** [start, end) character offsets in `snippet` of the words that matched. */
  highlights: z.array(z.tuple([z.int(), z.int()])),
  score: z.number(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

export const SearchResponseSchema = z.object({
  query: z.string(),
  results: z.array(SearchResultSchema),
  took_ms: z.number(),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

/** GET /suggestions: questions to offer a reader before the first one. */
export const SuggestionsResponseSchema = z.object({
  questions: z.array(z.string()),
});
export type SuggestionsResponse = z.infer<typeof SuggestionsResponseSchema>;
