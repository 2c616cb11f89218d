export interface SseMessage {
  /** The `event:` field, or "message" when the event named none. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

export interface SseParser {
  /** Feeds decoded text; chunks may split lines, fields or line endings anywhere. */
  feed(text: string): void;
  /** Ends the stream; an event without its closing blank line is dropped, as EventSource does. */
  end(): void;
}

/**
 * A Server-Sent Events parser for a fetch body (EventSource cannot POST). Follows the HTML
 * standard's rules: CR, LF or CRLF end a line, `:` starts a comment, one space after the colon is
 * dropped, an event is dispatched on a blank line and only when it has data.
 */
export function createSseParser(onMessage: (message: SseMessage) => void): SseParser {
  let buffer = "";
  let eventName = "";
  let dataLines: string[] = [];

  const dispatch = () => {
    if (dataLines.length > 0) {
      onMessage({ event: eventName || "message", data: dataLines.join("\n") });
    }
    eventName = "";
    dataLines = [];
  };

  const processLine = (line: string) => {
    if (line === "") return dispatch();
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") eventName = value;
    else if (field === "data") dataLines.push(value);
    // `id` and `retry` only matter to reconnecting EventSources; this client never reconnects.
  };

  return {
    feed(text) {
      buffer += text;
      let lineStart = 0;
      for (let index = 0; index < buffer.length; index++) {
        const char = buffer[index];
        if (char !== "\n" && char !== "\r") continue;
        // A CR at the very end may be the first half of a CRLF split across chunks: wait for more.
        if (char === "\r" && index === buffer.length - 1) break;
        processLine(buffer.slice(lineStart, index));
        if (char === "\r" && buffer[index + 1] === "\n") index++;
        lineStart = index + 1;
      }
      buffer = buffer.slice(lineStart);
    },
    end() {
      if (buffer.endsWith("\r")) processLine(buffer.slice(0, -1));
      buffer = "";
      eventName = "";
      dataLines = [];
    },
  };
}
