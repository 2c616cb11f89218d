import { errorFromResponse } from "./chat-request-error.ts";
import { apiFetch } from "./transport.ts";

/** Deletes the server's history of a session; a 404 means there was none, which is fine. */
export async function deleteHistory(apiUrl: string, sessionId: string): Promise<void> {
  const response = await apiFetch(apiUrl, `/history/${encodeURIComponent(sessionId)}`, {
    method: "DELETE",
  });
  if (!response.ok && response.status !== 404) throw await errorFromResponse(response);
}
