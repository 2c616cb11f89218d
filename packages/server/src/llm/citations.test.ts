import { describe, expect, it } from "vitest";
import { renumberCitations } from "./citations.ts";

/** Markers moved to another list of the same sources: here source 2 is left out and 3 comes first. */
const place = (citation: number) =>
  new Map([
    [1, 2],
    [3, 1],
  ]).get(citation);

describe("renumberCitations", () => {
  it.each([
    ["a marker of a listed source takes its place", "Nodes talk [3].", "Nodes talk [1]."],
    ["a marker of a source left out goes, with its space", "Nodes talk [2].", "Nodes talk."],
    ["lists are split, renumbered and the missing dropped", "See [1, 2, 3].", "See [2][1]."],
    ["adjacent markers each move", "See [1][3].", "See [2][1]."],
    ["a marker repeated in a list is named once", "See [1, 1].", "See [2]."],
    [
      "an index in prose code is not a marker",
      "Read `msg.data[1]` [1].",
      "Read `msg.data[1]` [2].",
    ],
    [
      "a subscript after a word is not a marker",
      "The value a[2] holds it.",
      "The value a[2] holds it.",
    ],
    [
      "fenced code is left as written",
      "Publish [1]:\n\n```python\nvalues = [2]\nprint(values [3])\n```\n\nDone [3].",
      "Publish [2]:\n\n```python\nvalues = [2]\nprint(values [3])\n```\n\nDone [1].",
    ],
    [
      "an unclosed fence keeps the rest as code",
      "Run [3]:\n```\nx = [1]",
      "Run [1]:\n```\nx = [1]",
    ],
    ["text without markers is unchanged", "No citation here.", "No citation here."],
  ])("%s", (_, answer, expected) => {
    expect(renumberCitations(answer, place)).toBe(expected);
  });
});
