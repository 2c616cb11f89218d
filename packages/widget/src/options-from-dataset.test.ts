import { describe, expect, it } from "vitest";
import { resolveOptions } from "./options.ts";
import { optionsFromDataset } from "./options-from-dataset.ts";

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
        timeoutMs: "5000",
        maxQuestionChars: "100",
        maxSelectionChars: "200",
        askAboutSelection: "off",
      }),
    ).toEqual({
      apiUrl: "https://api.example.com/",
      title: "Robotics helper",
      placeholder: "Ask away",
      primaryColor: "#123456",
      primaryTextColor: "white",
      theme: "dark",
      persist: false,
      timeoutMs: 5000,
      maxQuestionChars: 100,
      maxSelectionChars: 200,
      askAboutSelection: false,
    });
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
      title: "Ask the book",
      placeholder: "Ask a question about this book…",
      primaryColor: null,
      primaryTextColor: null,
      theme: "auto",
      persist: true,
      timeoutMs: 90_000,
      maxQuestionChars: 32_000,
      maxSelectionChars: 64_000,
      askAboutSelection: true,
    });
  });
});
