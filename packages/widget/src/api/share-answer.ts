import { errorFromResponse } from "./chat-request-error.ts";
import { apiFetch } from "./transport.ts";

/**
 * Turns one answer into a read-only link (`POST {apiUrl}/share`) and returns the link, absolute
 * so it can be pasted anywhere.
 */
export async function shareAnswer(
  apiUrl: string,
  request: { session_id: string; message_id: string },
): Promise<string> {
  const response = await apiFetch(apiUrl, "/share", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
  });
  if (!response.ok) throw await errorFromResponse(response);
  const body = (await response.json()) as { url?: unknown };
  if (typeof body.url !== "string") throw new Error("The server sent no link.");
  return new URL(`${apiUrl.replace(/\/$/, "")}${body.url}`, window.location.href).href;
}
