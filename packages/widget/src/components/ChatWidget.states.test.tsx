// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  controlledSseResponse,
  installFetch,
  jsonResponse,
  sseResponse,
} from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import {
  answerEvents,
  deltaEvents,
  doneEvent,
  errorEvent,
  NO_RESULTS_EVENTS,
  NO_RESULTS_FALLBACK,
  REQUEST_ID,
  RETRIEVAL_ONLY_MESSAGE,
  sourcesEvent,
  URDF_DELTAS,
} from "../test/sse-fixtures.ts";
import { isUuidV4 } from "../util/random-uuid.ts";
import { LOW_CONFIDENCE_MESSAGE } from "./AssistantMessageView.tsx";

const QUESTION = "What is a URDF?";

async function openPanel(user: ReturnType<typeof renderWidget>["user"]) {
  await user.click(screen.getByRole("button", { name: "Ask the book" }));
  return screen.getByRole("dialog", { name: "Ask the book" });
}

describe("chat states", () => {
  it("starts idle: a floating button opens an empty panel with the question box focused", async () => {
    const { user, store } = renderWidget();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    const launcher = screen.getByRole("button", { name: "Ask the book" });
    expect(launcher).toHaveAttribute("aria-expanded", "false");

    const panel = await openPanel(user);
    expect(launcher).toHaveAttribute("aria-expanded", "true");
    expect(within(panel).getByText(/Ask a question about this book/)).toBeInTheDocument();
    expect(within(panel).getByRole("textbox", { name: "Your question" })).toHaveFocus();
    expect(within(panel).getByRole("button", { name: "Send" })).toBeDisabled();
    expect(store.getState().status).toBe("idle");
  });

  it("streams the answer piece by piece while LOADING, then shows it complete", async () => {
    const stream = controlledSseResponse();
    const calls = installFetch(() => stream.response);
    const { user, store } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);

    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("https://api.example.com/chat/stream");
    const body = calls[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ query: QUESTION, source_url: "http://localhost:3000/" });
    expect(isUuidV4(body.session_id)).toBe(true);

    expect(store.getState().status).toBe("loading");
    expect(screen.getByText("Looking in the book…")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Stop" })).toBeInTheDocument();
    expect(screen.getByRole("log", { name: "Conversation" })).toHaveAttribute("aria-busy", "true");

    const answer = screen.getByRole("article", { name: "Answer" });
    let shown = "";
    for (const event of deltaEvents(URDF_DELTAS)) {
      stream.push(event);
      shown += JSON.parse(event.split("data: ")[1] ?? "{}").delta;
      // Each [n] marker is drawn as a chip showing n.
      const expected = shown.trim().replace(/\[(\d+)\]/g, "$1");
      await waitFor(() => expect(answer.textContent).toContain(expected));
    }
    // The marker arrived before its source: a chip without a link for now.
    expect(within(answer).queryByRole("link")).not.toBeInTheDocument();
    expect(store.getState().status).toBe("loading");

    stream.push(sourcesEvent());
    stream.push(doneEvent());
    stream.close();
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(screen.getByRole("log", { name: "Conversation" })).toHaveAttribute("aria-busy", "false");
    expect(screen.getByRole("button", { name: "Send" })).toBeInTheDocument();
    expect(screen.getByText("Answer complete.")).toHaveAttribute("role", "status");
  });

  it("shows SUCCESS with citation chips, the sources list, confidence and the retrieval-only notice", async () => {
    installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);

    const answer = await screen.findByRole("article", { name: "Answer" });
    const chip = await within(answer).findByRole("link", {
      name: "Source 1: The ros2_control Framework › Declaring hardware in the URDF",
    });
    expect(chip).toHaveTextContent("1");
    expect(chip).toHaveClass("citation-chip");
    expect(chip.getAttribute("href")).toMatch(
      /^\/docs\/robot-description\/ros2-control#declaring-hardware-in-the-urdf/,
    );
    expect(
      within(answer).getByRole("link", {
        name: "Source 2: Describing a Robot with URDF › Reducing repetition with xacro",
      }),
    ).toHaveAttribute("href", expect.stringMatching(/^\/docs\/description\/urdf#xacro/));
    // HTML in the answer is shown as written.
    expect(answer).toHaveTextContent("described in a <ros2_control> element");

    const sources = within(answer).getByRole("list", { name: "Sources" });
    const items = within(sources).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      "The ros2_control Framework › Declaring hardware in the URDF",
      "Describing a Robot with URDF › Reducing repetition with xacro",
    ]);
    expect(within(answer).getByText("Confidence: high")).toBeInTheDocument();
    expect(within(answer).getByText(RETRIEVAL_ONLY_MESSAGE)).toBeInTheDocument();
    expect(within(answer).queryByText(LOW_CONFIDENCE_MESSAGE)).not.toBeInTheDocument();
  });

  it("shows ERROR with the server's message, and Retry sends the same question again", async () => {
    let attempt = 0;
    const calls = installFetch(() =>
      ++attempt === 1
        ? jsonResponse(503, {
            error_code: "DATABASE_UNAVAILABLE",
            message: "The conversation history is unavailable right now.",
            request_id: REQUEST_ID,
          })
        : sseResponse(answerEvents()),
    );
    const { user, store } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The conversation history is unavailable right now.");
    expect(store.getState().status).toBe("error");
    expect(screen.queryByRole("article", { name: "Answer" })).not.toBeInTheDocument();

    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    await screen.findByRole("link", { name: /^Source 1:/ });
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body).toEqual(calls[0]?.body);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getAllByRole("article", { name: "Your question" })).toHaveLength(1);
    expect(store.getState().status).toBe("success");
  });

  it("drops a half-streamed answer when the stream reports an error", async () => {
    installFetch(() =>
      sseResponse([
        ...deltaEvents(URDF_DELTAS.slice(0, 2)),
        errorEvent("INTERNAL_ERROR", "Something went wrong."),
      ]),
    );
    const { user } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    expect(await screen.findByRole("alert")).toHaveTextContent("Something went wrong.");
    expect(screen.queryByRole("article", { name: "Answer" })).not.toBeInTheDocument();
  });

  it("shows TIMEOUT when the answer takes longer than timeoutMs, and cancels the request", async () => {
    const stream = controlledSseResponse();
    installFetch(() => stream.response);
    const { user, store } = renderWidget({ timeoutMs: 50 });
    await openPanel(user);
    await ask(user, QUESTION);
    stream.push(deltaEvents(["The hardware"])[0] ?? "");

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The answer is taking too long. Please try again.");
    expect(alert).toHaveAttribute("data-status", "timeout");
    expect(within(alert).getByRole("button", { name: "Retry" })).toBeInTheDocument();
    expect(store.getState().status).toBe("timeout");
    expect(stream.cancelled).toBe(true);
  });

  it("treats the server's own TIMEOUT as a timeout, with its message", async () => {
    installFetch(() =>
      jsonResponse(504, {
        error_code: "TIMEOUT",
        message: "The request took too long to complete. Please try again.",
        request_id: REQUEST_ID,
      }),
    );
    const { user, store } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "The request took too long to complete.",
    );
    expect(store.getState().status).toBe("timeout");
  });

  it("says when to try again after a 429", async () => {
    installFetch(() =>
      jsonResponse(
        429,
        {
          error_code: "RATE_LIMITED",
          message: "Too many requests. Please wait 30 s and try again.",
          request_id: REQUEST_ID,
          details: { scope: "session", retry_after: 30 },
        },
        { "Retry-After": "30" },
      ),
    );
    const { user } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Too many requests. Please wait 30 s and try again.");
    expect(alert).toHaveTextContent(/You can try again in 30 seconds \(at .+\)\./);
    expect(within(alert).getByRole("button", { name: "Retry" })).toBeInTheDocument();
  });

  it("Stop aborts the stream, keeps what arrived and returns to IDLE", async () => {
    const stream = controlledSseResponse();
    installFetch(() => stream.response);
    const { user, store } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    stream.push(deltaEvents(["The hardware a robot has "])[0] ?? "");
    const answer = screen.getByRole("article", { name: "Answer" });
    await waitFor(() => expect(answer).toHaveTextContent("The hardware a robot has"));

    await user.click(screen.getByRole("button", { name: "Stop" }));
    await waitFor(() => expect(store.getState().status).toBe("idle"));
    expect(stream.cancelled).toBe(true);
    expect(answer).toHaveTextContent("The hardware a robot has");
    expect(within(answer).getByText("Answer stopped.")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Send" })).toBeInTheDocument();
  });

  it("shows the no-results message and no sources when the book does not cover the question", async () => {
    installFetch(() => sseResponse(NO_RESULTS_EVENTS));
    const { user, store } = renderWidget();
    await openPanel(user);
    await ask(user, "How do I bake a chocolate cake?");
    const answer = await screen.findByRole("article", { name: "Answer" });
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(answer).toHaveTextContent(NO_RESULTS_FALLBACK);
    expect(within(answer).queryByRole("list", { name: "Sources" })).not.toBeInTheDocument();
    expect(within(answer).queryByText(/Confidence/)).not.toBeInTheDocument();
  });

  it("shows the low-confidence notice and confidence for a loose match", async () => {
    installFetch(() => sseResponse(answerEvents({ lowConfidence: true, confidence: "low" })));
    const { user } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    expect(await screen.findByText(LOW_CONFIDENCE_MESSAGE)).toBeInTheDocument();
    expect(screen.getByText("Confidence: low")).toBeInTheDocument();
  });

  it("shows no retrieval-only notice for a full answer", async () => {
    installFetch(() => sseResponse(answerEvents({ mode: "full", fallbackMessage: null })));
    const { user } = renderWidget();
    await openPanel(user);
    await ask(user, QUESTION);
    await screen.findByRole("link", { name: /^Source 1:/ });
    expect(screen.queryByText(RETRIEVAL_ONLY_MESSAGE)).not.toBeInTheDocument();
  });

  it("refuses a question over the limit with a clear message and sends nothing", async () => {
    const calls = installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget({ maxQuestionChars: 10 });
    await openPanel(user);
    await ask(user, "This question is too long");
    expect(screen.getByRole("alert")).toHaveTextContent(
      "Your question is 25 characters long; the limit is 10. Please shorten it.",
    );
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveAttribute(
      "aria-invalid",
      "true",
    );
    expect(calls).toHaveLength(0);
  });
});
