import { describe, expect, it } from "vitest";
import type { RetrievedChunk } from "../search/retriever.ts";
import { extractiveAnswer } from "./extractive.ts";

function result(text: string): RetrievedChunk {
  return {
    chunk: {
      id: "gears-0",
      collection: "default",
      version: "",
      filePath: "gears.md",
      chunkIndex: 0,
      totalChunks: 1,
      title: "Gears",
      section: "Gears",
      headingPath: ["Gears"],
      url: "/docs/gears",
      tags: [],
      text,
      contentHash: "h",
      tokenCount: Math.ceil(text.length / 4),
    },
    score: 1,
    similarityScore: 0.8,
    coverage: 1,
  };
}

describe("extractiveAnswer", () => {
  it("quotes the sentences under a merged section's heading, never the heading line", () => {
    const text =
      "Gears transmit torque between shafts.\n\n## Choosing a gear ratio for torque\n\nA higher gear ratio gives more torque at a lower speed.";
    const answer = extractiveAnswer("gear ratio torque", [result(text)]);
    expect(answer.text).not.toContain("##");
    expect(answer.text).not.toContain("Choosing a gear ratio");
    expect(answer.text).toContain("A higher gear ratio gives more torque at a lower speed. [1]");
  });
});
