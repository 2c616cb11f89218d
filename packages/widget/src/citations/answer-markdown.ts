import type { AssistantMessage } from "../store/chat-message.ts";
import type { WidgetStrings } from "../strings.ts";
import { citationLabel, isBookCitation } from "./citation-kind.ts";

/**
 * An answer as Markdown, for pasting elsewhere: its text with the `[n]` markers kept, then its
 * numbered sources as links with absolute URLs (a pasted relative link would lead nowhere).
 */
export function answerMarkdown(message: AssistantMessage, strings: WidgetStrings): string {
  const text = (message.mode === "no_results" ? message.fallbackMessage : message.text) ?? "";
  const sources = message.sources.map((source) => {
    const label = isBookCitation(source)
      ? `[${citationLabel(source).replace(/[[\]]/g, "\\$&")}](${new URL(source.source_url, window.location.href).href})`
      : strings.yourSelection;
    return `${source.citation_number}. ${label}`;
  });
  return sources.length > 0
    ? `${text.trim()}\n\n${strings.sources}:\n\n${sources.join("\n")}\n`
    : `${text.trim()}\n`;
}
