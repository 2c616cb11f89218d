import type { Engine } from "../engine/engine.ts";
import { normalizeQuery } from "../pipeline/query-router.ts";
import { responseMetadata } from "../pipeline/response-metadata.ts";
import type { ChatInput, ChatOutcome, Exchange } from "../pipeline/types.ts";
import { sliceFilePrefix } from "../pipeline/version-scope.ts";
import { keywordSearch, searchResults } from "../search/keyword-search.ts";
import { runtimeHost, type StaticHost } from "./host.ts";

/**
 * The server's routes that a static book can answer, run where the engine runs (a Web Worker):
 * `POST /chat/stream`, `POST /chat`, `GET /search` and `GET /suggestions`, with the server's
 * bodies, so the widget reads them with the code it reads the server's with. Follow-ups keep their
 * earlier turns for as long as the worker lives (the tab). What needs a server (history across
 * devices, feedback, sharing, insights) answers `NEEDS_SERVER`.
 */

export interface StaticRequest {
  method: string;
  /** Path and query, as after the API's base URL: `/chat/stream`, `/search?q=…`. */
  path: string;
  body?: string;
}

export interface StaticReply {
  status: number;
  contentType: string;
  body: string;
}

/** The server's default limits (docs/configuration.md), which a static book keeps. */
const MAX_QUERY_CHARS = 32_000;
const MAX_SELECTION_CHARS = 64_000;
const MAX_SEARCH_CHARS = 200;

class RouteError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StaticRouteOptions {
  /**
   * Where a reader's rating of an answer is posted, as JSON (`build-static --feedback-url`). With
   * it, answers carry a message id (the widget shows its thumbs); without it, `POST /feedback`
   * needs a server.
   */
  feedbackUrl?: string;
  fetcher?: typeof fetch;
  /** The clock and random ids (host.ts); the runtime's own by default. */
  host?: StaticHost;
}

/** What a rating is sent with: the answer rated, kept for the most recent answers of the tab. */
interface RatedAnswer {
  sessionId: string;
  question: string;
  answer: string | null;
  sources: { title: string; url: string }[];
  confidence: string;
  page: string | null;
}

const RATEABLE_ANSWERS = 100;
const MAX_COMMENT_CHARS = 2_000;

/** One book's routes; `sessions` keeps each session's recent exchanges for its follow-ups. */
export function staticRoutes(
  engine: Engine,
  historyWindow: number,
  options: StaticRouteOptions = {},
) {
  const sessions = new Map<string, Exchange[]>();
  const rateable = new Map<string, RatedAnswer>();
  const host = options.host ?? runtimeHost;
  return async (request: StaticRequest): Promise<StaticReply> => {
    const requestId = host.uuid();
    const url = new URL(request.path, "http://book.invalid");
    try {
      const route = `${request.method.toUpperCase()} ${url.pathname}`;
      if (route === "POST /chat/stream" || route === "POST /chat") {
        const input = chatInput(request.body ?? "", requestId, sessions, host.uuid);
        const outcome = await engine.run(input);
        remember(sessions, input, outcome, historyWindow);
        const messageId = options.feedbackUrl
          ? keepRateable(rateable, input, outcome, host.uuid())
          : null;
        const reply = chatReply(input, outcome, messageId);
        return route === "POST /chat" ? json(200, reply) : stream(reply);
      }
      if (route === "POST /feedback" && options.feedbackUrl)
        return await postFeedback(request.body ?? "", rateable, options.feedbackUrl, options);
      if (route === "GET /search")
        return json(200, await engine.complete(() => search(engine, url.searchParams)));
      if (route === "GET /suggestions")
        return json(200, { questions: engine.synopsis?.starters ?? [] });
      throw new RouteError(
        501,
        "NEEDS_SERVER",
        `${route} needs a Lectern server: this book is answered in the browser from static files.`,
      );
    } catch (error) {
      const known = error instanceof RouteError ? error : undefined;
      // A shard the question needed could not be fetched or read (StaticBookError).
      const book = /^STATIC_BOOK_/.test(String((error as { code?: unknown })?.code))
        ? String((error as { code: string }).code)
        : undefined;
      return json(known?.status ?? (book ? 503 : 500), {
        error_code: known?.code ?? book ?? "INTERNAL_ERROR",
        message: error instanceof Error ? error.message : String(error),
        request_id: requestId,
      });
    }
  };
}

function chatInput(
  body: string,
  requestId: string,
  sessions: Map<string, Exchange[]>,
  newId: () => string,
): ChatInput {
  const parsed = parseBody(body);
  const query = String(parsed.query ?? parsed.question ?? "").trim();
  if (!query) throw new RouteError(400, "EMPTY_QUERY", "Query cannot be empty or whitespace only.");
  if (query.length > MAX_QUERY_CHARS)
    throw new RouteError(
      400,
      "QUERY_TOO_LONG",
      `The question is longer than ${MAX_QUERY_CHARS} characters.`,
    );
  const selected = typeof parsed.selected_text === "string" ? parsed.selected_text : "";
  if (selected.length > MAX_SELECTION_CHARS)
    throw new RouteError(
      400,
      "SELECTION_TOO_LONG",
      `The selected text is longer than ${MAX_SELECTION_CHARS} characters.`,
    );
  const given = typeof parsed.session_id === "string" ? parsed.session_id.toLowerCase() : "";
  const sessionId = given || newId();
  const filters = (parsed.filters ?? undefined) as Record<string, string | undefined> | undefined;
  return {
    requestId,
    sessionId,
    ...(given ? {} : { newSession: true }),
    query,
    selectedText: selected.trim() ? selected : null,
    ...(selected.trim() && parsed.selection_scope === "selection_and_book"
      ? { bookAroundSelection: true }
      : {}),
    filters: filters
      ? {
          sourceUrlPrefix: filters.source_url_prefix,
          section: filters.section,
          ...(filters.version?.trim() ? { version: filters.version.trim() } : {}),
          ...(filters.locale?.trim() ? { locale: filters.locale.trim() } : {}),
        }
      : undefined,
    sourceUrl: typeof parsed.source_url === "string" ? parsed.source_url : null,
    topK: typeof parsed.top_k === "number" ? parsed.top_k : undefined,
    history: sessions.get(sessionId) ?? [],
  };
}

function remember(
  sessions: Map<string, Exchange[]>,
  input: ChatInput,
  outcome: ChatOutcome,
  historyWindow: number,
): void {
  const exchanges = sessions.get(input.sessionId) ?? [];
  exchanges.push({ query: input.query, answer: outcome.answer ?? outcome.fallbackMessage ?? "" });
  sessions.set(input.sessionId, exchanges.slice(-historyWindow));
}

/** Keeps an answer to be rated; returns its message id. */
function keepRateable(
  rateable: Map<string, RatedAnswer>,
  input: ChatInput,
  outcome: ChatOutcome,
  messageId: string,
): string {
  rateable.set(messageId, {
    sessionId: input.sessionId,
    question: input.query,
    answer: outcome.answer ?? outcome.fallbackMessage,
    sources: outcome.sources.flatMap((source) =>
      "title" in source ? [{ title: source.title, url: source.source_url }] : [],
    ),
    confidence: outcome.confidence,
    page: input.sourceUrl,
  });
  for (const oldest of rateable.keys()) {
    if (rateable.size <= RATEABLE_ANSWERS) break;
    rateable.delete(oldest);
  }
  return messageId;
}

/**
 * `POST /feedback` of a static book: the rating, with the question and answer it rates, posted
 * as JSON to the author's URL; `201 { stored: true }` as the server answers once it is delivered.
 */
async function postFeedback(
  body: string,
  rateable: Map<string, RatedAnswer>,
  feedbackUrl: string,
  options: StaticRouteOptions,
): Promise<StaticReply> {
  const parsed = parseBody(body);
  const field = (name: string) =>
    new RouteError(400, "VALIDATION_ERROR", `Invalid field "${name}".`);
  if (parsed.rating !== "up" && parsed.rating !== "down") throw field("rating");
  const comment = parsed.comment ?? null;
  if (comment !== null && (typeof comment !== "string" || comment.length > MAX_COMMENT_CHARS))
    throw field("comment");
  const sessionId = String(parsed.session_id ?? "").toLowerCase();
  const messageId = String(parsed.message_id ?? "").toLowerCase();
  const rated = rateable.get(messageId);
  if (!rated || rated.sessionId !== sessionId)
    throw new RouteError(
      404,
      "MESSAGE_NOT_FOUND",
      "No answer with this message id in this session.",
    );
  const { sessionId: _, ...answer } = rated;
  const payload = {
    rating: parsed.rating,
    comment: comment?.trim() || null,
    ...answer,
    session_id: sessionId,
    message_id: messageId,
    rated_at: (options.host ?? runtimeHost).date().toISOString(),
  };
  let delivered: Response;
  try {
    delivered = await (options.fetcher ?? globalThis.fetch)(feedbackUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
  } catch (error) {
    throw new RouteError(
      502,
      "FEEDBACK_NOT_DELIVERED",
      `Could not post the rating to ${feedbackUrl}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!delivered.ok)
    throw new RouteError(
      502,
      "FEEDBACK_NOT_DELIVERED",
      `${feedbackUrl} answered the rating with HTTP ${delivered.status}.`,
    );
  return json(201, { stored: true });
}

function parseBody(body: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === "object") return parsed as Record<string, unknown>;
  } catch {}
  throw new RouteError(400, "VALIDATION_ERROR", "The body is not a JSON object.");
}

/** `/chat`'s reply: the answer, its sources, the session to continue in. */
function chatReply(input: ChatInput, outcome: ChatOutcome, messageId: string | null) {
  return {
    answer: outcome.answer,
    fallback_message: outcome.fallbackMessage,
    sources: outcome.sources,
    metadata: responseMetadata(input, outcome, outcome.timings.total ?? 0),
    session_id: input.sessionId,
    confidence: outcome.confidence,
    // Without a feedback URL, nothing can rate the answer: no message id, so no thumbs.
    message_id: messageId,
    ...(outcome.suggestions?.length ? { suggestions: outcome.suggestions } : {}),
  };
}

/** `/chat/stream`'s events for a whole answer: its text, then its sources, then done. */
function stream(reply: ReturnType<typeof chatReply>): StaticReply {
  const events: [string, unknown][] = [];
  if (reply.answer) events.push(["delta", { delta: reply.answer }]);
  const { message_id: messageId, ...sources } = reply;
  events.push(["sources", sources], ["done", { done: true, message_id: messageId }]);
  return {
    status: 200,
    contentType: "text/event-stream",
    body: events
      .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      .join(""),
  };
}

function search(engine: Engine, params: URLSearchParams) {
  const raw = params.get("q") ?? "";
  // A trailing space says the last word is finished (not a prefix still being typed).
  const query = `${normalizeQuery(raw)}${/\s$/.test(raw) ? " " : ""}`;
  if (!query.trim())
    throw new RouteError(400, "EMPTY_QUERY", "Give the words to search for as ?q=…");
  if (query.length > MAX_SEARCH_CHARS)
    throw new RouteError(
      400,
      "QUERY_TOO_LONG",
      `A search is at most ${MAX_SEARCH_CHARS} characters.`,
    );
  const limit = Number(params.get("limit") ?? 8);
  if (!Number.isInteger(limit) || limit < 1 || limit > 20)
    throw new RouteError(400, "VALIDATION_ERROR", "limit must be an integer from 1 to 20.");
  const filePrefix = sliceFilePrefix(
    { versions: engine.book.versions ?? [], locales: engine.book.locales ?? [] },
    engine.settings.routeBasePath,
    { version: params.get("version") ?? undefined, locale: params.get("locale") ?? undefined },
  );
  const hits = keywordSearch(engine.index, query, { limit, ...(filePrefix ? { filePrefix } : {}) });
  return {
    query,
    results: searchResults(hits),
    took_ms: 0,
  };
}

function json(status: number, body: unknown): StaticReply {
  return { status, contentType: "application/json", body: JSON.stringify(body) };
}
