import { errorFromResponse } from "./chat-request-error.ts";
import { apiFetch } from "./transport.ts";

export type FeedbackRating = "up" | "down";

export interface FeedbackRequest {
  session_id: string;
  message_id: string;
  rating: FeedbackRating;
  comment?: string;
}

/** Records a reader's rating of one answer (`POST {apiUrl}/feedback`). */
export async function sendFeedback(apiUrl: string, feedback: FeedbackRequest): Promise<void> {
  const response = await apiFetch(apiUrl, "/feedback", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(feedback),
  });
  if (!response.ok) throw await errorFromResponse(response);
}
