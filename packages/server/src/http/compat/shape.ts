import type { ChatInput } from "@lectern/engine/pipeline/types";
import { cutText } from "@lectern/engine/util/cut-text";
import type { ChatResponse, SourceCitation } from "../wire.ts";

/** The shapes and small helpers every seed's translator uses (no HTTP handling here). */

export interface AnsweredTurn {
  /** The input as the pipeline saw it (with the session's recent exchanges). */
  input: ChatInput;
  response: ChatResponse;
}

/** A failure as a seed describes it: the status and body it sends, and the retry hint. */
export interface SeedError {
  status: number;
  body: unknown;
}

/** The book's citations of an answer (not the selection), best score first. */
export function bookSources(sources: ChatResponse["sources"]): SourceCitation[] {
  return sources
    .filter((source): source is SourceCitation => source.source_type !== "selected_text")
    .sort((left, right) => right.similarity_score - left.similarity_score);
}

/** The text cut to at most `max` characters, ending in `ellipsis` when it was cut (never inside an emoji). */
export function excerpt(text: string, max: number, ellipsis = "…"): string {
  if (text.length <= max) return text;
  return `${cutText(text, max - ellipsis.length).trimEnd()}${ellipsis}`;
}

/** Where each of the response's citation numbers is in a seed's list of sources (1-based). */
export function placesOf(listed: readonly { citation_number: number }[]) {
  const places = new Map(listed.map((source, index) => [source.citation_number, index + 1]));
  return (citation: number) => places.get(citation);
}

/** A zod issue's field path as text ("session_id", "body"). */
export function issueField(issue: { path: readonly PropertyKey[] } | undefined): string {
  return issue?.path.map(String).join(".") || "body";
}
