import type {
  ErrorBody,
  parseStreamEvent,
  SearchResponse,
  StreamEventName,
} from "@lectern/protocol";

/**
 * Hand-written checks of the server's messages, field for field the rules of @lectern/protocol's
 * zod schemas (wire-checks.test.ts feeds both the same fixtures and expects them to agree). The
 * widget takes only types from the protocol package: its schemas would bring zod into the
 * standalone script, which has a size budget.
 */

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === "string";
const isBoolean: Check = (value) => typeof value === "boolean";
const isNumber: Check = (value) => typeof value === "number" && Number.isFinite(value);
const isInt: Check = (value) => Number.isSafeInteger(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const atLeast =
  (check: Check, min: number, max = Number.POSITIVE_INFINITY): Check =>
  (value) =>
    check(value) && (value as number) >= min && (value as number) <= max;
const shortString =
  (maxLength: number): Check =>
  (value) =>
    isString(value) && (value as string).length <= maxLength;
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const oneOf =
  (...allowed: unknown[]): Check =>
  (value) =>
    allowed.includes(value);
const arrayOf =
  (check: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every(check);
const recordOf =
  (check: Check): Check =>
  (value) =>
    isObject(value) && Object.values(value).every(check);
const either =
  (...checks: Check[]): Check =>
  (value) =>
    checks.some((check) => check(value));
const shape =
  (fields: Record<string, Check>): Check =>
  (value) =>
    isObject(value) && Object.entries(fields).every(([key, check]) => check(value[key]));

// zod's z.uuid(): RFC 9562 versions 1-8 and variant bits, plus the nil and max UUIDs.
const UUID =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;
const isUuid: Check = (value) => isString(value) && UUID.test(value as string);
const snippet = shortString(200);

const bookCitation = shape({
  source_type: optional(oneOf("book")),
  source_url: isString,
  title: isString,
  section: isString,
  chunk_position: atLeast(isInt, 0),
  similarity_score: atLeast(isNumber, 0, 1),
  snippet,
  file_path: isString,
  section_path: arrayOf(isString),
  citation_number: atLeast(isInt, 1),
  cited: optional(isBoolean),
});

const selectionCitation = shape({
  source_type: oneOf("selected_text"),
  selection_length: atLeast(isInt, 0),
  snippet,
  relevance_note: isString,
  source_url: optional(nullable(isString)),
  citation_number: atLeast(isInt, 1),
});

const confidence = oneOf("high", "medium", "low");

export const ANSWER_ROUTES = ["question", "greeting", "thanks", "overview"] as const;

const metadata = shape({
  query_time_ms: atLeast(isNumber, 0),
  retrieval_count: atLeast(isInt, 0),
  mode: oneOf("full", "selected_text", "retrieval_only", "no_results"),
  low_confidence: isBoolean,
  request_id: isUuid,
  search_query: optional(nullable(isString)),
  original_query: optional(isString),
  route: optional(oneOf(...ANSWER_ROUTES)),
  injection_flagged: optional(isBoolean),
  timings: optional(recordOf(isNumber)),
  support: optional(isNumber),
  degraded: optional(isBoolean),
});

const EVENT_CHECKS: Record<StreamEventName, Check> = {
  delta: shape({ delta: isString }),
  sources: shape({
    sources: arrayOf(either(bookCitation, selectionCitation)),
    metadata,
    session_id: isUuid,
    confidence,
    answer: nullable(isString),
    fallback_message: nullable(isString),
  }),
  done: shape({ done: oneOf(true), message_id: optional(nullable(isString)) }),
  error: shape({
    error: shape({
      error_code: isString,
      message: isString,
      request_id: isString,
      retry_able: isBoolean,
    }),
  }),
};

type ProtocolEvent = ReturnType<typeof parseStreamEvent>;
type EventNamed<Name extends StreamEventName> = Extract<ProtocolEvent, { name: Name }>;

/** A stream event; `sources` may also carry the answer's follow-up questions. */
export type ChatStreamEvent =
  | EventNamed<"delta">
  | EventNamed<"done">
  | EventNamed<"error">
  | { name: "sources"; data: EventNamed<"sources">["data"] & { suggestions?: unknown } };

export function isStreamEventName(name: string): name is StreamEventName {
  return Object.hasOwn(EVENT_CHECKS, name);
}

/** Reads one SSE event by its name; throws on a payload the protocol does not allow. */
export function readStreamEvent(name: StreamEventName, data: string): ChatStreamEvent {
  const json: unknown = JSON.parse(data);
  if (!EVENT_CHECKS[name](json)) throw new Error(`Malformed "${name}" event`);
  return { name, data: json } as ChatStreamEvent;
}

const errorBody = shape({
  error_code: isString,
  message: isString,
  request_id: isString,
  details: optional(nullable(isObject)),
});

/** The body of an error response, or null when it is not Lectern's. */
export function readErrorBody(value: unknown): ErrorBody | null {
  return errorBody(value) ? (value as ErrorBody) : null;
}

const searchResponse = shape({
  query: isString,
  results: arrayOf(
    shape({
      page_title: isString,
      section: nullable(isString),
      url: isString,
      snippet: isString,
      highlights: arrayOf((pair) => Array.isArray(pair) && pair.length === 2 && pair.every(isInt)),
      score: isNumber,
    }),
  ),
  took_ms: isNumber,
});

/** The body of `GET /search`, or null when it is malformed. */
export function readSearchResponse(value: unknown): SearchResponse | null {
  return searchResponse(value) ? (value as SearchResponse) : null;
}

/**
 * Suggested questions (`GET /suggestions` or an answer's `suggestions`): the non-blank strings
 * of an array, at most `limit`; anything else is none.
 */
export function readQuestions(value: unknown, limit: number): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is string => typeof item === "string" && item.trim() !== "")
    .map((item) => item.trim())
    .slice(0, limit);
}
