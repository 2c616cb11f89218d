import type { ResponseMetadata } from "@lectern/protocol";
import { round } from "../util/numbers.ts";
import type { ChatInput, ChatOutcome } from "./types.ts";

/** The response metadata of one turn, as `/chat`, its stream and the MCP `ask_docs` tool store it. */
export function responseMetadata(
  input: ChatInput,
  outcome: ChatOutcome,
  elapsedMs: number,
): ResponseMetadata {
  return {
    query_time_ms: round(elapsedMs, 2),
    retrieval_count: outcome.retrievalCount,
    mode: outcome.mode,
    low_confidence: outcome.lowConfidence,
    request_id: input.requestId,
    search_query: outcome.searchQuery,
    original_query: input.query,
    route: outcome.route,
    injection_flagged: outcome.injectionFlagged,
    timings: outcome.timings,
    ...(outcome.support === undefined ? {} : { support: outcome.support }),
    ...(outcome.degraded ? { degraded: true } : {}),
  };
}
