import type { ChatInput } from "../../pipeline/types.ts";
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

/** The text cut to `max` characters, ending in "…" when it was cut. */
export function excerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A zod issue's field path as text ("session_id", "body"). */
export function issueField(issue: { path: readonly PropertyKey[] } | undefined): string {
  return issue?.path.map(String).join(".") || "body";
}
