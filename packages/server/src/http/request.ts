import { createError } from "@lectern/engine/errors";
import type { ChatInput } from "@lectern/engine/pipeline/types";
import { keptWith } from "@lectern/engine/util/bounded-cache";
import type { Context } from "hono";
import type { Config } from "../config/config.ts";
import { parseStorableJson } from "../util/storable-text.ts";
import { readBody } from "./read-body.ts";
import { ChatRequestSchema } from "./wire.ts";

/**
 * Reads and validates a chat request body into pipeline input, answering with the contract's codes:
 * 415 non-JSON, 413 too large, 400 INVALID_JSON, 422 VALIDATION_ERROR for a body that does not fit
 * the schema, 400 INVALID_SESSION_ID / EMPTY_QUERY / QUERY_TOO_LONG / SELECTION_TOO_LONG /
 * INVALID_FILTER (S1's validation matrix).
 */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuidV4(value: string): boolean {
  return UUID_V4.test(value);
}

/**
 * The request body as a JSON object: 415 unless sent as JSON, 413 over the body limit, 400
 * INVALID_JSON, 422 VALIDATION_ERROR for JSON that is not an object. Every JSON route reads this way.
 * Read once a request: a second read (POST /chat looks at the body for S4's words before its own
 * handler reads it) gets the same object, or the same error.
 */
export function readJsonObject(context: Context, config: Config): Promise<Record<string, unknown>> {
  return keptWith(jsonBodies, context.req.raw, () => parseJsonObject(context, config));
}

const jsonBodies = new WeakMap<Request, Promise<Record<string, unknown>>>();

async function parseJsonObject(context: Context, config: Config): Promise<Record<string, unknown>> {
  const contentType = context.req.header("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw createError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Send the request body as JSON with Content-Type: application/json.",
    );
  }
  const bytes = await readBody(context, config.limits.maxBodyBytes);

  let json: unknown;
  try {
    // Every text field is made storable here, once: the answer must not fail at the database.
    json = parseStorableJson(new TextDecoder().decode(bytes));
  } catch {
    throw createError("INVALID_JSON", "The request body is not valid JSON.");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw createError("VALIDATION_ERROR", "The request body must be a JSON object.", {
      details: { field: "body" },
    });
  }
  return json as Record<string, unknown>;
}

export async function readChatInput(
  context: Context,
  config: Config,
  ids: { requestId: string; newSessionId: () => string },
): Promise<ChatInput> {
  const json = await readJsonObject(context, config);
  const parsed = ChatRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    if (field === "session_id") throw invalidSession();
    const expected = (issue as { expected?: string } | undefined)?.expected;
    const reason = expected ? `expected ${expected}` : (issue?.message ?? "invalid");
    throw createError("VALIDATION_ERROR", `Invalid field "${field}": ${reason}.`, {
      details: { field },
    });
  }
  const body = parsed.data;
  const rawQuery = body.query ?? body.question ?? body.query_text;
  if (rawQuery === undefined) {
    throw createError("VALIDATION_ERROR", 'The field "query" is required.', {
      details: { field: "query" },
    });
  }
  const query = rawQuery.trim();
  if (!query) throw createError("EMPTY_QUERY", "Query cannot be empty or whitespace only.");
  if (query.length > config.limits.maxQueryChars) {
    throw createError(
      "QUERY_TOO_LONG",
      `The question is longer than ${config.limits.maxQueryChars} characters.`,
      {
        details: { max_chars: config.limits.maxQueryChars, length: query.length },
      },
    );
  }
  const selection = body.selected_text?.trim() ? body.selected_text : null;
  if (selection !== null && selection.length > config.limits.maxSelectionChars) {
    throw createError(
      "SELECTION_TOO_LONG",
      `The selected text is longer than ${config.limits.maxSelectionChars} characters.`,
      { details: { max_chars: config.limits.maxSelectionChars, length: selection.length } },
    );
  }
  const sessionId = body.session_id ?? null;
  if (sessionId !== null && !isUuidV4(sessionId)) throw invalidSession();

  const prefix = body.filters?.source_url_prefix;
  if (prefix !== undefined && !isUrlPathPrefix(prefix)) {
    throw createError("INVALID_FILTER", undefined, {
      details: { field: "filters.source_url_prefix" },
    });
  }
  const filters = body.filters
    ? {
        sourceUrlPrefix: body.filters.source_url_prefix,
        section: body.filters.section,
        ...(body.filters.version?.trim() ? { version: body.filters.version.trim() } : {}),
        ...(body.filters.locale?.trim() ? { locale: body.filters.locale.trim() } : {}),
      }
    : undefined;
  return {
    requestId: ids.requestId,
    sessionId: sessionId?.toLowerCase() ?? ids.newSessionId(),
    ...(sessionId === null ? { newSession: true } : {}),
    query,
    selectedText: selection,
    ...(selection !== null && body.selection_scope === "selection_and_book"
      ? { bookAroundSelection: true }
      : {}),
    filters,
    sourceUrl: body.source_url ?? null,
    topK: body.top_k,
  };
}

/**
 * A prefix of the sources' URLs: a path ("/docs/module1") or, when the book's URLs are absolute,
 * an http(s) URL; no query, fragment, spaces or other schemes.
 */
export function isUrlPathPrefix(prefix: string): boolean {
  const trimmed = prefix.trim();
  if (/[\s?#\\]/.test(trimmed)) return false;
  if (trimmed.startsWith("/")) return !trimmed.startsWith("//");
  return /^https?:\/\/[^/]+(\/|$)/i.test(trimmed) && URL.canParse(trimmed);
}

export function invalidSession() {
  return createError("INVALID_SESSION_ID", "session_id must be a UUID v4.", {
    details: { field: "session_id" },
  });
}
