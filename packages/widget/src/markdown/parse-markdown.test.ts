import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown } from "./parse-markdown.ts";

describe("parseInline", () => {
  it("reads emphasis, code, links, images and citations", () => {
    expect(
      parseInline("**Bold** and *em* with `code` [1] [see](/docs/x) ![arm](/arm.png)"),
    ).toEqual([
      { type: "strong", children: [{ type: "text", text: "Bold" }] },
      { type: "text", text: " and " },
      { type: "emphasis", children: [{ type: "text", text: "em" }] },
      { type: "text", text: " with " },
      { type: "code", text: "code" },
      { type: "text", text: " " },
      { type: "citation", number: 1 },
      { type: "text", text: " " },
      { type: "link", href: "/docs/x", children: [{ type: "text", text: "see" }] },
      { type: "text", text: " " },
      { type: "image", src: "/arm.png", alt: "arm" },
    ]);
  });

  it("leaves underscores inside words alone", () => {
    expect(parseInline("ros2_control and primer_bot_v2")).toEqual([
      { type: "text", text: "ros2_control and primer_bot_v2" },
    ]);
  });

  it("splits grouped citations and keeps markers inside code as code", () => {
    expect(parseInline("[1, 3] `[2]`")).toEqual([
      { type: "citation", number: 1 },
      { type: "citation", number: 3 },
      { type: "text", text: " " },
      { type: "code", text: "[2]" },
    ]);
  });

  it("keeps HTML as text and unmatched markers as written", () => {
    expect(parseInline("<b>bold</b> 2 * 3 = 6 and a lone `")).toEqual([
      { type: "text", text: "<b>bold</b> 2 * 3 = 6 and a lone `" },
    ]);
  });

  it("links bare and angle-bracket URLs without their trailing punctuation", () => {
    expect(parseInline("See https://docs.ros.org/en. Or <https://example.com/a>")).toEqual([
      { type: "text", text: "See " },
      {
        type: "link",
        href: "https://docs.ros.org/en",
        children: [{ type: "text", text: "https://docs.ros.org/en" }],
      },
      { type: "text", text: ". Or " },
      {
        type: "link",
        href: "https://example.com/a",
        children: [{ type: "text", text: "https://example.com/a" }],
      },
    ]);
  });

  it("honours backslash escapes and hard breaks", () => {
    expect(parseInline("\\*not em\\*  \nnext")).toEqual([
      { type: "text", text: "*not em*" },
      { type: "break" },
      { type: "text", text: "next" },
    ]);
  });
});

describe("parseMarkdown", () => {
  it("reads headings, lists, quotes, rules and fenced code", () => {
    const blocks = parseMarkdown(
      "## Setup\n\n1. Install\n2. Run `colcon build`\n\n- a\n  - nested\n\n> quoted\n\n---\n\n```bash\nros2 run demo talker\n```",
    );
    expect(blocks.map((block) => block.type)).toEqual([
      "heading",
      "list",
      "list",
      "quote",
      "rule",
      "code",
    ]);
    expect(blocks[1]).toMatchObject({
      ordered: true,
      start: 1,
      items: [[{ type: "paragraph" }], [{ type: "paragraph" }]],
    });
    expect(blocks[2]).toMatchObject({
      ordered: false,
      items: [[{ type: "paragraph" }, { type: "list", items: [[{ type: "paragraph" }]] }]],
    });
    expect(blocks[5]).toEqual({ type: "code", language: "bash", text: "ros2 run demo talker" });
  });

  it("shows an unclosed fence (an answer still streaming) as code", () => {
    expect(parseMarkdown("Try:\n```python\nprint('hi')")).toEqual([
      { type: "paragraph", children: [{ type: "text", text: "Try:" }] },
      { type: "code", language: "python", text: "print('hi')" },
    ]);
  });

  it("reads a table: header, delimiter and rows, cells parsed inline", () => {
    const blocks = parseMarkdown(
      "Useful flags: [1]\n| Flag | Effect |\n| --- | :---: |\n| `--symlink-install` | Links **files** |\n| a \\| b |\n\nAfter.",
    );
    expect(blocks[0]).toEqual({
      type: "paragraph",
      children: [
        { type: "text", text: "Useful flags: " },
        { type: "citation", number: 1 },
      ],
    });
    expect(blocks[1]).toEqual({
      type: "table",
      header: [[{ type: "text", text: "Flag" }], [{ type: "text", text: "Effect" }]],
      rows: [
        [
          [{ type: "code", text: "--symlink-install" }],
          [
            { type: "text", text: "Links " },
            { type: "strong", children: [{ type: "text", text: "files" }] },
          ],
        ],
        // An escaped pipe stays in its cell; a missing cell is empty.
        [[{ type: "text", text: "a | b" }], []],
      ],
    });
    expect(blocks[2]).toEqual({ type: "paragraph", children: [{ type: "text", text: "After." }] });
  });

  it("keeps pipes without a delimiter row as a paragraph", () => {
    expect(parseMarkdown("a | b\nc | d")).toEqual([
      { type: "paragraph", children: [{ type: "text", text: "a | b\nc | d" }] },
    ]);
  });
});
