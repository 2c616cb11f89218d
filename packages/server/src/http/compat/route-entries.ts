import type { Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { ResponseSpec, RouteSpec } from "../route-spec.ts";
import {
  getS2Messages,
  getS2Session,
  getS3Health,
  getS3History,
  postS0Query,
  postS2End,
  postS2Session,
  postS3Chat,
} from "./routes.ts";
import { S0_MAX_QUESTION_CHARS } from "./s0.ts";
import { S3_LIMITS } from "./s3.ts";
import { S4_LIMITS } from "./s4.ts";

/**
 * The seeds' routes as entries of the route table (route-table.ts), so they are listed at `GET /`
 * and documented in /openapi.json like every other route. docs/compatibility.md maps each seed.
 */

interface CompatRoute extends RouteSpec {
  handler: (deps: RouteDeps) => Handler<AppEnv>;
}

const s0Error = (description: string): ResponseSpec => ({ description, schema: "S0Error" });
const s3Error = (description: string): ResponseSpec => ({ description, schema: "S3Error" });
const error = (description: string): ResponseSpec => ({ description, schema: "ErrorResponse" });

const SESSION_ID = {
  name: "session_id",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
} as const;

/** POST /chat also answers seed S4's body; documented on Lectern's own operation. */
export const S4_ON_CHAT = {
  description:
    "Seed S4: a body carrying `query_text` or `response_format` (components S4ChatRequest) is " +
    `answered in S4's words: S4ChatResponse (200), or \`text/event-stream\` when response_format ` +
    `is "stream" (events delta, response, done, error); errors as S4Error: 422 VALIDATION_ERROR ` +
    `(query_text 1–${S4_LIMITS.queryText}, selected_text ≤ ${S4_LIMITS.selectedText} characters), ` +
    "404 SESSION_NOT_FOUND (a conversation that was ended; an id not seen before starts one) or " +
    "RETRIEVAL_FAILED (nothing " +
    "in the book), 429 RATE_LIMITED, 503 SERVICE_UNAVAILABLE, 504 TIMEOUT (retry_after and " +
    "Retry-After on 429 and 503). Any other body is Lectern's ChatRequest.",
} satisfies Partial<RouteSpec>;

export const COMPAT_ROUTES: readonly CompatRoute[] = [
  {
    method: "POST",
    path: "/query",
    summary: "Seed S0: ask one question, get {answer, sources} (nothing is kept with HISTORY=off)",
    requestBody: "S0QueryRequest",
    responses: {
      200: {
        description: "The answer and its chapter / section sources",
        schema: "S0QueryResponse",
      },
      413: s0Error("The body is too large"),
      415: s0Error("The body is not JSON"),
      422: s0Error(`validation: question empty or longer than ${S0_MAX_QUESTION_CHARS} characters`),
      429: s0Error("network, retry_able (see Retry-After)"),
      503: s0Error("database or llm, retry_able (see Retry-After)"),
    },
    handler: postS0Query,
  },
  {
    method: "POST",
    path: "/api/chat",
    summary: "Seed S3: a chat message, answered with sources at or above 0.7 relevance",
    requestBody: "S3ChatRequest",
    responses: {
      200: { description: "The assistant's message", schema: "S3ChatResponse" },
      404: s3Error("Session not found"),
      413: s3Error("The body is too large"),
      415: s3Error("The body is not JSON"),
      422: s3Error(
        `message or selected_text empty or longer than ${S3_LIMITS.message} characters, ` +
          "control characters, or session_id not a UUID v4",
      ),
      429: s3Error("Too many requests (see Retry-After)"),
      503: s3Error("A service the answer needs is unavailable (see Retry-After)"),
    },
    handler: postS3Chat,
  },
  {
    method: "GET",
    path: "/api/sessions/{session_id}/history",
    summary: "Seed S3: a session's messages, a user and an assistant message per exchange",
    parameters: [SESSION_ID],
    responses: {
      200: { description: "The messages, oldest first", schema: "S3HistoryResponse" },
      404: s3Error("Session not found"),
      422: s3Error("session_id is not a UUID v4"),
      503: s3Error("History is unavailable (see Retry-After)"),
    },
    handler: getS3History,
  },
  {
    method: "GET",
    path: "/api/health",
    summary: "Seed S3: service health (as GET /health)",
    responses: {
      200: { description: "Healthy or degraded", schema: "HealthResponse" },
      503: { description: "Unavailable", schema: "HealthResponse" },
    },
    handler: getS3Health,
  },
  {
    method: "POST",
    path: "/sessions",
    summary: "Seed S2: open a conversation (state NEW until its first message)",
    responses: { 201: { description: "The new conversation", schema: "S2Session" } },
    handler: postS2Session,
  },
  {
    method: "GET",
    path: "/sessions/{session_id}",
    summary: "Seed S2: a conversation's state (NEW, ACTIVE, INACTIVE after the idle time, ENDED)",
    parameters: [SESSION_ID],
    responses: {
      200: { description: "The conversation", schema: "S2Session" },
      400: error("INVALID_SESSION_ID"),
      404: error("SESSION_NOT_FOUND"),
      503: error("DATABASE_UNAVAILABLE (see Retry-After)"),
    },
    handler: getS2Session,
  },
  {
    method: "POST",
    path: "/sessions/{session_id}/end",
    summary: "Seed S2: end a conversation (its messages stay readable until retention)",
    parameters: [SESSION_ID],
    responses: {
      200: { description: "The conversation, ENDED", schema: "S2Session" },
      400: error("INVALID_SESSION_ID"),
      404: error("SESSION_NOT_FOUND"),
      503: error("DATABASE_UNAVAILABLE (see Retry-After)"),
    },
    handler: postS2End,
  },
  {
    method: "GET",
    path: "/sessions/{session_id}/messages",
    summary: "Seed S2: a conversation's messages, sender_type user or agent, oldest first",
    parameters: [SESSION_ID],
    responses: {
      200: { description: "The messages", schema: "S2MessagesResponse" },
      400: error("INVALID_SESSION_ID"),
      404: error("SESSION_NOT_FOUND"),
      503: error("DATABASE_UNAVAILABLE (see Retry-After)"),
    },
    handler: getS2Messages,
  },
];
