import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTinyBook, type TinyBook } from "./tiny-book.ts";

/**
 * "What is X?" where the book explains X in a section of its own, while the passages that rank
 * first only use words of the same stem ("immutable" for immutability): through ingest, the index
 * and the pipeline `/chat` runs, the answer quotes that section and links to it.
 */
let book: TinyBook;

beforeAll(async () => {
  book = await openTinyBook("headed-sections", {
    "prior-art.md":
      "# Prior Art\n\n## Immutable\n\nImmutable is a JavaScript library of immutable collections. Immutable lists and immutable maps share structure, so an immutable update copies little.\n",
    "update-patterns.md":
      "# Immutable Update Patterns\n\nImmutable updates copy each level of nested data that changes. Immutable updates of arrays use slice and concat; immutable updates of objects use spread.\n",
    "concepts.md": [
      "# Concepts",
      "",
      "## State",
      "",
      "The state of the whole app lives in one object, and the views read what they show from it.",
      "",
      "## Immutability",
      "",
      'If something is "immutable", it can never be changed. JavaScript objects and arrays are mutable by default, so code that must not change them makes copies.',
      "",
    ].join("\n"),
  });
});
afterAll(async () => {
  await book?.close();
});

describe("a definition question", () => {
  it("quotes the section headed by X alone when the results only use another form of its word", async () => {
    const outcome = await book.ask("What is immutability?", 2);
    const retrieved = outcome.sources
      .slice(0, 2)
      .map((source) => ("file_path" in source ? source.file_path : undefined));
    expect(retrieved).not.toContain("concepts.md");
    expect(outcome.answer).toMatch(
      /^(?:\*\*[^\n]+\*\*\n\n)?If something is "immutable", it can never be changed\./,
    );
    const cited = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1]);
    expect(outcome.sources[cited - 1]).toMatchObject({
      file_path: "concepts.md",
      source_url: "/docs/concepts#immutability",
      section: "Immutability",
    });
  });
});
