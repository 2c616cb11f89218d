// @vitest-environment jsdom
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderWidget } from "../test/render-widget.tsx";

describe("placement", () => {
  it("floating by default: a modal panel that keeps focus inside", async () => {
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const panel = screen.getByRole("dialog", { name: "Ask the book" });
    expect(panel).toHaveClass("panel");
    expect(panel).not.toHaveClass("side");
    expect(panel).toHaveAttribute("aria-modal", "true");
  });

  it("side: a drawer beside the page, which stays in reach; Esc still closes it", async () => {
    const { user } = renderWidget({ placement: "side" });
    const pageLink = document.createElement("a");
    pageLink.href = "#later";
    pageLink.textContent = "A link on the page";
    document.body.append(pageLink);

    const launcher = screen.getByRole("button", { name: "Ask the book" });
    await user.click(launcher);
    const panel = screen.getByRole("dialog", { name: "Ask the book" });
    expect(panel).toHaveClass("panel", "side");
    expect(panel).not.toHaveAttribute("aria-modal");

    // Tab leaves the drawer for the page rather than cycling inside it.
    let left = false;
    for (let step = 0; step < 8 && !left; step++) {
      await user.tab();
      left = !panel.contains(document.activeElement);
    }
    expect(left).toBe(true);

    // ⌘I brings the reader back to the question box.
    pageLink.focus();
    await user.keyboard("{Meta>}i{/Meta}");
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();

    await user.click(screen.getByRole("textbox", { name: "Your question" }));
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(launcher).toHaveFocus();
  });
});
