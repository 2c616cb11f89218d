import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTinyBook, type TinyBook } from "./tiny-book.ts";

/**
 * Small sections are packed into one chunk, whose URL is its first section's. A quoted answer links
 * to the section the quote comes from, through ingest, the store and the pipeline `/chat` runs.
 */
let book: TinyBook;

beforeAll(async () => {
  book = await openTinyBook("section-links", {
    "terms.md": [
      "---",
      "title: Office Terms",
      "---",
      "",
      "# Office Terms",
      "",
      "## Broker",
      "",
      "A broker is a server that relays messages between clients on the office network.",
      "",
      "## Print spooler {#spooler}",
      "",
      "A spooler is a queue that holds print jobs until the printer is free.",
      "",
    ].join("\n"),
    "printing.md":
      "# Printing\n\nPrinting a long report can take a while on the shared printer downstairs.\n",
  });
});
afterAll(async () => {
  await book?.close();
});

describe("citations of a chunk merged from small sections", () => {
  it("link to the section holding the quoted passage", async () => {
    const outcome = await book.ask("What is a spooler?", 5);
    // The card of the section, not of the chunk it was merged into: its heading, then its text.
    expect(outcome.answer).toMatch(
      /^\*\*Office Terms › Print spooler\*\* \[\d+\]\n\nA spooler is a queue that holds print jobs/,
    );
    expect(outcome.answer).not.toContain("broker");
    const cited = Number(/\[(\d+)\]/.exec(outcome.answer ?? "")?.[1]);
    const source = outcome.sources[cited - 1];
    expect(source).toMatchObject({
      file_path: "terms.md",
      source_url: "/docs/terms#spooler",
      section: "Print spooler",
      section_path: ["Office Terms", "Print spooler"],
    });
  });
});
