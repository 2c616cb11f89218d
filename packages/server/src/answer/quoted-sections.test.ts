import { describe, expect, it } from "vitest";
import type { RetrievedChunk } from "../search/retriever.ts";
import { chunkRecord } from "../search/test-builders.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { extractiveAnswer } from "./extractive.ts";

/** A chunk of page "terms" merged from three sections; `anchors` as ingest stores them. */
function mergedChunk(anchored: boolean): ChunkRecord {
  const text = [
    "A broker is a server that relays messages between clients.",
    "## Print spooler",
    "A spooler is a queue that holds print jobs until the printer is free.",
    "## Scanner",
    "A scanner turns paper into images.",
    "Duplex mode",
    "Duplex scanning reads both sides of each sheet in one pass.",
  ].join("\n\n");
  return {
    ...chunkRecord("terms", text, "Office Terms"),
    headingPath: ["Office Terms", "Broker"],
    section: "Broker",
    url: "https://example.com/docs/terms#broker",
    ...(anchored
      ? {
          sectionAnchors: [
            {
              heading: "Print spooler",
              anchor: "spooler",
              headingPath: ["Office Terms", "Print spooler"],
            },
            { heading: "Scanner", anchor: "scanner", headingPath: ["Office Terms", "Scanner"] },
          ],
        }
      : {}),
  };
}

const retrieved = (chunk: ChunkRecord): RetrievedChunk => ({
  chunk,
  score: 8,
  similarityScore: 0.8,
  coverage: 0.5,
});

describe("extractiveAnswer: the section a quote comes from", () => {
  it("names the merged section holding the quote, with its anchor on the page URL", () => {
    const answer = extractiveAnswer("What is a spooler?", [retrieved(mergedChunk(true))]);
    expect(answer.text).toBe(
      "A spooler is a queue that holds print jobs until the printer is free. [1]",
    );
    expect(answer.quotedSections).toEqual([
      {
        citation: 1,
        url: "https://example.com/docs/terms#spooler",
        section: "Print spooler",
        headingPath: ["Office Terms", "Print spooler"],
      },
    ]);
  });

  it("takes the nearest heading with an anchor above a short line read as a heading", () => {
    const answer = extractiveAnswer("How does duplex scanning work?", [
      retrieved(mergedChunk(true)),
    ]);
    expect(answer.text).toContain("Duplex scanning reads both sides");
    expect(answer.quotedSections.map((section) => section.url)).toEqual([
      "https://example.com/docs/terms#scanner",
    ]);
  });

  it("adds nothing for the chunk's first section or a chunk stored without anchors", () => {
    const first = extractiveAnswer("What is a broker?", [retrieved(mergedChunk(true))]);
    expect(first.text).toContain("A broker is a server");
    expect(first.quotedSections).toEqual([]);
    const unanchored = extractiveAnswer("What is a spooler?", [retrieved(mergedChunk(false))]);
    expect(unanchored.text).toContain("A spooler is a queue");
    expect(unanchored.quotedSections).toEqual([]);
  });
});
