import type { Handler } from "hono";
import { COMPAT_ROUTES, S4_ON_CHAT } from "./compat/route-entries.ts";
import { chatOrS4 } from "./compat/routes.ts";
import type { RouteDeps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import type { ParameterSpec, ResponseSpec, RouteSpec } from "./route-spec.ts";
import { getOpenApi, getRoot, getWidgetScript } from "./routes/about.ts";
import { getAdmin } from "./routes/admin.ts";
import { postChat } from "./routes/chat.ts";
import { postChatStream } from "./routes/chat-stream.ts";
import { exportFeedback, postFeedback } from "./routes/feedback.ts";
import { getHealth, getReady } from "./routes/health.ts";
import { deleteHistory, getHistory } from "./routes/history.ts";
import { getLlmsFullTxt, getLlmsTxt } from "./routes/llms-txt.ts";
import { postMcp } from "./routes/mcp.ts";
import { getMetrics } from "./routes/metrics.ts";
import { getSearch } from "./routes/search.ts";
import { deleteShare, getShare, postShare } from "./routes/share.ts";
import { getSuggestions } from "./routes/suggestions.ts";

/**
 * Every route the server answers, in one table: `buildApp` registers exactly these, and the
 * endpoint listing at `GET /`, the `Allow` header of a 405 and `/openapi.json` are generated from
 * it, so a route cannot be served without being documented.
 */

export interface Route extends RouteSpec {
  /** Builds the route's handler (in `routes/`) from the app's deps. */
  handler: (deps: RouteDeps) => Handler<AppEnv>;
}

const error = (description: string): ResponseSpec => ({ description, schema: "ErrorResponse" });

const CHAT_ERRORS = {
  400: error(
    "EMPTY_QUERY, QUERY_TOO_LONG, SELECTION_TOO_LONG, INVALID_SESSION_ID, INVALID_FILTER or INVALID_JSON",
  ),
  409: error("SESSION_ENDED: the session was ended (seed S2) and takes no new message"),
  413: error("PAYLOAD_TOO_LARGE"),
  415: error("UNSUPPORTED_MEDIA_TYPE"),
  422: error("VALIDATION_ERROR or TEXT_NOT_STORABLE"),
  429: error("RATE_LIMITED (see Retry-After)"),
  500: error("INTERNAL_ERROR"),
  503: error(
    "DATABASE_UNAVAILABLE, SERVICE_UNAVAILABLE, LLM_UNAVAILABLE, GEMINI_UNAVAILABLE or QDRANT_UNAVAILABLE (see Retry-After)",
  ),
  504: error("TIMEOUT"),
};

const SESSION_ID: ParameterSpec = {
  name: "session_id",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

const SHARE_ID: ParameterSpec = {
  name: "share_id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[A-Za-z0-9_-]{22}$" },
};

/** llms.txt of one docs version in one locale (default: the latest version, the default locale). */
const LLMS_SLICE: readonly ParameterSpec[] = [
  { name: "version", in: "query", required: false, schema: { type: "string", maxLength: 100 } },
  { name: "locale", in: "query", required: false, schema: { type: "string", maxLength: 35 } },
];

export const ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/chat",
    summary: "Ask a question about the book; JSON answer with sources",
    requestBody: "ChatRequest",
    responses: {
      200: { description: "Answer with sources", schema: "ChatResponse" },
      ...CHAT_ERRORS,
    },
    ...S4_ON_CHAT,
    handler: (deps) => chatOrS4(deps, postChat(deps)),
  },
  {
    method: "POST",
    path: "/chat/stream",
    summary: "Ask a question; Server-Sent Events: delta…, sources, done (or error)",
    requestBody: "ChatRequest",
    responses: {
      200: { description: "text/event-stream", contentType: "text/event-stream" },
      ...CHAT_ERRORS,
    },
    handler: postChatStream,
  },
  {
    method: "GET",
    path: "/search",
    summary: "Keyword search as the reader types: sections with highlighted snippets",
    parameters: [
      {
        name: "q",
        in: "query",
        required: true,
        schema: { type: "string", minLength: 1, maxLength: 200 },
      },
      {
        name: "limit",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 1, maximum: 20, default: 8 },
      },
      {
        name: "version",
        in: "query",
        required: false,
        schema: { type: "string", maxLength: 100 },
      },
      {
        name: "locale",
        in: "query",
        required: false,
        schema: { type: "string", maxLength: 35 },
      },
    ],
    responses: {
      200: { description: "Matching sections, best first", schema: "SearchResponse" },
      400: error("EMPTY_QUERY, QUERY_TOO_LONG or INVALID_FILTER (an unknown version or locale)"),
      422: error("VALIDATION_ERROR"),
      503: error("SERVICE_UNAVAILABLE: no search on this server"),
    },
    handler: getSearch,
  },
  {
    method: "GET",
    path: "/suggestions",
    summary: "Starter questions for an empty conversation",
    responses: {
      200: { description: "Questions, best first", schema: "SuggestionsResponse" },
    },
    handler: getSuggestions,
  },
  {
    method: "GET",
    path: "/history/{session_id}",
    summary: "A session's exchanges, oldest first",
    parameters: [
      SESSION_ID,
      {
        name: "limit",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 1, maximum: 100, default: 50 },
      },
    ],
    responses: {
      200: { description: "History", schema: "ConversationHistoryResponse" },
      400: error("INVALID_SESSION_ID"),
      404: error("SESSION_NOT_FOUND"),
      422: error("VALIDATION_ERROR (limit)"),
      429: error("RATE_LIMITED (see Retry-After)"),
    },
    handler: getHistory,
  },
  {
    method: "DELETE",
    path: "/history/{session_id}",
    summary: "Delete a session and everything in it",
    parameters: [SESSION_ID],
    responses: {
      200: { description: "Deleted" },
      400: error("INVALID_SESSION_ID"),
      404: error("SESSION_NOT_FOUND"),
      429: error("RATE_LIMITED (see Retry-After)"),
    },
    handler: deleteHistory,
  },
  {
    method: "POST",
    path: "/share",
    summary: "Share one answer of a session as a read-only link (SHARE_ENABLED)",
    responses: {
      201: { description: "`{share_id, url}`" },
      400: error("INVALID_JSON or INVALID_SESSION_ID"),
      403: error("SHARING_DISABLED"),
      404: error("MESSAGE_NOT_FOUND"),
      413: error("PAYLOAD_TOO_LARGE"),
      415: error("UNSUPPORTED_MEDIA_TYPE"),
      422: error("VALIDATION_ERROR"),
      429: error("RATE_LIMITED (see Retry-After)"),
    },
    handler: postShare,
  },
  {
    method: "GET",
    path: "/share/{share_id}",
    summary: "A shared answer: an HTML page for browsers, JSON otherwise",
    parameters: [SHARE_ID],
    responses: {
      200: { description: "The question, the answer and its sources" },
      404: error("SHARE_NOT_FOUND (also when sharing is off)"),
    },
    handler: getShare,
  },
  {
    method: "DELETE",
    path: "/share/{share_id}",
    summary: "Delete a shared answer (X-Session-Id: the session that shared it)",
    parameters: [SHARE_ID],
    responses: {
      200: { description: "Deleted" },
      400: error("INVALID_SESSION_ID"),
      403: error("SHARING_DISABLED"),
      404: error("SHARE_NOT_FOUND"),
    },
    handler: deleteShare,
  },
  {
    method: "GET",
    path: "/health",
    summary: "Status of the database, the index and the model",
    responses: {
      200: { description: "Healthy or degraded", schema: "HealthResponse" },
      503: { description: "Unavailable", schema: "HealthResponse" },
    },
    handler: getHealth,
  },
  {
    method: "GET",
    path: "/ready",
    summary: "Readiness for traffic",
    responses: { 200: { description: "Ready" }, 503: { description: "Not ready" } },
    handler: getReady,
  },
  {
    method: "POST",
    path: "/feedback",
    summary: "Thumbs up or down on an answer",
    requestBody: "FeedbackRequest",
    responses: {
      201: { description: "Stored (a later vote on the same answer replaces it)" },
      400: error("INVALID_JSON or INVALID_SESSION_ID"),
      404: error("MESSAGE_NOT_FOUND: no answer with this message_id in this session"),
      413: error("PAYLOAD_TOO_LARGE"),
      415: error("UNSUPPORTED_MEDIA_TYPE"),
      422: error("VALIDATION_ERROR"),
      429: error("RATE_LIMITED (see Retry-After)"),
      503: error("SERVICE_UNAVAILABLE: feedback is not stored on this server"),
    },
    handler: postFeedback,
  },
  {
    method: "GET",
    path: "/feedback",
    summary: "Export feedback (admin token)",
    parameters: [
      { name: "format", in: "query", required: false, schema: { type: "string", enum: ["csv"] } },
    ],
    responses: {
      200: { description: "Every vote, as JSON or (format=csv) as CSV" },
      401: error("UNAUTHORIZED"),
      429: error("RATE_LIMITED: too many wrong admin tokens from this client (see Retry-After)"),
      503: error("SERVICE_UNAVAILABLE: feedback is not stored on this server"),
    },
    handler: exportFeedback,
  },
  {
    method: "GET",
    path: "/admin",
    summary:
      "Insights for authors: topics, unanswered questions, vocabulary gaps, stale answers (admin token; Basic or Bearer)",
    parameters: [
      {
        name: "since",
        in: "query",
        required: false,
        schema: { type: "string", pattern: "^\\d+(\\.\\d+)?[mhdw]$", default: "7d" },
      },
      {
        name: "format",
        in: "query",
        required: false,
        schema: { type: "string", enum: ["html", "json"], default: "html" },
      },
    ],
    responses: {
      200: { description: "The insights page (text/html), or the report as JSON (format=json)" },
      401: error("UNAUTHORIZED (WWW-Authenticate: Basic; the password is LECTERN_ADMIN_TOKEN)"),
      404: error("NOT_FOUND: no LECTERN_ADMIN_TOKEN is set, or INSIGHTS=off"),
      422: error("VALIDATION_ERROR (since, format)"),
      429: error("RATE_LIMITED: too many wrong admin tokens from this client (see Retry-After)"),
    },
    handler: getAdmin,
  },
  {
    method: "GET",
    path: "/metrics",
    summary: "Prometheus metrics (bearer LECTERN_METRICS_TOKEN when set)",
    responses: {
      200: { description: "Prometheus text format", contentType: "text/plain" },
      401: error("UNAUTHORIZED"),
    },
    handler: getMetrics,
  },
  {
    method: "GET",
    path: "/openapi.json",
    summary: "This API as OpenAPI 3.1",
    responses: { 200: { description: "The OpenAPI document" } },
    handler: getOpenApi,
  },
  {
    method: "GET",
    path: "/",
    summary: "This listing (JSON), or the book's front page for a browser",
    responses: { 200: { description: "Name, version and endpoints, or an HTML page" } },
    handler: getRoot,
  },
  {
    method: "GET",
    path: "/lectern.js",
    summary: "The chat widget script for the demo site",
    responses: {
      200: { description: "The script", contentType: "text/javascript" },
      304: { description: "Not modified (If-None-Match)" },
      404: { description: "No demo site, or the widget is not built" },
    },
    handler: getWidgetScript,
  },
  {
    method: "GET",
    path: "/llms.txt",
    summary:
      "The book for language models (llmstxt.org): its parts and pages, linking each page's .md",
    parameters: LLMS_SLICE,
    responses: {
      200: { description: "llms.txt", contentType: "text/plain" },
      400: error("INVALID_FILTER: an unknown version or locale"),
      404: error("NOT_FOUND: no demo site on this server"),
    },
    handler: getLlmsTxt,
  },
  {
    method: "GET",
    path: "/llms-full.txt",
    summary: "Every page of the book as Markdown, in reading order",
    parameters: LLMS_SLICE,
    responses: {
      200: { description: "llms-full.txt", contentType: "text/plain" },
      400: error("INVALID_FILTER: an unknown version or locale"),
      404: error("NOT_FOUND: no demo site on this server"),
    },
    handler: getLlmsFullTxt,
  },
  {
    method: "POST",
    path: "/mcp",
    summary:
      "Model Context Protocol over Streamable HTTP (stateless): tools search_docs, ask_docs, get_page; pages as resources",
    responses: {
      200: { description: "A JSON-RPC response (application/json)" },
      202: { description: "A notification, accepted" },
      400: { description: "A JSON-RPC error: the body is not a JSON-RPC message" },
      406: {
        description: "A JSON-RPC error: Accept must list application/json and text/event-stream",
      },
      413: error("PAYLOAD_TOO_LARGE"),
      429: error("RATE_LIMITED (see Retry-After)"),
      503: error("SERVICE_UNAVAILABLE: no MCP server on this server"),
    },
    handler: postMcp,
  },
  ...COMPAT_ROUTES,
];
