import { MAX_STARTER_QUESTIONS } from "../options.ts";
import { apiFetch } from "./transport.ts";
import { readQuestions } from "./wire-checks.ts";

/**
 * Starter questions from `GET {apiUrl}/suggestions` (`{"questions": string[]}`). A server without
 * the route (404), a failure or a malformed body all mean none: the empty panel simply shows
 * its text.
 */
export async function fetchStarterQuestions(apiUrl: string): Promise<string[]> {
  try {
    const response = await apiFetch(apiUrl, "/suggestions", {
      headers: { Accept: "application/json" },
    });
    if (!response.ok) return [];
    const body: unknown = await response.json();
    return readQuestions(
      (body as { questions?: unknown } | null)?.questions,
      MAX_STARTER_QUESTIONS,
    );
  } catch {
    return [];
  }
}
