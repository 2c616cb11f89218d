// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { type FetchCall, installFetch, jsonResponse, sseResponse } from "../test/fetch-mock.ts";
import { API_URL, ask, renderWidget } from "../test/render-widget.tsx";
import {
  answerEvents,
  REQUEST_ID,
  ROS2_CONTROL_SOURCE,
  smallTalkEvents,
  URDF_ANSWER,
} from "../test/sse-fixtures.ts";
import { isUuidV4 } from "../util/random-uuid.ts";
import { storageKeyFor } from "./persisted-conversation.ts";

const STORAGE_KEY = storageKeyFor(API_URL);

const sessionOf = (call: FetchCall | undefined) =>
  (call?.body as { session_id?: string } | null)?.session_id;

/** The server answers in the session it was asked in. */
function answerInSession(call: FetchCall): Response {
  const sessionId = sessionOf(call);
  return sseResponse(answerEvents(sessionId ? { sessionId } : {}));
}

const SAVED_SESSION_ID = "550e8400-e29b-41d4-a716-446655440000";

/** What an earlier page of the site left in sessionStorage. */
function saveConversation(messages: unknown[], sessionId = SAVED_SESSION_ID): void {
  window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ version: 1, sessionId, messages }));
}

function stored(): { sessionId: string; messages: { role: string; text: string }[] } | null {
  const raw = window.sessionStorage.getItem(STORAGE_KEY);
  return raw ? JSON.parse(raw) : null;
}

describe("conversation persistence", () => {
  it("keeps nothing once the panel closes with clearOnClose and persist off", async () => {
    const calls = installFetch((call) =>
      call.method === "DELETE" ? new Response(null, { status: 204 }) : answerInSession(call),
    );
    const widget = renderWidget({ persist: false, clearOnClose: true });
    await widget.user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(widget.user, "What is a URDF?");
    await waitFor(() => expect(widget.store.getState().status).toBe("success"));
    expect(stored()).toBeNull();
    const asked = sessionOf(calls[0]);

    await widget.user.click(screen.getByRole("button", { name: "Close chat" }));
    await waitFor(() => expect(calls.some((call) => call.method === "DELETE")).toBe(true));
    expect(calls.find((call) => call.method === "DELETE")?.url).toContain(`/history/${asked}`);
    expect(widget.store.getState().messages).toEqual([]);
    expect(widget.store.getState().sessionId).not.toBe(asked);
    expect(stored()).toBeNull();
    // Opened again, the panel is empty: the conversation is gone.
    await widget.user.click(screen.getByRole("button", { name: "Ask the book" }));
    expect(screen.queryByRole("article", { name: "Your question" })).toBeNull();
  });

  it("keeps the session id and the messages in sessionStorage across a reload", async () => {
    const calls = installFetch(answerInSession);
    const first = renderWidget();
    await first.user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(first.user, "What is a URDF?");
    await waitFor(() => expect(first.store.getState().status).toBe("success"));

    const saved = stored();
    const sessionId = sessionOf(calls[0]);
    expect(saved?.sessionId).toBe(sessionId);
    expect(isUuidV4(saved?.sessionId)).toBe(true);
    expect(saved?.messages.map((message) => message.role)).toEqual(["user", "assistant"]);

    // A reload: a new widget on the same page reads the conversation back.
    cleanup();
    const second = renderWidget();
    await second.user.click(screen.getByRole("button", { name: "Ask the book" }));
    expect(screen.getByRole("article", { name: "Your question" })).toHaveTextContent(
      "What is a URDF?",
    );
    expect(screen.getByRole("link", { name: /^Source 1:/ })).toBeInTheDocument();
    await ask(second.user, "And xacro?");
    expect(sessionOf(calls[1])).toBe(sessionId);
  });

  it("stores nothing with persist: false, and forgets what an earlier page stored", async () => {
    saveConversation([{ id: "1", role: "user", text: "Old question", selectedText: null }]);
    installFetch(answerInSession);
    const { user, store } = renderWidget({ persist: false });
    expect(window.sessionStorage.length).toBe(0);
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    expect(screen.queryByText("Old question")).not.toBeInTheDocument();
    await ask(user, "What is a URDF?");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(window.sessionStorage.length).toBe(0);
  });

  it("offers feedback again for a rating the reload cut off", () => {
    const answer = {
      role: "assistant",
      text: "Answer",
      sources: [],
      messageId: "m1",
      streaming: true,
    };
    saveConversation([
      { ...answer, id: "a", feedback: { rating: "up", status: "sending" } },
      { ...answer, id: "b", feedback: { rating: "down", status: "sent" } },
    ]);
    const { store } = renderWidget();
    expect(store.getState().messages).toMatchObject([
      { id: "a", feedback: null, streaming: false },
      { id: "b", feedback: { rating: "down", status: "sent" } },
    ]);
  });

  it("shows an answer saved before routes were stored with its confidence and thumbs", async () => {
    saveConversation([
      { id: "q", role: "user", text: "What is a URDF?", selectedText: null },
      {
        id: "a",
        role: "assistant",
        text: URDF_ANSWER,
        streaming: false,
        stopped: false,
        complete: true,
        sources: [ROS2_CONTROL_SOURCE],
        confidence: "medium",
        mode: "full",
        lowConfidence: false,
        fallbackMessage: null,
        messageId: "m1",
        feedback: null,
      },
    ]);
    const { user, store } = renderWidget();
    expect(store.getState().messages[1]).toMatchObject({ id: "a", route: "question" });
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const answer = screen.getByRole("article", { name: "Answer" });
    expect(within(answer).getByText("Confidence: medium")).toBeInTheDocument();
    expect(within(answer).getByRole("button", { name: "Helpful answer" })).toBeInTheDocument();
  });

  it("keeps a greeting a plain reply across a reload", async () => {
    installFetch(() => sseResponse(smallTalkEvents("greeting")));
    const first = renderWidget();
    await first.user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(first.user, "hello");
    await waitFor(() => expect(first.store.getState().status).toBe("success"));

    cleanup();
    const second = renderWidget();
    await second.user.click(screen.getByRole("button", { name: "Ask the book" }));
    const greeting = screen.getByRole("article", { name: "Answer" });
    expect(greeting).toHaveTextContent("Hello!");
    expect(within(greeting).queryByText(/Confidence:/)).not.toBeInTheDocument();
    expect(
      within(greeting).queryByRole("button", { name: "Helpful answer" }),
    ).not.toBeInTheDocument();
  });

  it("ignores stored data it does not recognise", () => {
    saveConversation([], "not-a-uuid");
    const { store } = renderWidget();
    expect(isUuidV4(store.getState().sessionId)).toBe(true);
    expect(store.getState().messages).toEqual([]);
  });
});

describe("Clear conversation", () => {
  it("calls DELETE /history/{session_id}, clears the panel and starts a new session", async () => {
    const calls = installFetch((call) =>
      call.method === "DELETE"
        ? jsonResponse(404, {
            error_code: "SESSION_NOT_FOUND",
            message: "No conversation with this session id.",
            request_id: REQUEST_ID,
          })
        : answerInSession(call),
    );
    const { user, store } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    const sessionId = store.getState().sessionId;

    await user.click(screen.getByRole("button", { name: "Clear conversation" }));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toMatchObject({ method: "DELETE", url: `${API_URL}/history/${sessionId}` });
    expect(screen.queryByRole("article")).not.toBeInTheDocument();
    expect(screen.getByText(/Ask a question about this book/)).toBeInTheDocument();
    // A 404 (nothing stored on the server) is not an error.
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(store.getState().sessionId).not.toBe(sessionId);
    expect(stored()).toEqual({ version: 1, sessionId: store.getState().sessionId, messages: [] });
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();
  });
});
