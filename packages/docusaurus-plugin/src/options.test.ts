import { describe, expect, it } from "vitest";
import { DEFAULT_INGEST_COMMAND, validateOptions } from "./options.js";

function errorOf(options: unknown): string {
  try {
    validateOptions({ options });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the options to be refused");
}

describe("validateOptions", () => {
  it("fills in the defaults around apiUrl", () => {
    expect(validateOptions({ options: { apiUrl: "https://api.example.com/" } })).toEqual({
      id: "default",
      mode: "server",
      apiUrl: "https://api.example.com",
      scriptUrl: "https://api.example.com/lectern.js",
      colors: {},
      ingest: { enabled: false, command: [...DEFAULT_INGEST_COMMAND], llmsTxt: true },
    });
  });

  it("keeps every widget option it is given", () => {
    const given = {
      id: "book",
      apiUrl: "https://api.example.com",
      scriptUrl: "https://cdn.example.com/lectern@1/lectern.js",
      title: "  Ask the primer ",
      placeholder: "What is a URDF?",
      colors: { primary: "#2e8555", primaryText: "white" },
      theme: "dark",
      persist: false,
      askAboutSelection: false,
      timeoutMs: 60000,
      maxQuestionChars: 2000,
      maxSelectionChars: 8000,
      placement: "side",
      navbarButton: { label: "Frag das Buch" },
      ingest: {
        enabled: true,
        command: ["node", "lectern.js"],
        dataDir: ".lectern",
        llmsTxt: true,
      },
    };
    // Only the title changes: it is trimmed; the mode is the default one.
    expect(validateOptions({ options: given })).toEqual({
      ...given,
      mode: "server",
      title: "Ask the primer",
    });
  });

  it("accepts an API on the site's own origin and protocol-relative URLs", () => {
    expect(validateOptions({ options: { apiUrl: "/api/" } }).scriptUrl).toBe("/api/lectern.js");
    expect(validateOptions({ options: { apiUrl: "//api.example.com" } }).apiUrl).toBe(
      "//api.example.com",
    );
  });

  it("folds primaryColor into colors.primary", () => {
    expect(
      validateOptions({ options: { apiUrl: "/api", primaryColor: "#123456" } }).colors,
    ).toEqual({ primary: "#123456" });
    expect(
      validateOptions({
        options: { apiUrl: "/api", primaryColor: "red", colors: { primary: "red" } },
      }).colors,
    ).toEqual({ primary: "red" });
  });

  it("turns the navbar button on with true or a label, and leaves it off otherwise", () => {
    const button = (navbarButton: unknown) =>
      validateOptions({ options: { apiUrl: "/api", navbarButton } }).navbarButton;
    expect(button(true)).toEqual({ label: "Ask AI" });
    expect(button({})).toEqual({ label: "Ask AI" });
    expect(button({ label: " Ask the book " })).toEqual({ label: "Ask the book" });
    expect(button(false)).toBeUndefined();
    expect(button(undefined)).toBeUndefined();
  });

  it("is idempotent, so the plugin can check what Docusaurus already checked", () => {
    const once = validateOptions({
      options: { apiUrl: "https://a.example", primaryColor: "red", ingest: { enabled: true } },
    });
    expect(validateOptions({ options: once })).toEqual(once);
  });

  it.each([
    [undefined, /option "apiUrl" is required/],
    [{}, /option "apiUrl" is required/],
    ["https://api.example.com", /options must be an object, got "https:/],
    [{ apiUrl: 42 }, /option "apiUrl" must be an http\(s\) URL .*got number 42/],
    [{ apiUrl: "api.example.com" }, /option "apiUrl" must be an http\(s\) URL/],
    [{ apiUrl: "javascript:alert(1)" }, /option "apiUrl" must be an http\(s\) URL/],
    [{ apiUrl: "/api", scriptUrl: "ftp://x/lectern.js" }, /option "scriptUrl" must be/],
    [{ apiUrl: "/api", title: "" }, /option "title" must be a non-empty string/],
    [{ apiUrl: "/api", placeholder: 3 }, /option "placeholder" must be a non-empty string/],
    [{ apiUrl: "/api", primaryColor: "red;}" }, /option "primaryColor" must be a CSS colour/],
    [{ apiUrl: "/api", colors: "red" }, /option "colors" must be an object/],
    [{ apiUrl: "/api", colors: { secondary: "red" } }, /unknown option "colors.secondary"/],
    [{ apiUrl: "/api", colors: { primaryText: "" } }, /option "colors.primaryText" must be/],
    [
      { apiUrl: "/api", primaryColor: "red", colors: { primary: "blue" } },
      /"primaryColor" and "colors.primary" disagree/,
    ],
    [{ apiUrl: "/api", theme: "sepia" }, /option "theme" must be one of "auto", "light", "dark"/],
    [{ apiUrl: "/api", persist: "false" }, /option "persist" must be true or false, got "false"/],
    [{ apiUrl: "/api", askAboutSelection: 1 }, /option "askAboutSelection" must be true or false/],
    [{ apiUrl: "/api", timeoutMs: -5 }, /option "timeoutMs" must be a positive integer/],
    [{ apiUrl: "/api", maxQuestionChars: 1.5 }, /option "maxQuestionChars" must be a positive/],
    [{ apiUrl: "/api", maxSelectionChars: "9" }, /option "maxSelectionChars" must be a positive/],
    [{ apiUrl: "/api", id: "" }, /option "id" must be a non-empty string/],
    [{ apiUrl: "/api", placement: "left" }, /option "placement" must be one of "floating", "side"/],
    [{ apiUrl: "/api", navbarButton: "Ask AI" }, /option "navbarButton" must be true, false or/],
    [{ apiUrl: "/api", navbarButton: { label: "" } }, /"navbarButton.label" must be a non-empty/],
    [{ apiUrl: "/api", navbarButton: { text: "Ask" } }, /unknown option "navbarButton.text"/],
    [
      { apiUrl: "/api", ingest: true },
      /option "ingest" must be an object such as \{ enabled: true \}/,
    ],
    [{ apiUrl: "/api", ingest: {} }, /option "ingest.enabled" must be true or false, got nothing/],
    [{ apiUrl: "/api", ingest: { enabled: true, command: [] } }, /option "ingest.command" must be/],
    [{ apiUrl: "/api", ingest: { enabled: true, command: "npx lectern" } }, /"ingest.command"/],
    [{ apiUrl: "/api", ingest: { enabled: true, dataDir: 1 } }, /option "ingest.dataDir" must/],
    [{ apiUrl: "/api", ingest: { enabled: true, docsDir: "" } }, /option "ingest.docsDir" must/],
    [{ apiUrl: "/api", ingest: { enabled: true, strict: "yes" } }, /option "ingest.strict" must/],
    [{ apiUrl: "/api", ingest: { enabled: true, llmsTxt: 1 } }, /option "ingest.llmsTxt" must/],
    [{ apiUrl: "/api", ingest: { enabled: true, baseUrl: [] } }, /option "ingest.baseUrl" must/],
    [{ apiUrl: "/api", ingest: { enabled: true, routeBasePath: 1 } }, /"ingest.routeBasePath"/],
    [{ apiUrl: "/api", ingest: { enabled: true, collection: "My Book" } }, /"ingest.collection"/],
    [{ apiUrl: "/api", ingest: { enabled: true, docs: "docs" } }, /unknown option "ingest.docs"/],
  ])("refuses %j, naming the option", (options, message) => {
    expect(errorOf(options)).toMatch(/^docusaurus-plugin-lectern: /);
    expect(errorOf(options)).toMatch(message);
  });

  it("names an unknown option and suggests the one that was meant", () => {
    expect(errorOf({ apiURL: "https://api.example.com" })).toBe(
      'docusaurus-plugin-lectern: unknown option "apiURL" (did you mean "apiUrl"?). Known options: id, mode, apiUrl, scriptUrl, feedbackUrl, title, placeholder, primaryColor, colors, theme, persist, askAboutSelection, timeoutMs, maxQuestionChars, maxSelectionChars, placement, navbarButton, ingest.',
    );
  });

  it('builds the book into the site with mode: "static", with no API', () => {
    const normalized = validateOptions({ options: { mode: "static", title: "Ask" } });
    expect(normalized).toMatchObject({ mode: "static", title: "Ask", ingest: { enabled: true } });
    expect(normalized.apiUrl).toBeUndefined();
    // Idempotent, as Docusaurus checks the options before the plugin does.
    expect(validateOptions({ options: normalized })).toEqual(normalized);
    expect(errorOf({ mode: "static", apiUrl: "https://api.example.com" })).toMatch(
      /"apiUrl" has no use with mode: "static"/,
    );
    expect(errorOf({ mode: "static", ingest: { enabled: false } })).toMatch(
      /"ingest.enabled" cannot be false/,
    );
    expect(errorOf({ mode: "serverless" })).toMatch(/option "mode" must be "server" or "static"/);
  });

  it('takes a feedback URL for readers\' ratings with mode: "static" only', () => {
    for (const feedbackUrl of ["https://hooks.example.com/ratings", "/api/ratings"])
      expect(validateOptions({ options: { mode: "static", feedbackUrl } }).feedbackUrl).toBe(
        feedbackUrl,
      );
    expect(errorOf({ mode: "static", feedbackUrl: "ratings" })).toMatch(/"feedbackUrl"/);
    expect(errorOf({ apiUrl: "https://api.example.com", feedbackUrl: "/api/ratings" })).toMatch(
      /"feedbackUrl" is for mode: "static"/,
    );
  });
});
