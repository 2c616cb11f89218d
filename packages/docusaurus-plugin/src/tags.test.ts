import { describe, expect, it } from "vitest";
import { validateOptions } from "./options.js";
import { widgetScriptTag } from "./tags.js";

function tagFor(options: Record<string, unknown>) {
  return widgetScriptTag(
    validateOptions({ options: { apiUrl: "https://api.example", ...options } }),
  );
}

describe("widgetScriptTag", () => {
  it("loads lectern.js from the API with only data-api when nothing else is set", () => {
    expect(tagFor({})).toEqual({
      tagName: "script",
      attributes: {
        defer: true,
        src: "https://api.example/lectern.js",
        "data-api": "https://api.example",
      },
    });
  });

  it("loads the script from scriptUrl while data-api stays the API", () => {
    expect(tagFor({ scriptUrl: "https://cdn.example/lectern.js" }).attributes).toEqual({
      defer: true,
      src: "https://cdn.example/lectern.js",
      "data-api": "https://api.example",
    });
  });

  it.each([
    [{ title: "Ask the primer" }, { "data-title": "Ask the primer" }],
    [{ placeholder: "Your question…" }, { "data-placeholder": "Your question…" }],
    [{ primaryColor: "#2e8555" }, { "data-primary-color": "#2e8555" }],
    [{ colors: { primary: "rebeccapurple" } }, { "data-primary-color": "rebeccapurple" }],
    [{ colors: { primaryText: "#fff" } }, { "data-primary-text-color": "#fff" }],
    [{ theme: "light" }, { "data-theme": "light" }],
    [{ persist: true }, { "data-persist": "true" }],
    [{ persist: false }, { "data-persist": "false" }],
    [{ askAboutSelection: false }, { "data-ask-about-selection": "false" }],
    [{ timeoutMs: 45000 }, { "data-timeout-ms": "45000" }],
    [{ maxQuestionChars: 1000 }, { "data-max-question-chars": "1000" }],
    [{ maxSelectionChars: 5000 }, { "data-max-selection-chars": "5000" }],
    [{ placement: "side" }, { "data-placement": "side" }],
    // The navbar button is the plugin's, not the widget's: nothing of it on the widget's tag.
    [{ navbarButton: true }, {}],
  ])("writes %j as %j", (options, attributes) => {
    expect(tagFor(options).attributes).toEqual({
      defer: true,
      src: "https://api.example/lectern.js",
      "data-api": "https://api.example",
      ...attributes,
    });
  });

  it("writes the attributes the widget's standalone script reads, as the options given", async () => {
    // The widget's own parser of script data-* attributes; imported by a computed path so that
    // this package's type check (Node, no DOM types) does not take in the widget's sources.
    const parser = new URL("../../widget/src/options-from-dataset.ts", import.meta.url).href;
    const { optionsFromDataset } = (await import(parser)) as {
      optionsFromDataset: (dataset: Record<string, string>) => Record<string, unknown> | null;
    };
    // Options the widget reads under the same names as the plugin's.
    const sameNames = {
      title: "Ask the primer",
      placeholder: "Your question",
      theme: "dark",
      persist: false,
      askAboutSelection: false,
      timeoutMs: 45000,
      maxQuestionChars: 1000,
      maxSelectionChars: 5000,
    };
    const tag = tagFor({ ...sameNames, colors: { primary: "#2e8555", primaryText: "white" } });
    // What the browser's script.dataset holds for those attributes.
    const dataset = Object.fromEntries(
      Object.entries(tag.attributes ?? {})
        .filter(([name]) => name.startsWith("data-"))
        .map(([name, value]) => [
          name.slice(5).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()),
          String(value),
        ]),
    );
    expect(optionsFromDataset(dataset)).toEqual({
      apiUrl: "https://api.example",
      ...sameNames,
      primaryColor: "#2e8555",
      primaryTextColor: "white",
    });
  });

  it("points a static book's widget at the book built under the site's base URL", () => {
    const options = validateOptions({ options: { mode: "static", title: "Ask" } });
    expect(widgetScriptTag(options, "/handbook/").attributes).toEqual({
      defer: true,
      src: "/handbook/lectern/lectern.js",
      "data-static-book": "/handbook/lectern/manifest.json",
      "data-title": "Ask",
    });
    expect(widgetScriptTag(options).attributes).toMatchObject({
      src: "/lectern/lectern.js",
      "data-static-book": "/lectern/manifest.json",
    });
  });
});
