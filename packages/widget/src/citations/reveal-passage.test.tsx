// @vitest-environment jsdom
import { screen, waitFor } from "@testing-library/react";
import type { MouseEvent } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { installFetch, sseResponse } from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import { answerEvents, ROS2_CONTROL_SOURCE } from "../test/sse-fixtures.ts";
import { openCitation } from "./open-citation.ts";
import { clearHighlights, HIGHLIGHT_ATTRIBUTE, revealPassage } from "./reveal-passage.ts";

/** The page the reader is on, rendered as Docusaurus would render it. */
function renderHostPage() {
  window.history.replaceState(null, "", "/docs/robot-description/ros2-control");
  const article = document.createElement("article");
  article.innerHTML = `
    <h2 id="intro">Introduction</h2><p>Controllers run in a loop.</p>
    <h2 id="declaring-hardware-in-the-urdf">Declaring hardware in the URDF</h2>
    <p>The hardware a robot has is described in a <code>&lt;ros2_control&gt;</code> element inside
    the URDF. For <em>primer_bot</em>, the wheels take velocity commands.</p>`;
  document.body.prepend(article);
  return article;
}

const marks = () => Array.from(document.querySelectorAll(`mark[${HIGHLIGHT_ATTRIBUTE}]`));

beforeEach(() => {
  Element.prototype.scrollIntoView = vi.fn();
});

afterEach(() => {
  window.history.replaceState(null, "", "/");
  delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
});

describe("citations on the page being read", () => {
  it("scroll to the cited passage and highlight it instead of navigating", async () => {
    const article = renderHostPage();
    installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const chip = await screen.findByRole("link", { name: /^Source 1:/ });

    await user.click(chip);
    await waitFor(() => expect(marks().length).toBeGreaterThan(0));
    const highlighted = marks()
      .map((mark) => mark.textContent)
      .join("");
    expect(highlighted.replace(/\s+/g, " ")).toBe(
      "The hardware a robot has is described in a <ros2_control> element inside",
    );
    expect(marks()[0]?.closest("article")).toBe(article);
    expect(Element.prototype.scrollIntoView).toHaveBeenCalledWith({
      behavior: "smooth",
      block: "center",
    });
    expect(window.location.pathname).toBe("/docs/robot-description/ros2-control");
  });

  it("replace the previous highlight and leave the page's text as it was once cleared", () => {
    const article = renderHostPage();
    const before = article.innerHTML;
    expect(
      revealPassage(document, "declaring-hardware-in-the-urdf", ROS2_CONTROL_SOURCE.snippet),
    ).toBe(true);
    expect(revealPassage(document, "intro", "Controllers run in a loop.")).toBe(true);
    expect(marks().map((mark) => mark.textContent)).toEqual(["Controllers run in a loop"]);
    clearHighlights(document);
    expect(article.innerHTML).toBe(before);
  });

  it("fall back to the anchor when the passage is not found", () => {
    renderHostPage();
    expect(revealPassage(document, "intro", "Text that is not on this page")).toBe(true);
    expect(marks()).toHaveLength(0);
    expect(Element.prototype.scrollIntoView).toHaveBeenCalledWith({
      behavior: "smooth",
      block: "start",
    });
  });
});

describe("openCitation", () => {
  const click = (init: Partial<MouseEvent<HTMLAnchorElement>> = {}) =>
    ({ button: 0, preventDefault: vi.fn(), ...init }) as unknown as MouseEvent<HTMLAnchorElement>;

  it("leaves links to other pages, and modified clicks, to the browser", () => {
    renderHostPage();
    const toOtherPage = click();
    expect(openCitation(toOtherPage, "/docs/description/urdf#xacro", "A robot")).toBe(false);
    expect(toOtherPage.preventDefault).not.toHaveBeenCalled();
    const newTab = click({ ctrlKey: true });
    expect(openCitation(newTab, ROS2_CONTROL_SOURCE.source_url, null)).toBe(false);
    expect(newTab.preventDefault).not.toHaveBeenCalled();
  });

  it("treats a trailing slash as the same page", () => {
    renderHostPage();
    const event = click();
    expect(openCitation(event, "/docs/robot-description/ros2-control/#intro", null)).toBe(true);
    expect(event.preventDefault).toHaveBeenCalled();
  });
});
