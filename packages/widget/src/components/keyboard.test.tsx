// @vitest-environment jsdom
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { controlledSseResponse, installFetch } from "../test/fetch-mock.ts";
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
