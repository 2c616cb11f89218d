// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { controlledSseResponse, installFetch, sseResponse } from "../test/fetch-mock.ts";
import { API_URL, ask, renderWidget } from "../test/render-widget.tsx";
import {
  answerEvents,
  deltaEvents,
  doneEvent,
  REQUEST_ID,
  SELECTION_SOURCE,
  sourcesEvent,
  URDF_ANSWER,
  URDF_DELTAS,
} from "../test/sse-fixtures.ts";

/** After renderWidget: user-event puts a clipboard of its own in place when it is set up. */
function stubClipboard() {
  const writeText = vi.fn(async (_text: string) => {});
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  return writeText;
}

/** Layout boxes (jsdom has none): the list's top at 100 px, every message at 700 px. */
function placeMessagesBelowList(list: HTMLElement) {
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (
    this: HTMLElement,
  ) {
    const top = this === list ? 100 : this.tagName === "ARTICLE" ? 700 : 0;
    return { top, bottom: top + 100, left: 0, right: 0, width: 0, height: 100 } as DOMRect;
  });
}

describe("copying an answer", () => {
  it("copies a finished answer as Markdown: its [n] markers and its sources as absolute links", async () => {
    installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget();
    const writeText = stubClipboard();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const answer = await screen.findByRole("article", { name: "Answer" });
    const copy = await within(answer).findByRole("button", { name: "Copy answer as Markdown" });
    await user.click(copy);

    expect(writeText).toHaveBeenCalledWith(
      [
        URDF_ANSWER,
        "",
        "Sources:",
        "",
        "1. [The ros2_control Framework › Declaring hardware in the URDF](http://localhost:3000/docs/robot-description/ros2-control#declaring-hardware-in-the-urdf)",
        "2. [Describing a Robot with URDF › Reducing repetition with xacro](http://localhost:3000/docs/description/urdf#xacro)",
        "",
      ].join("\n"),
    );
    expect(copy).toHaveTextContent("Copied");
  });

  it("names the reader's selection as a source, and is offered only once the answer is finished", async () => {
    const stream = controlledSseResponse();
    installFetch(() => stream.response);
    const { user, store } = renderWidget();
    const writeText = stubClipboard();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "Explain");
    stream.push(deltaEvents(["Four wheels [1]"])[0] ?? "");
    const answer = await screen.findByRole("article", { name: "Answer" });
    await within(answer).findByText(/Four wheels/);
    expect(within(answer).queryByRole("button", { name: /Copy/ })).not.toBeInTheDocument();

    stream.push(
      sourcesEvent({
        answer: "Four wheels [1]",
        mode: "selected_text",
        sources: [SELECTION_SOURCE],
      }),
    );
    stream.push(doneEvent());
    stream.close();
    await waitFor(() => expect(store.getState().status).toBe("success"));
    await user.click(within(answer).getByRole("button", { name: "Copy answer as Markdown" }));
    expect(writeText).toHaveBeenCalledWith("Four wheels [1]\n\nSources:\n\n1. Your selection\n");
  });
});

describe("a new answer", () => {
  it("is scrolled to its start, not to the bottom, and stays there while it streams", async () => {
    const stream = controlledSseResponse();
    installFetch(() => stream.response);
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const list = screen.getByRole("log", { name: "Conversation" });
    Object.defineProperty(list, "scrollHeight", { value: 5_000, configurable: true });
    placeMessagesBelowList(list);
    list.scrollTop = 40;

    await ask(user, "What is a URDF?");
    await screen.findByRole("article", { name: "Answer" });
    // The answer's top edge comes to the list's top, with a small margin: 40 + 600 - 8.
    await waitFor(() => expect(list.scrollTop).toBe(632));
    for (const event of deltaEvents(URDF_DELTAS)) stream.push(event);
    await screen.findByText(/macros to URDF/);
    expect(list.scrollTop).toBe(632);
  });
});

describe("sharing an answer", () => {
  it("is offered only when the host turns it on, and puts the shared link on the clipboard", async () => {
    const calls = installFetch((call) =>
      call.url.endsWith("/share")
        ? new Response(
            JSON.stringify({
              share_id: "q3VxKp0aZ8m1rT5yB2cD4e",
              url: "/share/q3VxKp0aZ8m1rT5yB2cD4e",
            }),
            {
              status: 201,
              headers: { "Content-Type": "application/json" },
            },
          )
        : sseResponse(answerEvents()),
    );
    const { user, store } = renderWidget({ share: true });
    const writeText = stubClipboard();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const answer = await screen.findByRole("article", { name: "Answer" });
    const share = await within(answer).findByRole("button", { name: "Copy a link to this answer" });
    await user.click(share);

    await waitFor(() => expect(share).toHaveTextContent("Link copied"));
    const request = calls.find((call) => call.url.endsWith("/share"));
    expect(request).toMatchObject({
      method: "POST",
      body: { session_id: store.getState().sessionId, message_id: REQUEST_ID },
    });
    expect(writeText).toHaveBeenCalledWith(`${API_URL}/share/q3VxKp0aZ8m1rT5yB2cD4e`);
  });

  it("is not offered by default, and says so when the server refuses", async () => {
    installFetch(() => sseResponse(answerEvents()));
    const plain = renderWidget({ persist: false });
    await plain.user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(plain.user, "What is a URDF?");
    const answer = await screen.findByRole("article", { name: "Answer" });
    await within(answer).findByRole("button", { name: "Copy answer as Markdown" });
    expect(within(answer).queryByRole("button", { name: "Copy a link to this answer" })).toBeNull();
    plain.unmount();

    installFetch((call) =>
      call.url.endsWith("/share")
        ? new Response(
            JSON.stringify({
              error_code: "SHARING_DISABLED",
              message: "off",
              request_id: REQUEST_ID,
            }),
            { status: 403, headers: { "Content-Type": "application/json" } },
          )
        : sseResponse(answerEvents()),
    );
    const refused = renderWidget({ share: true, persist: false });
    await refused.user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(refused.user, "What is a URDF?");
    const second = await screen.findByRole("article", { name: "Answer" });
    const share = await within(second).findByRole("button", { name: "Copy a link to this answer" });
    await refused.user.click(share);
    await waitFor(() => expect(share).toHaveTextContent("Could not share"));
  });
});
