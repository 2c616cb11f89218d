import type { SearchResponse } from "@lectern/protocol";
import { pageDocsVersion, pageLocale } from "../util/docs-version.ts";
import { errorFromResponse } from "./chat-request-error.ts";
import { apiFetch } from "./transport.ts";
import { readSearchResponse } from "./wire-checks.ts";

export const SEARCH_LIMIT = 8;

/** Keyword results for what the reader has typed so far (`GET {apiUrl}/search?q=…&limit=8[&version=…][&locale=…]`). */
export async function searchBook(
  apiUrl: string,
  query: string,
  signal: AbortSignal,
): Promise<SearchResponse> {
  const params = new URLSearchParams({ q: query, limit: String(SEARCH_LIMIT) });
  // On a versioned site, the sections of the version being read.
  const version = pageDocsVersion();
  if (version) params.set("version", version);
  // On a translated site, the sections in the page's language.
  const locale = pageLocale();
  if (locale) params.set("locale", locale);
  const response = await apiFetch(apiUrl, `/search?${params}`, {
    headers: { Accept: "application/json" },
    signal,
  });
  if (!response.ok) throw await errorFromResponse(response);
  const body = readSearchResponse(await response.json());
  if (!body) throw new Error("Malformed search response");
  return body;
}
