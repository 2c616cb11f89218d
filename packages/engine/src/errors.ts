/**
 * One table of error codes for the whole project. Every failure a user can see carries one of
 * these codes and a message written for that user; the HTTP layer maps `status` to responses.
 */
export const ERROR_CODES = {
  // Set-up and stored data
  CONFIG_INVALID: { status: 500, message: "The configuration is invalid." },
  DATA_DIR_CORRUPT: { status: 500, message: "The data directory is damaged." },
  // The embedded database (PGlite) of a data directory has one owner process (store/data-dir-lock.ts).
  DATA_DIR_IN_USE: {
    status: 409,
    message: "The data directory is in use by another process.",
  },
  INDEX_EMPTY: { status: 409, message: "Nothing has been ingested yet." },
  BOOK_MISMATCH: { status: 409, message: "This index holds another book." },
  INGEST_LOCKED: { status: 409, message: "Another ingest of this book is running." },
  INDEX_OUTDATED: {
    status: 409,
    message: "The index was built by an older Lectern; ingest again.",
  },
  OUTPUT_PATH_INVALID: {
    status: 400,
    message: "A file would be written outside the output folder.",
  },
  QUESTIONS_FILE_INVALID: { status: 400, message: "The questions file is malformed." },
  // A static build (lectern build-static)
  ENGINE_NOT_BUILT: { status: 500, message: "The engine's browser build is missing." },
  STATIC_NEEDS_LEXICAL_INDEX: {
    status: 400,
    message: "A static build needs the book's BM25 index in process.",
  },
  EVAL_RUN_INVALID: { status: 400, message: "The saved evaluation run cannot be read." },
  // The docs folder and its files (ingest)
  DOCS_DIR_NOT_FOUND: { status: 400, message: "The docs directory does not exist." },
  DOCS_DIR_EMPTY: { status: 400, message: "The docs directory contains no .md or .mdx files." },
  FILE_UNREADABLE: { status: 400, message: "A file could not be read." },
  BINARY_FILE: { status: 400, message: "A file is not text." },
  FILE_OUTSIDE_DOCS: { status: 400, message: "A file links outside the docs directory." },
  PAGE_TOO_LARGE: { status: 400, message: "A page is larger than the configured limit." },
  // A site read by its URL (`lectern ingest --url`)
  CRAWL_UNREACHABLE: { status: 502, message: "The site could not be reached." },
  CRAWL_NO_PAGES: { status: 400, message: "The site has no HTML page to ingest." },
  CRAWL_REDIRECT_LOOP: { status: 400, message: "The site's redirects loop." },
  CRAWL_PAGE_TOO_LARGE: { status: 400, message: "A page of the site is larger than the limit." },
  CRAWL_CHARSET_UNSUPPORTED: { status: 400, message: "A page's charset cannot be decoded." },
  // A page's content (ingest)
  PARSE_ERROR: { status: 400, message: "A document could not be parsed." },
  INVALID_FRONTMATTER: { status: 400, message: "A document has invalid frontmatter." },
  INVALID_CATEGORY: { status: 400, message: "A _category_ file is invalid." },
  // What a request asks
  VALIDATION_ERROR: { status: 422, message: "The request is invalid." },
  // 400 as in S1's validation matrix (a malformed id is a bad request, not a schema mismatch).
  INVALID_SESSION_ID: { status: 400, message: "session_id must be a UUID v4." },
  INVALID_FILTER: {
    status: 400,
    message: "filters.source_url_prefix must be a URL path prefix such as /docs/module1.",
  },
  EMPTY_QUERY: { status: 400, message: "Query cannot be empty." },
  QUERY_TOO_LONG: { status: 400, message: "The question is too long." },
  SELECTION_TOO_LONG: { status: 400, message: "The selected text is too long." },
  // Text the database refused as a value of its column (SQLSTATE 22P02, 22021, 22P05): nothing
  // was stored, and sending the same text again fails the same way.
  TEXT_NOT_STORABLE: {
    status: 422,
    message: "The request holds text that cannot be stored; remove unusual characters and retry.",
  },
  // How a request is sent
  // Node's HTTP parser could not read the request line or headers (the connection is closed).
  BAD_REQUEST: { status: 400, message: "The request is not valid HTTP." },
  HEADERS_TOO_LARGE: { status: 431, message: "The request's headers are too large." },
  REQUEST_TIMEOUT: { status: 408, message: "The request did not arrive in time." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Send the request body as application/json." },
  // The client went away before its request was whole: no one reads the answer (nginx's 499).
  CLIENT_CLOSED_REQUEST: { status: 499, message: "The client closed the connection early." },
  // Where a request goes and who may send it
  SESSION_NOT_FOUND: { status: 404, message: "No conversation with this session id." },
  SESSION_ENDED: {
    status: 409,
    message: "This conversation has ended. Start a new one to ask more.",
  },
  MESSAGE_NOT_FOUND: { status: 404, message: "No answer with this message id in this session." },
  SHARE_NOT_FOUND: { status: 404, message: "No shared answer with this id." },
  SHARING_DISABLED: { status: 403, message: "Sharing answers is turned off on this server." },
  UNAUTHORIZED: { status: 401, message: "A valid admin token is required." },
  NOT_FOUND: { status: 404, message: "No such endpoint." },
  METHOD_NOT_ALLOWED: { status: 405, message: "This method is not allowed here." },
  RATE_LIMITED: { status: 429, message: "Too many requests. Please wait and try again." },
  // A backend that is down or slow: worth trying again later
  DATABASE_UNAVAILABLE: {
    status: 503,
    message: "Conversation history is temporarily unavailable. Please try again shortly.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: "The assistant is temporarily unavailable. Please try again later.",
  },
  TIMEOUT: { status: 504, message: "The answer took too long. Please try again." },
  LLM_UNAVAILABLE: { status: 503, message: "The language model is unavailable." },
  GEMINI_UNAVAILABLE: { status: 503, message: "The Gemini model is unavailable." },
  QDRANT_UNAVAILABLE: { status: 503, message: "The vector database is unavailable." },
  // Anything else
  INTERNAL_ERROR: { status: 500, message: "Something went wrong on our side." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface LecternErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** When trying again may succeed (sent as Retry-After). */
  retryAfterSeconds?: number;
}

export class LecternError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, options?: LecternErrorOptions) {
    super(message ?? ERROR_CODES[code].message, { cause: options?.cause });
    this.name = "LecternError";
    this.code = code;
    this.details = options?.details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function createError(
  code: ErrorCode,
  message?: string,
  options?: LecternErrorOptions,
): LecternError {
  return new LecternError(code, message, options);
}

export function isLecternError(error: unknown): error is LecternError {
  return error instanceof LecternError;
}
