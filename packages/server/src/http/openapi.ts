import type { Hono } from "hono";
import * as z from "zod/mini";
import {
  ChatRequestSchema,
  ChatResponseSchema,
  ConversationHistoryResponseSchema,
  ErrorBodySchema,
  HealthResponseSchema,
} from "./wire.ts";

/**
 * The API as OpenAPI 3.1, generated from the same zod schemas the handlers validate with (JSON
 * Schema 2020-12, which OpenAPI 3.1 uses as is). Served at /openapi.json.
 */
export function openApiDocument(version: string) {
  const schema = (zodSchema: z.core.$ZodType) => {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(zodSchema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    return rest;
  };
  const components = {
    ChatRequest: schema(ChatRequestSchema),
    ChatResponse: schema(ChatResponseSchema),
    ErrorResponse: schema(ErrorBodySchema),
    HealthResponse: schema(HealthResponseSchema),
    ConversationHistoryResponse: schema(ConversationHistoryResponseSchema),
  };
  const ref = (name: keyof typeof components) => ({ $ref: `#/components/schemas/${name}` });
  const json = (name: keyof typeof components, description: string) => ({
    description,
    content: { "application/json": { schema: ref(name) } },
  });
  const error = (description: string) => json("ErrorResponse", description);
  const chatBody = {
    required: true,
    content: { "application/json": { schema: ref("ChatRequest") } },
  };
  const sessionParameter = {
    name: "session_id",
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  };
  const limits = {
    400: error("EMPTY_QUERY, QUERY_TOO_LONG, SELECTION_TOO_LONG or INVALID_JSON"),
    413: error("PAYLOAD_TOO_LARGE"),
    415: error("UNSUPPORTED_MEDIA_TYPE"),
    422: error("VALIDATION_ERROR or INVALID_SESSION_ID"),
    429: error("RATE_LIMITED (see Retry-After)"),
    503: error("A service the answer needs is unavailable"),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Lectern API",
      version,
      description: "Answers questions about a documentation book, with citations.",
    },
    paths: {
      "/chat": {
        post: {
          summary: "Ask a question about the book",
          requestBody: chatBody,
          responses: { 200: json("ChatResponse", "Answer with sources"), ...limits },
        },
      },
      "/chat/stream": {
        post: {
          summary: "Ask a question; Server-Sent Events: delta…, sources, done (or error)",
          requestBody: chatBody,
          responses: {
            200: {
              description: "text/event-stream",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            ...limits,
          },
        },
      },
      "/history/{session_id}": {
        get: {
          summary: "A session's exchanges, oldest first",
          parameters: [
            sessionParameter,
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 1, maximum: 100, default: 50 },
            },
          ],
          responses: {
            200: json("ConversationHistoryResponse", "History"),
            404: error("SESSION_NOT_FOUND"),
            422: error("INVALID_SESSION_ID or VALIDATION_ERROR"),
          },
        },
        delete: {
          summary: "Delete a session and everything in it",
          parameters: [sessionParameter],
          responses: {
            200: { description: "Deleted" },
            404: error("SESSION_NOT_FOUND"),
            422: error("INVALID_SESSION_ID"),
          },
        },
      },
      "/health": {
        get: {
          summary: "Status of the database, the index and the model",
          responses: { 200: json("HealthResponse", "Healthy or degraded") },
        },
      },
      "/ready": {
        get: {
          summary: "Readiness for traffic",
          responses: { 200: { description: "Ready" }, 503: { description: "Not ready" } },
        },
      },
    },
    components: { schemas: components },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: works with any app environment
export function registerOpenApi(app: Hono<any>, version: string): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get("/openapi.json", (context) => {
    document ??= openApiDocument(version);
    return context.json(document);
  });
}
