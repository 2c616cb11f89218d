import { parseStreamEvent } from "@lectern/protocol";
import { describe, expect, it } from "vitest";
import { createSseParser } from "../api/sse-parser.ts";
import {
  answerEvents,
  errorEvent,
  NO_RESULTS_EVENTS,
  OVERVIEW_EVENTS,
  SELECTION_SOURCE,
  smallTalkEvents,
  sourcesEvent,
} from "./sse-fixtures.ts";

describe("SSE fixtures", () => {
  it("satisfy the server's wire schemas", () => {
    const streams = [
      answerEvents(),
      answerEvents({ lowConfidence: true, confidence: "low" }),
      [sourcesEvent({ mode: "selected_text", sources: [SELECTION_SOURCE] })],
      NO_RESULTS_EVENTS,
      smallTalkEvents("greeting"),
      smallTalkEvents("thanks"),
      OVERVIEW_EVENTS,
      answerEvents({ route: null }),
      [errorEvent("TIMEOUT", "The answer took too long.")],
    ];
    for (const events of streams) {
      const parser = createSseParser((message) => {
        expect(() => parseStreamEvent(message.event, message.data)).not.toThrow();
      });
      parser.feed(events.join(""));
      parser.end();
    }
  });
});
