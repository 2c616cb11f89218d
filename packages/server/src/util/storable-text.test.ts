import { describe, expect, it } from "vitest";
import {
  parseStorableJson,
  storableJson,
  storableJsonText,
  storableText,
} from "./storable-text.ts";

describe("storableText", () => {
  it("drops NUL and replaces lone surrogates, keeping surrogate pairs", () => {
    expect(storableText("a\u0000b")).toBe("ab");
    expect(storableText("\ud800x\udfff")).toBe("\ufffdx\ufffd");
    expect(storableText("end\ud83d")).toBe("end\ufffd");
    expect(storableText("robot 🤖 arm")).toBe("robot 🤖 arm");
    expect(storableText("\udc00\ud800")).toBe("\ufffd\ufffd");
  });

  it("cleans every string of a JSON value, keys included", () => {
    expect(storableJson({ "k\u0000": ["x\u0000", { y: "\ud800" }], n: 1, b: null })).toEqual({
      k: ["x", { y: "\ufffd" }],
      n: 1,
      b: null,
    });
  });
});

describe("parseStorableJson", () => {
  it.each([
    { text: '{"query":"plain words"}', value: { query: "plain words" } },
    { text: '{"query":"a\\u0000b"}', value: { query: "ab" } },
    { text: '{"q\\u0000":"lone \\ud83d"}', value: { q: "lone \ufffd" } },
    { text: '{"query":"lone \ud800 raw"}', value: { query: "lone \ufffd raw" } },
    { text: '{"query":"pair \\ud83e\\udd16"}', value: { query: "pair 🤖" } },
    { text: '{"query":"robot 🤖"}', value: { query: "robot 🤖" } },
    // An escaped backslash followed by "u0000" is text, not NUL.
    { text: '{"path":"C:\\\\u0000"}', value: { path: "C:\\u0000" } },
    { text: '[1,"x",null]', value: [1, "x", null] },
  ])("reads $text as storable", ({ text, value }) => {
    expect(parseStorableJson(text)).toEqual(value);
    expect(parseStorableJson(text)).toEqual(storableJson(JSON.parse(text)));
  });

  it("fails on text that is not JSON", () => {
    expect(() => parseStorableJson("{query")).toThrow(SyntaxError);
  });
});

describe("storableJsonText", () => {
  it.each([
    { value: { snippet: "cut \ud83e" }, json: '{"snippet":"cut \ufffd"}' },
    { value: ["\udd16 tail", "🤖 whole"], json: '["\ufffd tail","🤖 whole"]' },
    {
      value: { nested: { list: [{ text: "a\u0000b" }] }, n: 1 },
      json: '{"nested":{"list":[{"text":"ab"}]},"n":1}',
    },
    { value: { text: "plain" }, json: '{"text":"plain"}' },
    // Text that only looks like the escapes of NUL or of a surrogate is kept as it is.
    { value: { path: "C:\\u0000\\ud83d" }, json: '{"path":"C:\\\\u0000\\\\ud83d"}' },
    { value: { control: "tab\tbell\u0007" }, json: '{"control":"tab\\tbell\\u0007"}' },
    { value: undefined, json: undefined },
  ])("writes $json", ({ value, json }) => {
    expect(storableJsonText(value)).toBe(json);
  });
});
