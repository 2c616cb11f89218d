// @vitest-environment jsdom
import { waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderWidget } from "../test/render-widget.tsx";

const root = () => document.querySelector(".lectern-root");

afterEach(() => {
  delete document.documentElement.dataset.theme;
});

describe("theme", () => {
  it("follows html[data-theme] as Docusaurus sets it, live", async () => {
    document.documentElement.dataset.theme = "dark";
    renderWidget();
    expect(root()).toHaveAttribute("data-theme", "dark");
    document.documentElement.dataset.theme = "light";
    await waitFor(() => expect(root()).toHaveAttribute("data-theme", "light"));
  });

  it("falls back to prefers-color-scheme", () => {
    vi.stubGlobal(
      "matchMedia",
      vi.fn((query: string) => ({
        matches: query === "(prefers-color-scheme: dark)",
        addEventListener: vi.fn(),
        removeEventListener: vi.fn(),
      })),
    );
    renderWidget();
    expect(root()).toHaveAttribute("data-theme", "dark");
  });

  it("can be fixed, and takes the host's primary colour", () => {
    document.documentElement.dataset.theme = "dark";
    renderWidget({ theme: "light", primaryColor: "#7b1fa2", primaryTextColor: "#fff" });
    expect(root()).toHaveAttribute("data-theme", "light");
    expect((root() as HTMLElement).style.getPropertyValue("--lectern-primary")).toBe("#7b1fa2");
    expect((root() as HTMLElement).style.getPropertyValue("--lectern-on-primary")).toBe("#fff");
  });
});
