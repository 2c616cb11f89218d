import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  ChatRequestSchema,
  ChatResponseSchema,
  ConversationHistoryResponseSchema,
  ErrorBodySchema,
  HealthResponseSchema,
} from "./wire.ts";

/** Documents the routes from the same zod schemas the handlers use; served at /openapi.json. */
// biome-ignore lint/suspicious/noExplicitAny: works with any app environment
export function registerOpenApi(app: OpenAPIHono<any>, version: string): void {
  const error = (description: string) => ({
    description,
    content: { "application/json": { schema: ErrorBodySchema } },
  });
  const sessionParam = z.object({ session_id: z.string().uuid() });
  const routes = [
    createRoute({
      method: "post",
      path: "/chat",
      summary: "Ask a question about the book",
      request: {
        body: { required: true, content: { "application/json": { schema: ChatRequestSchema } } },
      },
      responses: {
        200: {
          description: "Answer with sources",
          content: { "application/json": { schema: ChatResponseSchema } },
        },
        400: error("EMPTY_QUERY, QUERY_TOO_LONG, SELECTION_TOO_LONG or INVALID_JSON"),
        413: error("Body larger than the configured cap"),
        415: error("Body is not JSON"),
        422: error("VALIDATION_ERROR or INVALID_SESSION_ID"),
        429: error("RATE_LIMITED (see Retry-After)"),
        503: error("A service the answer needs is unavailable"),
      },
    }),
    createRoute({
      method: "post",
      path: "/chat/stream",
      summary:
        "Ask a question; the answer streams as Server-Sent Events (delta…, sources, done | error)",
      request: {
        body: { required: true, content: { "application/json": { schema: ChatRequestSchema } } },
      },
      responses: {
        200: {
          description: "text/event-stream",
          content: { "text/event-stream": { schema: z.string() } },
        },
        400: error("Invalid request"),
        422: error("VALIDATION_ERROR or INVALID_SESSION_ID"),
        429: error("RATE_LIMITED"),
      },
    }),
    createRoute({
      method: "get",
      path: "/history/{session_id}",
      summary: "A session's exchanges, oldest first",
      request: { params: sessionParam, query: z.object({ limit: z.string().optional() }) },
      responses: {
        200: {
          description: "History",
          content: { "application/json": { schema: ConversationHistoryResponseSchema } },
        },
        404: error("SESSION_NOT_FOUND"),
        422: error("INVALID_SESSION_ID or VALIDATION_ERROR"),
      },
    }),
    createRoute({
      method: "delete",
      path: "/history/{session_id}",
      summary: "Delete a session and everything in it",
      request: { params: sessionParam },
      responses: {
        200: {
          description: "Deleted",
          content: {
            "application/json": {
              schema: z.object({ session_id: z.string(), deleted: z.boolean() }),
            },
          },
        },
        404: error("SESSION_NOT_FOUND"),
      },
    }),
    createRoute({
      method: "get",
      path: "/health",
      summary: "Status of the database and the index",
      responses: {
        200: {
          description: "Healthy or degraded",
          content: { "application/json": { schema: HealthResponseSchema } },
        },
      },
    }),
  ];
  for (const route of routes) app.openAPIRegistry.registerPath(route);
  app.get("/openapi.json", (context) =>
    context.json(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "Lectern API",
          version,
          description: "Ask-the-book answers with citations.",
        },
      }),
    ),
  );
}
