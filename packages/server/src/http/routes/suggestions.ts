import type { SuggestionsResponse } from "@lectern/protocol";
import type { Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";

/**
 * GET /suggestions: starter questions for an empty conversation (what the book is about, then the
 * opening page of each main part). An empty list when nothing is ingested.
 */
export function getSuggestions(deps: RouteDeps): Handler<AppEnv> {
  return (context) => {
    const body: SuggestionsResponse = { questions: deps.suggestions?.() ?? [] };
    context.header("Cache-Control", "public, max-age=300");
    return context.json(body);
  };
}
