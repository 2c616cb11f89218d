import { describe, expect, it } from "vitest";
import { createSseParser, type SseMessage } from "./sse-parser.ts";

function parse(chunks: string[]): SseMessage[] {
  const messages: SseMessage[] = [];
  const parser = createSseParser((message) => messages.push(message));
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return messages;
}

describe("createSseParser", () => {
  it("reads named events with JSON data", () => {
    expect(
      parse(['event: delta\ndata: {"delta":"Hi"}\n\nevent: done\ndata: {"done":true}\n\n']),
    ).toEqual([
      { event: "delta", data: '{"delta":"Hi"}' },
      { event: "done", data: '{"done":true}' },
    ]);
  });

  it("reassembles events split anywhere, including inside a CRLF", () => {
    const text = 'event: delta\r\ndata: {"delta":"a b"}\r\n\r\nevent: done\r\ndata: {}\r\n\r\n';
    for (let size = 1; size <= 7; size++) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      expect(parse(chunks)).toEqual([
        { event: "delta", data: '{"delta":"a b"}' },
        { event: "done", data: "{}" },
      ]);
    }
  });

  it("accepts CR line endings, joins data lines, skips comments and strips one space", () => {
    expect(parse([": keep-alive\rdata:first\rdata:  second\r\r"])).toEqual([
      { event: "message", data: "first\n second" },
    ]);
  });

  it("ignores events without data and drops an unterminated last event", () => {
    expect(parse(["event: ping\n\n", "event: delta\ndata: {}"])).toEqual([]);
  });

  it("ignores id and retry fields", () => {
    expect(parse(["id: 7\nretry: 1000\nevent: done\ndata: x\n\n"])).toEqual([
      { event: "done", data: "x" },
    ]);
  });
});
