import { createParser } from "eventsource-parser";
import { parseStreamEvent } from "../src/http/wire.ts";

export type ParsedStreamEvent = ReturnType<typeof parseStreamEvent>;

/**
 * Reads a Server-Sent Events response over the network with a standard SSE parser, validating
 * every event against the wire schema. `onEvent` may abort the request.
 */
export async function readEventStream(
  response: Response,
  onEvent?: (event: ParsedStreamEvent) => void,
): Promise<ParsedStreamEvent[]> {
  const events: ParsedStreamEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      const event = parseStreamEvent(message.event ?? "message", message.data);
      events.push(event);
      onEvent?.(event);
    },
  });
  if (!response.body) throw new Error("no body");
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
    }
  } catch (error) {
    if ((error as Error).name !== "AbortError") throw error;
  }
  return events;
}
