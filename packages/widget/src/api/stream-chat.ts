import type { ChatRequestBody } from "@lectern/protocol";
import {
  ChatRequestError,
  errorFromResponse,
  INVALID_RESPONSE_MESSAGE,
  NETWORK_ERROR_MESSAGE,
} from "./chat-request-error.ts";
import { createSseParser } from "./sse-parser.ts";
import { apiFetch } from "./transport.ts";
import { type ChatStreamEvent, isStreamEventName, readStreamEvent } from "./wire-checks.ts";

/** The events a successful stream delivers; an `error` event is thrown as a ChatRequestError. */
export type ChatAnswerEvent = Exclude<ChatStreamEvent, { name: "error" }>;

/**
 * POSTs a question to `{apiUrl}/chat/stream` and hands every validated event to `onEvent` as it
 * arrives. Resolves when the stream ends; rejects with a ChatRequestError for an HTTP error, an
 * `error` event, a malformed event or a network failure, and with the signal's reason when
 * aborted.
 */
export async function streamChat(
  apiUrl: string,
  body: ChatRequestBody,
  options: { signal: AbortSignal; onEvent: (event: ChatAnswerEvent) => void },
): Promise<void> {
  const { signal, onEvent } = options;
  let response: Response;
  try {
    response = await apiFetch(apiUrl, "/chat/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    throw signal.aborted ? abortReason(signal) : networkError(error);
  }
  if (!response.ok) throw await errorFromResponse(response);
  if (!response.body) throw new ChatRequestError("INVALID_RESPONSE", INVALID_RESPONSE_MESSAGE);

  const reader = response.body.getReader();
  // Cancelling the reader ends the read loop at once, whatever the fetch implementation does.
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  const decoder = new TextDecoder();
  const parser = createSseParser((message) => {
    if (!isStreamEventName(message.event)) return; // events added later are not ours to read
    let event: ChatStreamEvent;
    try {
      event = readStreamEvent(message.event, message.data);
    } catch {
      throw new ChatRequestError("INVALID_RESPONSE", INVALID_RESPONSE_MESSAGE);
    }
    if (event.name === "error") {
      const { error_code, message: text } = event.data.error;
      throw new ChatRequestError(error_code, text);
    }
    onEvent(event);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw abortReason(signal);
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    parser.end();
  } catch (error) {
    cancel();
    if (signal.aborted) throw abortReason(signal);
    throw error instanceof ChatRequestError ? error : networkError(error);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("Aborted", "AbortError");
}

function networkError(cause: unknown): ChatRequestError {
  const error = new ChatRequestError("NETWORK_ERROR", NETWORK_ERROR_MESSAGE);
  (error as { cause?: unknown }).cause = cause;
  return error;
}
