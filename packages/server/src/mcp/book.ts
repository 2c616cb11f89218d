import type { Lectern } from "../lectern.ts";
import { type ChatService, responseMetadata } from "../pipeline/chat-service.ts";
import type { McpAnswer, McpBook } from "./server.ts";

/** The book's side of the MCP server: its title, retrieval and pages, from the opened index. */
export type McpBookContent = Omit<McpBook, "ask" | "maxQueryChars">;

export function mcpBookContent(lectern: Lectern): McpBookContent {
  return {
    title: () => lectern.title(),
    // The retriever of the moment: a server that reloads a newer index swaps it.
    search: (query, options) => lectern.retriever.search(query, options),
    pages: () => lectern.store.pages(),
    pageMarkdown: (filePath) => lectern.store.pageMarkdown(filePath),
  };
}

/**
 * One question through the chat service, as `/chat` asks it: the session's recent exchanges as
 * context, the pipeline, and the exchange recorded under a new message id.
 */
export async function askThroughChat(
  chat: ChatService,
  question: string,
  ids: { requestId: string; sessionId: string },
  signal?: AbortSignal,
): Promise<McpAnswer> {
  const { input, outcome } = await chat.ask(
    {
      requestId: ids.requestId,
      sessionId: ids.sessionId,
      query: question,
      selectedText: null,
      filters: undefined,
      sourceUrl: null,
      topK: undefined,
    },
    signal ? { signal } : {},
  );
  const messageId = chat.newMessageId();
  await chat.saveExchange(input, {
    answer: outcome.answer,
    fallback_message: outcome.fallbackMessage,
    sources: outcome.sources,
    metadata: responseMetadata(input, outcome, outcome.timings.total ?? 0),
    confidence: outcome.confidence,
    message_id: messageId,
  });
  return { outcome, sessionId: ids.sessionId };
}
