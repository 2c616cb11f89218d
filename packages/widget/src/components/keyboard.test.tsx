// @vitest-environment jsdom
import { act, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  controlledSseResponse,
  installFetch,
  jsonResponse,
  sseResponse,
} from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import { answerEvents } from "../test/sse-fixtures.ts";

describe("keyboard use", () => {
  it("opens with Enter on the floating button, closes with Esc and returns focus to it", async () => {
    const { user } = renderWidget();
    await user.tab();
    const launcher = screen.getByRole("button", { name: "Ask the book" });
    expect(launcher).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(screen.getByRole("dialog", { name: "Ask the book" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();

    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await waitFor(() => expect(launcher).toHaveFocus());
  });

  it("gives focus back to the page's own button that opened it through the API", async () => {
    const { store, user } = renderWidget();
    const askButton = document.createElement("button");
    askButton.textContent = "Ask AI";
    askButton.addEventListener("click", () => store.getState().open());
    document.body.prepend(askButton);

    await user.click(askButton);
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await waitFor(() => expect(askButton).toHaveFocus());

    // Opened again from the floating button, focus goes back to that button, not the first one.
    const launcher = screen.getByRole("button", { name: "Ask the book" });
    await user.click(launcher);
    await user.keyboard("{Escape}");
    await waitFor(() => expect(launcher).toHaveFocus());
  });

  it("traps focus inside the open panel in both directions", async () => {
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const panel = screen.getByRole("dialog");
    const input = screen.getByRole("textbox", { name: "Your question" });
    await user.type(input, "What is a URDF?");
    // The header's first control: the search box's button (Clear is disabled while empty).
    const first = screen.getByRole("button", { name: "Search or ask" });
    const send = screen.getByRole("button", { name: "Send" });

    await user.tab();
    expect(send).toHaveFocus();
    await user.tab(); // past the last control: back to the first
    expect(first).toHaveFocus();
    await user.tab({ shift: true }); // before the first: round to the last
    expect(send).toHaveFocus();
    for (let step = 0; step < 7; step++) {
      await user.tab();
      expect(panel).toContainElement(document.activeElement as HTMLElement);
    }
  });

  it("keeps focus in the panel when the answer ends while Stop has it", async () => {
    const stream = controlledSseResponse();
    installFetch(() => stream.response);
    const { user, store } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const stop = screen.getByRole("button", { name: "Stop" });
    await user.tab();
    expect(stop).toHaveFocus();

    // Stop becomes a disabled Send, which cannot hold focus: the question box takes it.
    for (const event of answerEvents()) stream.push(event);
    stream.close();
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("gives focus to the question box when a pressed control goes away: Retry, a suggestion, ×", async () => {
    let attempt = 0;
    installFetch((call) => {
      if (call.url.endsWith("/suggestions"))
        return jsonResponse(200, { questions: ["What is a node?"] });
      return ++attempt === 1
        ? jsonResponse(503, {
            error_code: "DATABASE_UNAVAILABLE",
            message: "Unavailable right now.",
          })
        : sseResponse(answerEvents());
    });
    const { user, store } = renderWidget({}, { serverSuggestions: true });
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const box = screen.getByRole("textbox", { name: "Your question" });

    // A starter question, pressed from the keyboard: the list goes away once it is asked.
    const starters = await screen.findByRole("list", { name: "Try asking" });
    within(starters).getByRole("button").focus();
    await user.keyboard("{Enter}");
    const alert = await screen.findByRole("alert");
    expect(box).toHaveFocus();

    // Retry: the notice goes away as the question is asked again.
    within(alert).getByRole("button", { name: "Retry" }).focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(box).toHaveFocus();

    // The × that drops a selection goes away with it.
    act(() => store.getState().askAboutSelection("A URDF describes the robot."));
    screen.getByRole("button", { name: "Remove the selected text" }).focus();
    await user.keyboard("{Enter}");
    expect(store.getState().selection).toBeNull();
    expect(box).toHaveFocus();
  });

  it("leaves focus alone when such a control is tapped or clicked: no on-screen keyboard pops up", async () => {
    installFetch((call) =>
      call.url.endsWith("/suggestions")
        ? jsonResponse(200, { questions: ["What is a node?"] })
        : sseResponse(answerEvents()),
    );
    const { user, store } = renderWidget({}, { serverSuggestions: true });
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const box = screen.getByRole("textbox", { name: "Your question" });
    const starters = await screen.findByRole("list", { name: "Try asking" });
    await user.click(within(starters).getByRole("button"));
    await waitFor(() => expect(store.getState().status).toBe("success"));
    expect(box).not.toHaveFocus();
  });

  it("labels every control", async () => {
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    for (const button of screen.getAllByRole("button")) {
      expect(button).toHaveAccessibleName();
    }
    expect(screen.getByRole("textbox")).toHaveAccessibleName("Your question");
    expect(screen.getByRole("dialog")).toHaveAttribute("aria-modal", "true");
    expect(screen.getByRole("log")).toHaveAttribute("aria-live", "polite");
  });
});
