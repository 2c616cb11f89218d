// @vitest-environment jsdom
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { installFetch, jsonResponse, sseResponse } from "../test/fetch-mock.ts";
import { API_URL, ask, renderWidget } from "../test/render-widget.tsx";
import {
  answerEvents,
  doneEvent,
  REQUEST_ID,
  sourcesEvent,
  URDF_ANSWER,
} from "../test/sse-fixtures.ts";

async function answered(feedbackResponse: () => Response) {
  const calls = installFetch((call) =>
    call.url.endsWith("/feedback") ? feedbackResponse() : sseResponse(answerEvents()),
  );
  const widget = renderWidget();
  await widget.user.click(screen.getByRole("button", { name: "Ask the book" }));
  await ask(widget.user, "What is a URDF?");
  await waitFor(() => expect(widget.store.getState().status).toBe("success"));
  return { calls, ...widget };
}

describe("feedback on answers", () => {
  it("POSTs a thumbs up with the session and message ids and says it was sent", async () => {
    const { calls, user, store } = await answered(() => new Response(null, { status: 204 }));
    await user.click(screen.getByRole("button", { name: "Helpful answer" }));

    expect(await screen.findByText("Thanks for your feedback.")).toBeInTheDocument();
    expect(calls[1]).toMatchObject({
      url: `${API_URL}/feedback`,
      method: "POST",
      body: { session_id: store.getState().sessionId, message_id: REQUEST_ID, rating: "up" },
    });
    expect(screen.getByRole("button", { name: "Helpful answer" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    expect(screen.getByRole("button", { name: "Helpful answer" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Unhelpful answer" })).toBeDisabled();
  });

  it("tolerates a failure quietly: no error, and the buttons come back", async () => {
    const { calls, user } = await answered(() =>
      jsonResponse(404, {
        error_code: "NOT_FOUND",
        message: "No endpoint POST /feedback.",
        request_id: REQUEST_ID,
      }),
    );
    await user.click(screen.getByRole("button", { name: "Unhelpful answer" }));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]?.body).toMatchObject({ rating: "down" });
    await waitFor(() =>
      expect(screen.getByRole("button", { name: "Unhelpful answer" })).toBeEnabled(),
    );
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.queryByText("Thanks for your feedback.")).not.toBeInTheDocument();
  });

  it("offers no feedback when the server stored no message (history off)", async () => {
    installFetch(() => sseResponse([sourcesEvent({ answer: URDF_ANSWER }), doneEvent(null)]));
    const { user, store } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(screen.queryByRole("button", { name: "Helpful answer" })).not.toBeInTheDocument();
  });
});
