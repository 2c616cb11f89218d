// @vitest-environment jsdom
import { act, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { installFetch, sseResponse } from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import { answerEvents, SELECTION_SOURCE } from "../test/sse-fixtures.ts";
import { SELECTION_SETTLE_MS } from "./use-text-selection.ts";

const PAGE_TEXT =
  "A robot with four identical wheels would need four nearly identical blocks of XML.";

/** Puts a paragraph on the host page and selects it, as a reader dragging over it would. */
function selectPageText(text = PAGE_TEXT): HTMLElement {
  const paragraph = document.createElement("p");
  paragraph.textContent = text;
  document.body.prepend(paragraph);
  const range = document.createRange();
  range.selectNodeContents(paragraph);
  const selection = document.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  paragraph.dispatchEvent(new MouseEvent("mouseup", { bubbles: true, composed: true }));
  return paragraph;
}

/** Runs what the widget scheduled after the mouseup (it reads the selection on the next task). */
function runScheduledWork(): void {
  act(() => {
    vi.runAllTimers();
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("asking about selected text", () => {
  it("offers 'Ask about this', shows the selection as context and sends it as selected_text", async () => {
    const calls = installFetch(() =>
      sseResponse(
        answerEvents({
          deltas: [`${PAGE_TEXT} [1]`],
          answer: `${PAGE_TEXT} [1]`,
          mode: "selected_text",
          sources: [SELECTION_SOURCE],
        }),
      ),
    );
    const { user } = renderWidget();
    selectPageText();

    await user.click(await screen.findByRole("button", { name: "Ask about this" }));
    const panel = screen.getByRole("dialog");
    expect(
      within(panel).getByText(/Asking about your selection \(82 characters\)/),
    ).toBeInTheDocument();
    expect(within(panel).getByText(PAGE_TEXT)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Ask about this" })).not.toBeInTheDocument();
    expect(within(panel).getByRole("textbox", { name: "Your question" })).toHaveFocus();

    await ask(user, "What does this say about wheels?");
    expect(calls[0]?.body).toMatchObject({
      query: "What does this say about wheels?",
      selected_text: PAGE_TEXT,
    });
    const question = screen.getByRole("article", { name: "Your question" });
    expect(question).toHaveTextContent(PAGE_TEXT);
    // The context is used once; the next question is about the whole book again.
    expect(within(panel).queryByText(/Asking about your selection/)).not.toBeInTheDocument();
    const answer = await screen.findByRole("article", { name: "Answer" });
    await within(answer).findByText(/Your selection/);
  });

  it("refuses a selection over the limit with a clear message until it is removed", async () => {
    const calls = installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget({ maxSelectionChars: 20 });
    selectPageText();
    await user.click(await screen.findByRole("button", { name: "Ask about this" }));
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent(
      "The selected text is 82 characters long; the limit is 20. Select a shorter passage.",
    );

    await ask(user, "Why?");
    expect(calls).toHaveLength(0);
    await user.click(screen.getByRole("button", { name: "Remove the selected text" }));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).not.toHaveProperty("selected_text");
  });

  it("hides the button when the selection goes away and ignores selections inside the widget", async () => {
    renderWidget();
    selectPageText();
    await screen.findByRole("button", { name: "Ask about this" });
    document.getSelection()?.removeAllRanges();
    document.dispatchEvent(new Event("selectionchange"));
    await waitFor(() =>
      expect(screen.queryByRole("button", { name: "Ask about this" })).not.toBeInTheDocument(),
    );

    vi.useFakeTimers();
    const launcher = screen.getByRole("button", { name: "Ask the book" });
    document.getSelection()?.selectAllChildren(launcher);
    launcher.dispatchEvent(new MouseEvent("mouseup", { bubbles: true, composed: true }));
    runScheduledWork();
    expect(screen.queryByRole("button", { name: "Ask about this" })).not.toBeInTheDocument();
  });

  it("appears for a selection made by touch, once selectionchange has settled", async () => {
    installFetch(() => sseResponse(answerEvents()));
    vi.useFakeTimers();
    const { store } = renderWidget();
    const paragraph = document.createElement("p");
    paragraph.textContent = PAGE_TEXT;
    document.body.prepend(paragraph);
    const text = paragraph.firstChild as Text;
    const range = document.createRange();
    // A finger drags the selection's end handle: several selectionchange events, no mouseup.
    for (const end of [10, 40, PAGE_TEXT.length]) {
      range.setStart(text, 0);
      range.setEnd(text, end);
      document.getSelection()?.removeAllRanges();
      document.getSelection()?.addRange(range);
      document.dispatchEvent(new Event("selectionchange"));
      act(() => {
        vi.advanceTimersByTime(SELECTION_SETTLE_MS / 2);
      });
      // Still moving: nothing offered yet.
      expect(screen.queryByRole("button", { name: "Ask about this" })).not.toBeInTheDocument();
    }
    act(() => {
      vi.advanceTimersByTime(SELECTION_SETTLE_MS);
    });
    const button = screen.getByRole("button", { name: "Ask about this" });
    vi.useRealTimers();
    // The tap may collapse the page's selection just before its click lands.
    document.getSelection()?.removeAllRanges();
    document.dispatchEvent(new Event("selectionchange"));
    act(() => button.click());
    expect(store.getState().selection).toBe(PAGE_TEXT);
    expect(screen.getByRole("dialog")).toBeInTheDocument();
  });

  it("can be switched off", () => {
    vi.useFakeTimers();
    renderWidget({ askAboutSelection: false });
    selectPageText();
    runScheduledWork();
    expect(screen.queryByRole("button", { name: "Ask about this" })).not.toBeInTheDocument();
  });
});
