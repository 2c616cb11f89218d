import { createError } from "@lectern/engine/errors";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Handler } from "hono";
import { askThroughChat } from "../../mcp/book.ts";
import { createMcpServer } from "../../mcp/server.ts";
import { requestSignals } from "../chat-turn.ts";
import { clientOf } from "../client-link.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { readJsonObject } from "../request.ts";

/**
 * POST /mcp: the book's MCP server over Streamable HTTP, stateless (a server and a transport per
 * request, JSON responses). Every request takes a token from the MCP rate limit; `ask_docs` is
 * admitted as a question to `/chat` is (the chat rate limits, the in-flight cap, the timeout), so
 * agents cannot ask more than readers may.
 */
export function postMcp(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const content = deps.book;
    if (!content) throw createError("SERVICE_UNAVAILABLE", "No MCP server on this server.");
    await deps.mcpRateLimit(context, null);
    // Read as every JSON route reads (415, 413, INVALID_JSON in Lectern's error body); one
    // JSON-RPC message per request (no batches, which the protocol dropped in 2025-06-18).
    const body = await readJsonObject(context, deps.config);
    const server = createMcpServer(
      {
        ...content,
        maxQueryChars: deps.config.limits.maxQueryChars,
        ask: async (question, sessionId, version, locale) => {
          const session = sessionId ?? deps.newId();
          const release = await deps.admission(context, session);
          const { signal, within, dispose } = requestSignals(deps.config.requestTimeoutMs, [
            clientOf(context),
          ]);
          try {
            const answer = await within(
              askThroughChat(
                deps.chat,
                question,
                { requestId: context.get("requestId"), sessionId: session, version, locale },
                signal,
              ),
            );
            deps.metrics.observeAnswer(answer.outcome);
            return answer;
          } finally {
            dispose();
            release();
          }
        },
      },
      deps.version,
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(context.req.raw, { parsedBody: body });
    } finally {
      await server.close();
    }
  };
}
