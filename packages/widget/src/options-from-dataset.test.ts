import { describe, expect, it, vi } from "vitest";
import { resolveOptions } from "./options.ts";
import { optionsFromDataset } from "./options-from-dataset.ts";
import { DEFAULT_STRINGS } from "./strings.ts";

describe("optionsFromDataset", () => {
  it("reads every data-* option", () => {
    expect(
      optionsFromDataset({
        api: " https://api.example.com/ ",
        title: "Robotics helper",
        placeholder: "Ask away",
        primaryColor: "#123456",
        primaryTextColor: "white",
        theme: "dark",
        persist: "false",
        clearOnClose: "true",
        timeoutMs: "5000",
        maxQuestionChars: "100",
        maxSelectionChars: "200",
        askAboutSelection: "off",
        search: "false",
        placement: "side",
        suggestions: '["What is a node?", "How do topics work?"]',
        strings: '{"send": "Senden", "stop": "Anhalten"}',
      }),
    ).toEqual({
      apiUrl: "https://api.example.com/",
      title: "Robotics helper",
      placeholder: "Ask away",
      primaryColor: "#123456",
      primaryTextColor: "white",
      theme: "dark",
      persist: false,
      clearOnClose: true,
      timeoutMs: 5000,
      maxQuestionChars: 100,
      maxSelectionChars: 200,
      askAboutSelection: false,
      search: false,
      placement: "side",
      suggestions: ["What is a node?", "How do topics work?"],
      strings: { send: "Senden", stop: "Anhalten" },
    });
  });

  it("ignores malformed JSON in data-suggestions and data-strings, with a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(
      optionsFromDataset({ api: "/api", suggestions: "[oops", strings: "{", placement: "left" }),
    ).toEqual({ apiUrl: "/api" });
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it("needs data-api and ignores values it cannot use", () => {
    expect(optionsFromDataset({ title: "x" })).toBeNull();
    expect(
      optionsFromDataset({ api: "/api", persist: "", timeoutMs: "soon", theme: "sepia" }),
    ).toEqual({
      apiUrl: "/api",
      persist: true,
    });
  });
});

describe("resolveOptions", () => {
  it("fills the defaults the server enforces and trims the API URL", () => {
    expect(resolveOptions({ apiUrl: "https://api.example.com/" })).toEqual({
      apiUrl: "https://api.example.com",
      primaryColor: null,
      primaryTextColor: null,
      theme: "auto",
      persist: true,
      clearOnClose: false,
      timeoutMs: 90_000,
      maxQuestionChars: 32_000,
      maxSelectionChars: 64_000,
      askAboutSelection: true,
      search: true,
      share: false,
      placement: "floating",
      suggestions: null,
      strings: DEFAULT_STRINGS,
    });
  });

  it("overrides strings one by one; title and placeholder win over their strings", () => {
    const { strings } = resolveOptions({
      apiUrl: "/api",
      title: "Frag das Buch",
      strings: { title: "ignored", send: "Senden", clear: "  ", unknownKey: "x" } as never,
    });
    expect(strings).toEqual({ ...DEFAULT_STRINGS, title: "Frag das Buch", send: "Senden" });
  });

  it("keeps at most four non-blank starter questions", () => {
    expect(
      resolveOptions({ apiUrl: "/api", suggestions: ["a", " ", "b", "c", "d", "e"] }).suggestions,
    ).toEqual(["a", "b", "c", "d"]);
  });
});

describe("a static book (data-static-book)", () => {
  it("answers from the manifest's book, in place of a server", () => {
    const manifest = "https://docs.example.com/lectern/manifest.json";
    const options = optionsFromDataset({ staticBook: manifest, title: "Ask" });
    expect(options).toEqual({ staticBook: manifest, title: "Ask" });
    const resolved = resolveOptions(options as NonNullable<typeof options>);
    // The manifest's URL, marked so that requests go to the engine's worker.
    expect(resolved.apiUrl).toBe(`lectern-static:${manifest}`);
  });

  it("wins over data-api, and neither is no widget", () => {
    expect(optionsFromDataset({ api: "https://api.example.com", staticBook: "/m.json" })).toEqual({
      staticBook: "/m.json",
    });
    expect(optionsFromDataset({ title: "Ask" })).toBeNull();
    expect(() => resolveOptions({})).toThrow(/apiUrl .* or staticBook/);
  });
});
