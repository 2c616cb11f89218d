// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { installFetch, jsonResponse, sseResponse } from "../test/fetch-mock.ts";
import { API_URL, ask, renderWidget } from "../test/render-widget.tsx";
import { answerEvents } from "../test/sse-fixtures.ts";

const STARTERS = ["What is a node?", "How do topics work?", "What is a URDF?"];
const FOLLOW_UPS = ["What is xacro?", "How is ros2_control configured?"];

describe("starter questions", () => {
  it("come from GET /suggestions in the empty panel, and asking one sends it", async () => {
    const calls = installFetch((call) =>
      call.url.endsWith("/suggestions")
        ? jsonResponse(200, { questions: STARTERS })
        : sseResponse(answerEvents()),
    );
    const { user, store } = renderWidget({}, { serverSuggestions: true });
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const starters = await screen.findByRole("list", { name: "Try asking" });
    expect(
      within(starters)
        .getAllByRole("button")
        .map((button) => button.textContent),
    ).toEqual(STARTERS);
    expect(calls[0]).toMatchObject({ url: `${API_URL}/suggestions`, method: "GET" });

    await user.click(within(starters).getByRole("button", { name: "How do topics work?" }));
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(calls[1]?.body).toMatchObject({ query: "How do topics work?" });
    expect(screen.queryByRole("list", { name: "Try asking" })).not.toBeInTheDocument();

    // Asked once per page: clearing the conversation shows them again without a new request.
    await user.click(screen.getByRole("button", { name: "Clear conversation" }));
    expect(await screen.findByRole("list", { name: "Try asking" })).toBeInTheDocument();
    expect(calls.filter((call) => call.url.endsWith("/suggestions"))).toHaveLength(1);
  });

  it("from the suggestions option win: the server is not asked", async () => {
    const calls = installFetch(() => jsonResponse(200, { questions: ["From the server?"] }));
    const { user } = renderWidget({ suggestions: ["From the host?"] }, { serverSuggestions: true });
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    expect(screen.getByRole("button", { name: "From the host?" })).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it("are silently none when the server has no such route or answers nonsense", async () => {
    for (const response of [
      () => jsonResponse(404, { error_code: "NOT_FOUND", message: "No.", request_id: "x" }),
      () => jsonResponse(200, { questions: "not a list" }),
      () => Promise.reject(new TypeError("Failed to fetch")),
    ]) {
      const calls = installFetch(response);
      const { user, unmount } = renderWidget({}, { serverSuggestions: true });
      await user.click(screen.getByRole("button", { name: "Ask the book" }));
      await waitFor(() => expect(calls).toHaveLength(1));
      const panel = screen.getByRole("dialog");
      expect(within(panel).getByText(/Ask a question about this book/)).toBeInTheDocument();
      expect(within(panel).queryByRole("list")).not.toBeInTheDocument();
      expect(within(panel).queryByRole("alert")).not.toBeInTheDocument();
      unmount();
    }
  });
});

describe("follow-up questions", () => {
  it("are offered under the newest answer from its sources event, and asking one sends it", async () => {
    const calls = installFetch(() =>
      sseResponse(answerEvents({ suggestions: [...FOLLOW_UPS, "", "Third?", "Fourth?"] })),
    );
    const { user, store } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const answer = await screen.findByRole("article", { name: "Answer" });
    const followUps = await within(answer).findByRole("list", { name: "Ask next" });
    // At most three, blanks dropped.
    expect(
      within(followUps)
        .getAllByRole("button")
        .map((button) => button.textContent),
    ).toEqual([...FOLLOW_UPS, "Third?"]);

    await user.click(within(followUps).getByRole("button", { name: "What is xacro?" }));
    expect(calls[1]?.body).toMatchObject({ query: "What is xacro?" });
    await waitFor(() => expect(store.getState().status).toBe("success"));
    // Only the newest answer offers them.
    const answers = screen.getAllByRole("article", { name: "Answer" });
    expect(within(answers[0] as HTMLElement).queryByRole("list", { name: "Ask next" })).toBeNull();
    expect(within(answers[1] as HTMLElement).getByRole("list", { name: "Ask next" })).toBeVisible();
  });

  it("are absent when the server sends none", async () => {
    installFetch(() => sseResponse(answerEvents()));
    const { user, store } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(screen.queryByRole("list", { name: "Ask next" })).not.toBeInTheDocument();
  });
});
