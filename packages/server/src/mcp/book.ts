import { responseMetadata } from "@lectern/engine/pipeline/response-metadata";
import { resolveLocale } from "@lectern/engine/search/locales";
import { inVersion, resolveVersion } from "@lectern/engine/search/versions";
import type { Lectern } from "../lectern.ts";
import type { ChatService } from "../pipeline/chat-service.ts";
import type { McpAnswer, McpBook } from "./server.ts";

/** The book's side of the MCP server: its title, retrieval and pages, from the opened index. */
export type McpBookContent = Omit<McpBook, "ask" | "maxQueryChars">;

export function mcpBookContent(lectern: Lectern): McpBookContent {
  return {
    title: () => lectern.title(),
    // The retriever of the moment: a server that reloads a newer index swaps it.
    // On a versioned book, one version's sections: the one named, else the latest.
    search: (query, options) => {
      const routeBasePath = lectern.config.routeBasePath;
      const version = resolveVersion(lectern.served.versions, {
        version: options.filters?.version,
        routeBasePath,
      });
      const locale = resolveLocale(lectern.served.locales, {
        locale: options.filters?.locale,
        routeBasePath,
      });
      const filters = inVersion(options.filters, version, locale);
      return lectern.served.retriever.search(query, {
        ...options,
        ...(filters ? { filters } : {}),
      });
    },
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
  ids: {
    requestId: string;
    sessionId: string;
    version?: string | undefined;
    locale?: string | undefined;
  },
  signal?: AbortSignal,
): Promise<McpAnswer> {
  const { input, outcome } = await chat.ask(
    {
      requestId: ids.requestId,
      sessionId: ids.sessionId,
      query: question,
      selectedText: null,
      filters:
        ids.version || ids.locale
          ? {
              ...(ids.version ? { version: ids.version } : {}),
              ...(ids.locale ? { locale: ids.locale } : {}),
            }
          : undefined,
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
