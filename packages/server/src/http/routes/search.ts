import { createError } from "@lectern/engine/errors";
import { normalizeQuery } from "@lectern/engine/pipeline/query-router";
import { searchResults } from "@lectern/engine/search/keyword-search";
import type { SearchResponse } from "@lectern/protocol";
import type { Handler } from "hono";
import { roundMs } from "../chat-turn.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";

/** Longest `q` accepted: a search box, not a question (POST /chat takes long text). */
export const MAX_SEARCH_CHARS = 200;

/**
 * GET /search?q=…&limit=…&version=…&locale=…: keyword results as the reader types (in one docs
 * version of a versioned book: the one named, else the latest; in one locale of a translated book:
 * the one named, else the default), for the search-and-ask box. Never
 * refuses: the closest sections are what a reader looking for a page wants.
 */
export function getSearch(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const search = deps.search;
    if (!search) {
      throw createError("SERVICE_UNAVAILABLE", "Search is not available on this server.");
    }
    const raw = context.req.query("q") ?? "";
    // A trailing space says the last word is finished (not a prefix still being typed).
    const query = `${normalizeQuery(raw)}${/\s$/.test(raw) ? " " : ""}`;
    if (query.trim() === "") {
      throw createError("EMPTY_QUERY", "Give the words to search for as ?q=…", {
        details: { field: "q" },
      });
    }
    if (query.length > MAX_SEARCH_CHARS) {
      throw createError(
        "QUERY_TOO_LONG",
        `A search is at most ${MAX_SEARCH_CHARS} characters; ask longer questions through /chat.`,
        { details: { field: "q", max: MAX_SEARCH_CHARS } },
      );
    }
    const limitText = context.req.query("limit");
    const limit = limitText === undefined ? 8 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 20) {
      throw createError("VALIDATION_ERROR", "limit must be an integer from 1 to 20.", {
        details: { field: "limit" },
      });
    }
    const started = deps.now();
    const version = context.req.query("version")?.trim() || undefined;
    if (version !== undefined && version.length > 100) {
      throw createError("VALIDATION_ERROR", "version is at most 100 characters.", {
        details: { field: "version" },
      });
    }
    const locale = context.req.query("locale")?.trim() || undefined;
    if (locale !== undefined && locale.length > 35) {
      throw createError("VALIDATION_ERROR", "locale is at most 35 characters.", {
        details: { field: "locale" },
      });
    }
    const hits = await search(query, limit, version, locale);
    const body: SearchResponse = {
      query,
      results: searchResults(hits),
      took_ms: roundMs(deps.now() - started),
    };
    return context.json(body);
  };
}
