import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchFilters } from "../src/search/filters.ts";
import { openTinyBook, type TinyBook } from "./tiny-book.ts";

/**
 * "What is X?" where the book says what X is only in passing, setting X in bold ("Nodes that
 * produce data create a **publisher** on the topic"), while the passages that rank first only use
 * X: through ingest, the store, the index and the pipeline `/chat` runs, the answer quotes the
 * sentence that sets X in bold and cites its page after the results.
 */
let book: TinyBook;

beforeAll(async () => {
  book = await openTinyBook("bold-terms", {
    "topics.md": [
      "# Topics and Messages",
      "",
      "A **topic** is a named channel that carries a stream of **messages** of one type. Nodes that produce data create a **publisher** on the topic; nodes that consume it create a **subscription**. Neither side knows, or cares, who is on the other end.",
      "",
    ].join("\n"),
    "urdf.md": [
      "# Describing a Robot",
      "",
      "## The state publisher",
      "",
      "The model reaches the rest of the system through the state publisher node. The state publisher takes the model as a parameter, and the publisher node publishes the frames of every joint.",
      "",
    ].join("\n"),
  });
});
afterAll(async () => {
  await book?.close();
});

const ask = (query: string, topK: number, filters?: SearchFilters) =>
  book.ask(query, topK, filters);

describe("a definition question about a term the book sets in bold", () => {
  it("quotes the sentence setting it in bold, cited after the results", async () => {
    const outcome = await ask("What is a publisher?", 1);
    expect(outcome.sources[0]).toMatchObject({ file_path: "urdf.md" });
    expect(outcome.answer).toMatch(
      /^(?:\*\*[^\n]+\*\*\n\n)?Nodes that produce data create a publisher on the topic; nodes that consume it create a subscription\./,
    );
    expect(outcome.answer).toContain("[2]");
    expect(outcome.sources[1]).toMatchObject({ file_path: "topics.md" });
  });

  it("keeps to the results under a section filter", async () => {
    const outcome = await ask("What is a publisher?", 1, { section: "The state publisher" });
    expect(outcome.answer).not.toContain("Nodes that produce data");
    expect(outcome.sources.map((source) => "file_path" in source && source.file_path)).toEqual([
      "urdf.md",
    ]);
  });
});
