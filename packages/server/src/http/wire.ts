import { z } from "zod";

/**
 * The wire format of Lectern's HTTP API, one zod schema per message. Compatible with the seeds'
 * contract (chat-api.openapi.yaml): its fields are all here under their names; Lectern adds fields,
 * never renames or drops one. The widget imports this module for the stream events.
 */

export const MetadataFilterSchema = z.object({
  source_url_prefix: z.string().optional(),
  section: z.string().optional(),
});

/**
 * Request body of POST /chat and /chat/stream. `question` and `query_text` are accepted as
 * aliases of `query`; lengths and emptiness are checked after parsing so they can answer with
 * their own error codes.
 */
export const ChatRequestSchema = z.object({
  query: z.string().optional(),
  question: z.string().optional(),
  query_text: z.string().optional(),
  selected_text: z.string().nullable().optional(),
  session_id: z.string().nullable().optional(),
  filters: MetadataFilterSchema.nullable().optional(),
  source_url: z.string().nullable().optional(),
  /** Seed S4; `stream` is what /chat/stream does, so /chat accepts and ignores it. */
  response_format: z.enum(["json", "stream"]).optional(),
  top_k: z.number().int().min(1).max(20).optional(),
});
export type ChatRequestBody = z.infer<typeof ChatRequestSchema>;

export const SourceCitationSchema = z.object({
  source_type: z.literal("book").optional(),
  /** Full URL of the section, with its #anchor. */
  source_url: z.string(),
  title: z.string(),
  section: z.string(),
  chunk_position: z.number().int().min(0),
  similarity_score: z.number().min(0).max(1),
  /** First 200 characters of the passage. */
  snippet: z.string().max(200),
  file_path: z.string(),
  /** Page title and headings down to the section. */
  section_path: z.array(z.string()),
  /** 1-based number used by [n] markers in the answer. */
  citation_number: z.number().int().min(1),
  /** Whether the answer cites this source (model answers only). */
  cited: z.boolean().optional(),
});
export type SourceCitation = z.infer<typeof SourceCitationSchema>;

export const SelectedTextCitationSchema = z.object({
  source_type: z.literal("selected_text"),
  selection_length: z.number().int().min(0),
  snippet: z.string().max(200),
  relevance_note: z.string(),
  source_url: z.string().nullable().optional(),
  citation_number: z.number().int().min(1),
});
export type SelectedTextCitation = z.infer<typeof SelectedTextCitationSchema>;

export const CitationSchema = z.union([SourceCitationSchema, SelectedTextCitationSchema]);
export type Citation = z.infer<typeof CitationSchema>;

export const ResponseModeSchema = z.enum(["full", "selected_text", "retrieval_only", "no_results"]);
export type ResponseMode = z.infer<typeof ResponseModeSchema>;

export const ConfidenceSchema = z.enum(["high", "medium", "low"]);
export type Confidence = z.infer<typeof ConfidenceSchema>;

export const ResponseMetadataSchema = z.object({
  query_time_ms: z.number().min(0),
  retrieval_count: z.number().int().min(0),
  mode: ResponseModeSchema,
  low_confidence: z.boolean(),
  request_id: z.string().uuid(),
  /** The question as searched (normalised, or rewritten from a follow-up). */
  search_query: z.string().nullable().optional(),
  original_query: z.string().optional(),
  /** How the question was routed: a question for the book, or a greeting/thanks. */
  route: z.enum(["question", "greeting", "thanks"]).optional(),
  /** The question looked like an attempt to override instructions; it was treated as plain text. */
  injection_flagged: z.boolean().optional(),
  /** Milliseconds spent per pipeline stage. */
  timings: z.record(z.string(), z.number()).optional(),
  support: z.number().optional(),
  /** A model is configured but failed, so the answer quotes the book instead. */
  degraded: z.boolean().optional(),
});
export type ResponseMetadata = z.infer<typeof ResponseMetadataSchema>;

export const ChatResponseSchema = z.object({
  answer: z.string().nullable(),
  fallback_message: z.string().nullable(),
  sources: z.array(CitationSchema),
  metadata: ResponseMetadataSchema,
  session_id: z.string().uuid(),
  /** Seed S4's rule: high when the top source scores > 0.75 with ≥ 2 sources, medium when the mean is > 0.5, else low. */
  confidence: ConfidenceSchema,
  /** Id of the stored exchange, for feedback; null when history is off. */
  message_id: z.string().nullable().optional(),
});
export type ChatResponse = z.infer<typeof ChatResponseSchema>;

export const ErrorBodySchema = z.object({
  error_code: z.string(),
  message: z.string(),
  request_id: z.string(),
  details: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/* Server-Sent Events of /chat/stream: `event: <name>` plus `data: <json>` per event. */

export const StreamDeltaEventSchema = z.object({ delta: z.string() });
export const StreamSourcesEventSchema = z.object({
  sources: z.array(CitationSchema),
  metadata: ResponseMetadataSchema,
  session_id: z.string().uuid(),
  confidence: ConfidenceSchema,
  answer: z.string().nullable(),
  fallback_message: z.string().nullable(),
});
export const StreamDoneEventSchema = z.object({
  done: z.literal(true),
  message_id: z.string().nullable().optional(),
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
  status: z.enum(["healthy", "degraded", "unavailable"]),
  latency_ms: z.number().nullable().optional(),
  error: z.string().nullable().optional(),
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
  selected_text: z.string().nullable(),
  message_id: z.string(),
  request_id: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

export const ConversationHistoryResponseSchema = z.object({
  session_id: z.string().uuid(),
  entries: z.array(HistoryEntrySchema),
  total_entries: z.number().int().min(0),
});
