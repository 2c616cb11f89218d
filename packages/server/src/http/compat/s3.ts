import { createHash } from "node:crypto";
import type { ChatInput } from "@lectern/engine/pipeline/types";
import * as z from "zod/mini";
import { renumberCitations } from "../../llm/citations.ts";
import type { ErrorContext } from "../../pipeline/error-classification.ts";
import type { HistoryEntry } from "../../store/history-store.ts";
import { type SourceCitation, SourceCitationSchema } from "../wire.ts";
import { answerText } from "./s4.ts";
import { type AnsweredTurn, bookSources, excerpt, placesOf, type SeedError } from "./shape.ts";

/**
 * Seed S3 ("RAG Chatbot Integration"), mounted under `/api`: `POST /api/chat {message,
 * session_id?, selected_text?}` answers `{session_id, message, sources, timestamp}` where a source
 * is `{title, file_path, relevance_score, excerpt}`; `GET /api/sessions/{id}/history` lists the
 * session's ChatMessages (a user and an assistant message per exchange). Its limits: a message
 * and a selection of 1–1,000 characters, sources whose relevance is at least 0.7. S3 names no
 * error body; its framework's (FastAPI) is used: `{detail}`, and for a bad body
 * `{detail: [{loc, msg, type}]}` with 422.
 */

export const S3_LIMITS = { message: 1_000, selectedText: 1_000, minRelevance: 0.7 } as const;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
// Tab, line feed and carriage return are text; other control characters are not.
function hasControlCharacters(text: string): boolean {
  for (const character of text) {
    const code = character.charCodeAt(0);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) {
      return true;
    }
  }
  return false;
}

const plainText = (max: number, what: string) =>
  z.string().check(
    z.refine((text) => text.trim().length > 0, `${what} must not be empty`),
    z.maxLength(max),
    z.refine((text) => !hasControlCharacters(text), `${what} contains control characters`),
  );

export const S3ChatRequestSchema = z.object({
  message: plainText(S3_LIMITS.message, "message"),
  session_id: z.optional(z.nullable(z.string().check(z.regex(UUID_V4, "must be a UUID v4")))),
  selected_text: z.optional(z.nullable(plainText(S3_LIMITS.selectedText, "selected_text"))),
});
export type S3ChatRequest = z.infer<typeof S3ChatRequestSchema>;

export const S3SourceSchema = z.object({
  title: z.string().check(z.minLength(1)),
  /** Relative to the site: `docs/` and the page's file. */
  file_path: z.string().check(z.startsWith("docs/")),
  relevance_score: z.number().check(z.minimum(0), z.maximum(1)),
  excerpt: z.string().check(z.maxLength(500)),
});
export type S3Source = z.infer<typeof S3SourceSchema>;

export const S3ChatResponseSchema = z.object({
  session_id: z.string().check(z.regex(UUID_V4)),
  message: z.string(),
  sources: z.array(S3SourceSchema),
  timestamp: z.iso.datetime(),
});
export type S3ChatResponse = z.infer<typeof S3ChatResponseSchema>;

export const S3ContextUsedSchema = z.object({
  chunks: z.array(S3SourceSchema),
  retrieval_timestamp: z.iso.datetime(),
});

export const S3ChatMessageSchema = z.object({
  message_id: z.string().check(z.uuid()),
  session_id: z.string().check(z.uuid()),
  role: z.enum(["user", "assistant"]),
  content: z.string().check(z.minLength(1)),
  selected_text: z.nullable(z.string()),
  context_used: z.nullable(S3ContextUsedSchema),
  created_at: z.iso.datetime(),
});
export type S3ChatMessage = z.infer<typeof S3ChatMessageSchema>;

export const S3HistoryResponseSchema = z.object({
  session_id: z.string().check(z.uuid()),
  messages: z.array(S3ChatMessageSchema),
});

export const S3ErrorSchema = z.object({
  detail: z.union([
    z.string(),
    z.array(z.object({ loc: z.array(z.string()), msg: z.string(), type: z.string() })),
  ]),
});
export type S3Error = z.infer<typeof S3ErrorSchema>;

export const S3HealthResponseSchema = z.object({
  status: z.enum(["healthy", "degraded", "unavailable"]),
  timestamp: z.string(),
});

export function s3Input(
  body: S3ChatRequest,
  ids: { requestId: string; sessionId: string },
): ChatInput {
  return {
    requestId: ids.requestId,
    sessionId: ids.sessionId,
    query: body.message.trim(),
    selectedText: body.selected_text?.trim() ? body.selected_text : null,
    // The seed's selection is context for the question: the book around it answers too.
    bookAroundSelection: true,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
  };
}

/** S3's excerpt: the passage's first 500 characters, ending in "..." when cut. */
const EXCERPT_CHARS = 500;

/** The book citations S3 lists: at or above its relevance cut-off, best first. */
function s3Citations(sources: readonly unknown[]): SourceCitation[] {
  const citations = sources.flatMap((source) => {
    const parsed = SourceCitationSchema.safeParse(source);
    return parsed.success ? [parsed.data] : [];
  });
  return bookSources(citations).filter(
    (source) => source.similarity_score >= S3_LIMITS.minRelevance,
  );
}

/**
 * Book citations at or above S3's relevance cut-off, in S3's words; `passage` gives a source's
 * whole text when it is at hand (else its snippet is the excerpt).
 */
export function s3Sources(
  sources: readonly unknown[],
  passage: (source: SourceCitation) => string | undefined = () => undefined,
): S3Source[] {
  return s3Citations(sources).map((source) => toS3Source(source, passage(source)));
}

function toS3Source(source: SourceCitation, passage: string | undefined): S3Source {
  return {
    title: source.title || source.section || source.file_path,
    file_path: `docs/${source.file_path.replace(/^\/+/, "")}`,
    relevance_score: source.similarity_score,
    excerpt: excerpt(passage ?? source.snippet, EXCERPT_CHARS, "..."),
  };
}

/**
 * The answer in S3's words. Its [n] markers are renumbered to the sources S3 lists (those under
 * the relevance cut-off are left out, and a marker of one goes with it).
 */
export function toS3Response(
  { response }: AnsweredTurn,
  timestamp: Date,
  passage?: (source: SourceCitation) => string | undefined,
): S3ChatResponse {
  const listed = s3Citations(response.sources);
  return {
    session_id: response.session_id,
    message: renumberCitations(answerText(response), placesOf(listed)),
    sources: s3Sources(response.sources, passage),
    timestamp: timestamp.toISOString(),
  };
}

/** One stored exchange as S3's two ChatMessages: the reader's and the assistant's. */
export function toS3Messages(
  sessionId: string,
  entry: HistoryEntry,
  passage?: (source: SourceCitation) => string | undefined,
): S3ChatMessage[] {
  const createdAt = entry.timestamp.toISOString();
  const answerId = isUuid(entry.requestId) ? entry.requestId : nameUuid(`answer:${entry.id}`);
  return [
    {
      message_id: nameUuid(`question:${answerId}`),
      session_id: sessionId,
      role: "user",
      content: entry.query,
      selected_text: entry.selectedText,
      context_used: null,
      created_at: createdAt,
    },
    {
      message_id: answerId,
      session_id: sessionId,
      role: "assistant",
      content:
        renumberCitations(entry.response, placesOf(s3Citations(entry.sources))) || "(no answer)",
      selected_text: null,
      context_used: { chunks: s3Sources(entry.sources, passage), retrieval_timestamp: createdAt },
      created_at: createdAt,
    },
  ];
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/**
 * A stable UUID (version 5 layout) named by `name`: the reader's message of an exchange is not
 * stored under an id of its own, so its id is derived from the answer's.
 */
export function nameUuid(name: string): string {
  const bytes = createHash("sha1").update(`lectern:${name}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** FastAPI's bodies: `{detail}` with the message, and the field list for a bad request. */
export function toS3Error(error: ErrorContext): SeedError {
  if (error.status === 422 || error.status === 400) {
    const field = typeof error.details?.field === "string" ? error.details.field : "body";
    const body: S3Error = {
      detail: [
        {
          loc: field === "body" ? ["body"] : ["body", ...field.split(".")],
          msg: error.userSafeMessage,
          type: error.errorCode.toLowerCase(),
        },
      ],
    };
    return { status: 422, body };
  }
  return { status: error.status, body: { detail: error.userSafeMessage } satisfies S3Error };
}
