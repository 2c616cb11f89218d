import type { Citation, Confidence, ResponseMode } from "@lectern/protocol";
import type { Exchange } from "../exchange.ts";
import type { RetrievalSignals, SearchFilters } from "../search/retriever.ts";
import type { Route } from "./query-router.ts";

export type { Exchange };

/** The request states the orchestrator moves through, in order. */
export type RequestState = "RECEIVED" | "RETRIEVING" | "GENERATING" | "COMPLETED" | "FAILED";

export interface ChatInput {
  requestId: string;
  sessionId: string;
  query: string;
  selectedText: string | null;
  /**
   * With a selection: whether the book around it may answer too (the widget asks for it; seed S1
   * grounds the answer in the selection alone, so nothing is searched).
   */
  bookAroundSelection?: boolean;
  filters: SearchFilters | undefined;
  sourceUrl: string | null;
  topK: number | undefined;
  /** True when the session id was made for this turn: it has no history to read. */
  newSession?: boolean;
  /** The session's last exchanges, oldest first (empty for a new session or with history off). */
  history?: Exchange[];
}

export interface ChatOutcome {
  answer: string | null;
  fallbackMessage: string | null;
  sources: Citation[];
  mode: ResponseMode;
  lowConfidence: boolean;
  confidence: Confidence;
  retrievalCount: number;
  route: Route;
  injectionFlagged: boolean;
  searchQuery: string | null;
  /** The answer fell back to quoting the book because the model failed. */
  degraded: boolean;
  support: number | undefined;
  /** The retrieval signals behind the no-results and low-confidence decisions. */
  signals?: RetrievalSignals | undefined;
  /** Words of the question the book never uses, as written (kept for authors' insights). */
  unknownWords?: string[] | undefined;
  /**
   * The book chunk behind each book source, in the order of the book sources: what an answer
   * stood on, so a later change of those chunks shows the answer may be stale.
   */
  sourceChunks?: { id: string; contentHash: string }[];
  /** Questions to offer next (clicking one asks it); absent when there are none. */
  suggestions?: string[];
  /**
   * The docs version and locale the answer was searched in (after a "Not in version X" move, the
   * other version); absent for a book without versions or locales.
   */
  slice?: { version?: string; locale?: string };
  /** Milliseconds per stage: route, retrieve, generate, total. */
  timings: Record<string, number>;
  states: RequestState[];
}

export interface RunOptions {
  /** Receives the answer text piece by piece as it is produced. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
}
