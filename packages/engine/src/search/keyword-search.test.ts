import { describe, expect, it } from "vitest";
import { keywordSearch, plainText, snippetOf } from "./keyword-search.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { chunkRecord } from "./test-builders.ts";

const index = LexicalIndex.build([
  {
    ...chunkRecord(
      "kinematics",
      "Forward kinematics computes where the gripper is from the joint angles. Each joint adds a transform.",
      "Forward kinematics",
    ),
    headingPath: ["Kinematics", "Forward kinematics"],
  },
  {
    ...chunkRecord(
      "inverse",
      "Inverse kinematics finds joint angles that put the gripper at a target. A solver iterates.",
      "Inverse kinematics",
    ),
    headingPath: ["Kinematics", "Inverse kinematics"],
  },
  chunkRecord(
    "batteries",
    "Lithium cells need a **balance charger**. Never discharge a cell below three volts.",
    "Batteries",
  ),
]);

const highlighted = (hit: { snippet: string; highlights: [number, number][] }) =>
  hit.highlights.map(([start, end]) => hit.snippet.slice(start, end));

describe("keywordSearch", () => {
  it("finds sections by a word still being typed, with the typed words highlighted", () => {
    const hits = keywordSearch(index, "inverse kinem", { limit: 5 });
    expect(hits[0]).toMatchObject({ section: "Inverse kinematics", url: "/docs/inverse" });
    expect(highlighted(hits[0] as (typeof hits)[number])).toEqual(
      expect.arrayContaining(["Inverse", "kinematics"]),
    );
    // A finished word is not a prefix: "cell " does not find "cells" by completion alone.
    expect(keywordSearch(index, "charg", { limit: 5 })[0]?.url).toBe("/docs/batteries");
  });

  it("ranks sections with every word first, never refuses, and returns nothing for no words", () => {
    const hits = keywordSearch(index, "gripper target", { limit: 5 });
    expect(hits[0]?.url).toBe("/docs/inverse");
    expect(hits.map((hit) => hit.url)).toContain("/docs/kinematics");
    expect(keywordSearch(index, "the of", { limit: 5 })).toEqual([]);
    expect(keywordSearch(index, "zzzz qqqq ", { limit: 5 })).toEqual([]);
  });

  it("takes a typo for the book's word and keeps at most `perPage` sections of one page", () => {
    expect(keywordSearch(index, "kinematcs ", { limit: 5 })[0]?.pageTitle).toBeDefined();
    const onePage = keywordSearch(index, "kinematics", { limit: 5, perPage: 1 });
    expect(new Set(onePage.map((hit) => hit.filePath)).size).toBe(onePage.length);
  });
});

describe("snippets", () => {
  it("shows the prose, not Markdown or code", () => {
    expect(
      plainText("## Setup\n\nUse **ros2 run** and [the docs](https://x.y).\n```bash\nls\n```"),
    ).toBe("Setup Use ros2 run and the docs.");
  });

  it.each([
    [
      "an identifier in code marks",
      "Set `build_type` to `ament_python`.",
      "Set build_type to ament_python.",
    ],
    ["an identifier in prose", "The my_node_name node runs.", "The my_node_name node runs."],
    ["emphasis with underscores", "Use _this_ and __that__ only.", "Use this and that only."],
    ["emphasis with stars", "A *rare* and **bold** word.", "A rare and bold word."],
    ["a table row", "| `max_speed` | 2.0 |", "max_speed 2.0"],
    ["a quote", "> Note: *mind* the gap", "Note: mind the gap"],
  ])("keeps %s as written", (_what, markdown, plain) => {
    expect(plainText(markdown)).toBe(plain);
  });

  it("cuts a window around the matching words and marks where it was cut", () => {
    const words = Array.from({ length: 60 }, (_, at) => `w${at}`);
    words[40] = "gearbox";
    const { snippet, highlights } = snippetOf(words.join(" "), new Set(["gearbox"]));
    expect(snippet.startsWith("… ")).toBe(true);
    expect(snippet.endsWith(" …") || snippet.endsWith("w59")).toBe(true);
    expect(highlights).toHaveLength(1);
    const [start, end] = highlights[0] as [number, number];
    expect(snippet.slice(start, end)).toBe("gearbox");
  });

  it("chooses the window with the most distinct matched words, the earliest among equals", () => {
    const words = Array.from({ length: 120 }, (_, at) => `w${at}`);
    // Two windows with one word each early on, then one window holding both words.
    words[5] = "gearbox";
    words[20] = "gearbox";
    words[80] = "gearbox";
    words[95] = "torque";
    const both = snippetOf(words.join(" "), new Set(["gearbox", "torqu"]));
    expect(both.snippet).toContain("gearbox");
    expect(both.snippet).toContain("torque");
    expect(both.snippet.startsWith("… w68 ")).toBe(true); // the first window reaching word 95
    expect(both.highlights).toHaveLength(2);

    const one = snippetOf(words.join(" "), new Set(["gearbox"]));
    expect(one.snippet.startsWith("w0 ")).toBe(true);
    // A text shorter than the window is the snippet whole.
    expect(snippetOf("Raise the gearbox ratio.", new Set(["gearbox"])).snippet).toBe(
      "Raise the gearbox ratio.",
    );
  });
});
