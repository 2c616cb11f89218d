// @vitest-environment jsdom
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DEFAULT_STRINGS, fill, type WidgetStrings } from "./strings.ts";
import { installFetch, jsonResponse, sseResponse } from "./test/fetch-mock.ts";
import { ask, renderWidget } from "./test/render-widget.tsx";
import { searchResponse, XACRO_RESULT } from "./test/search-fixtures.ts";
import { answerEvents } from "./test/sse-fixtures.ts";

/** Every string marked with its key, so any text not from the table stands out. */
const MARKED = Object.fromEntries(
  Object.entries(DEFAULT_STRINGS).map(([key, value]) => [key, `⟦${key}⟧ ${value}`]),
) as WidgetStrings;

/** The widget's own words in the document: labels, placeholders, titles and button texts. */
function widgetWords(): string[] {
  const words: string[] = [];
  for (const element of document.querySelectorAll<HTMLElement>(".lectern-root *")) {
    for (const attribute of ["aria-label", "placeholder", "title"]) {
      const value = element.getAttribute(attribute);
      if (value) words.push(value);
    }
    if (element.matches("button:not(.citation-chip):not(.suggestion), .notice, .empty > p")) {
      const text = visibleText(element);
      if (text) words.push(text);
    }
  }
  return words;
}

/** Text without the parts hidden from assistive tech (icons, the × glyph). */
function visibleText(element: HTMLElement): string {
  const copy = element.cloneNode(true) as HTMLElement;
  for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
  return copy.textContent?.trim() ?? "";
}

describe("the strings table", () => {
  it("supplies every label, placeholder and button of each state", async () => {
    installFetch((call) =>
      call.url.includes("/search?")
        ? jsonResponse(200, searchResponse("xacro", [XACRO_RESULT]))
        : // A full answer: a retrieval-only notice would be the server's words, not the widget's.
          sseResponse(
            answerEvents({
              mode: "full",
              fallbackMessage: null,
              lowConfidence: true,
              suggestions: ["What is xacro?"],
            }),
          ),
    );
    const { user, store } = renderWidget({ strings: MARKED });
    const seen: string[] = [];

    seen.push(...widgetWords()); // closed
    await user.click(screen.getByRole("button", { name: /⟦title⟧/ }));
    seen.push(...widgetWords()); // open and empty
    await ask(user, "What is a URDF?");
    await waitFor(() => expect(store.getState().status).toBe("success"));
    seen.push(...widgetWords()); // an answer with sources, notices, thumbs, copy, follow-ups
    await user.keyboard("{Control>}k{/Control}");
    await user.keyboard("xacro");
    await screen.findByText(/Reducing repetition/);
    seen.push(...widgetWords()); // the search box with results

    expect(seen.length).toBeGreaterThan(20);
    for (const text of seen) expect(text).toMatch(/⟦\w+⟧/);
    for (const key of ["confidence", "lowConfidence", "askRow", "searchPlaceholder", "followUps"]) {
      expect(document.body.innerHTML).toContain(`⟦${key}⟧`);
    }
  });

  it("translates, leaving the rest in English", async () => {
    const { user } = renderWidget({ strings: { send: "Senden", title: "Frag das Buch" } });
    await user.click(screen.getByRole("button", { name: "Frag das Buch" }));
    expect(screen.getByRole("dialog", { name: "Frag das Buch" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Senden" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Close chat" })).toBeInTheDocument();
  });

  it("fills placeholders, writing numbers the page's way", () => {
    expect(fill("{a} of {b}, {missing}", { a: 32_000, b: "x" })).toBe("32,000 of x, {missing}");
    document.documentElement.lang = "de";
    expect(fill("{n}", { n: 32_000 })).toBe("32.000");
    document.documentElement.lang = "";
  });
});
