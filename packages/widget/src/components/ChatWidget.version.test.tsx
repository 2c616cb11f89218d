// @vitest-environment jsdom
import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { searchBook } from "../api/search-book.ts";
import { installFetch, jsonResponse, sseResponse } from "../test/fetch-mock.ts";
import { ask, renderWidget } from "../test/render-widget.tsx";
import { answerEvents } from "../test/sse-fixtures.ts";
import { pageDocsVersion, pageLocale } from "../util/docs-version.ts";

function setMeta(name: string, content: string) {
  const meta = document.createElement("meta");
  meta.setAttribute("name", name);
  meta.setAttribute("content", content);
  document.head.append(meta);
}

afterEach(() => {
  for (const meta of document.head.querySelectorAll("meta")) meta.remove();
  document.documentElement.removeAttribute("lang");
});

describe("the docs version of the page", () => {
  it("is read from Docusaurus's meta tags, docusaurus_version first", () => {
    expect(pageDocsVersion()).toBeUndefined();
    setMeta("docsearch:version", "29.7");
    expect(pageDocsVersion()).toBe("29.7");
    setMeta("docusaurus_version", "current");
    expect(pageDocsVersion()).toBe("current");
  });

  it("is sent as filters.version with the question; nothing is sent on a page without it", async () => {
    const calls = installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "What is a URDF?");
    const first = calls[0]?.body as Record<string, unknown> | undefined;
    expect(first).toBeDefined();
    expect(first?.filters).toBeUndefined();

    setMeta("docusaurus_version", "29.7");
    await ask(user, "And in this version?");
    const last = calls.at(-1)?.body as Record<string, unknown> | undefined;
    expect(last?.filters).toEqual({ version: "29.7" });
  });
});

describe("searches", () => {
  it("name the page's docs version, and none on a page without it", async () => {
    const calls = installFetch(() => jsonResponse(200, { query: "mock", results: [], took_ms: 1 }));
    const signal = new AbortController().signal;
    await searchBook("https://api.example.com", "mock", signal);
    expect(new URL(calls[0]?.url ?? "").searchParams.has("version")).toBe(false);
    setMeta("docusaurus_version", "29.7");
    await searchBook("https://api.example.com", "mock", signal);
    expect(new URL(calls[1]?.url ?? "").searchParams.get("version")).toBe("29.7");
  });
});

describe("the language of the page", () => {
  it("is read from <html lang>, and sent with questions and searches", async () => {
    expect(pageLocale()).toBeUndefined();
    document.documentElement.setAttribute("lang", "fr");
    expect(pageLocale()).toBe("fr");
    setMeta("docusaurus_version", "29.7");
    const calls = installFetch(() => sseResponse(answerEvents()));
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    await ask(user, "Qu'est-ce qu'un URDF ?");
    const body = calls.at(-1)?.body as Record<string, unknown> | undefined;
    expect(body?.filters).toEqual({ version: "29.7", locale: "fr" });

    const searches = installFetch(() =>
      jsonResponse(200, { query: "urdf", results: [], took_ms: 1 }),
    );
    await searchBook("https://api.example.com", "urdf", new AbortController().signal);
    expect(new URL(searches[0]?.url ?? "").searchParams.get("locale")).toBe("fr");
  });
});
