import { describe, expect, it } from "vitest";
import type { ChunkRecord, PageSummary } from "../book/records.ts";
import { buildSynopsis } from "./synopsis.ts";

function page(filePath: string, url: string, extra: Partial<PageSummary> = {}): PageSummary {
  return { filePath, title: filePath, url, categories: [], position: undefined, ...extra };
}

function chunk(filePath: string, text: string, chunkIndex = 0): ChunkRecord {
  return {
    id: `${filePath}-${chunkIndex}`,
    collection: "default",
    version: "",
    filePath,
    chunkIndex,
    totalChunks: 1,
    title: filePath,
    section: filePath,
    headingPath: [filePath],
    url: `/docs/${filePath}`,
    tags: [],
    text,
    contentHash: filePath,
    tokenCount: 10,
  };
}

const prose = (subject: string) =>
  `${subject} is a library for keeping the state of an application predictable and easy to test. It runs in browsers, on servers and in native apps.`;

describe("buildSynopsis", () => {
  it("takes the page at the root of every URL as the introduction, with the book's parts", () => {
    const synopsis = buildSynopsis(
      [
        page("index.md", "/docs", { title: "Primer" }),
        page("a/one.md", "/docs/a/one", { categories: ["Basics"], position: 1 }),
        page("b/two.md", "/docs/b/two", { categories: ["Advanced"], position: 2 }),
      ],
      [
        chunk("index.md", prose("Primer")),
        chunk("a/one.md", prose("One")),
        chunk("b/two.md", prose("Two")),
      ],
    );
    expect(synopsis?.intro.filePath).toBe("index.md");
    expect(synopsis?.text).toContain("Primer is a library for keeping the state");
    expect(synopsis?.text).toContain("[1]");
    expect(synopsis?.text).toContain("Basics, Advanced");
  });

  it("skips a front page that is only a list of links, for a getting-started page", () => {
    const synopsis = buildSynopsis(
      [
        page("introduction/README.md", "/docs/introduction"),
        page("introduction/GettingStarted.md", "/docs/introduction/getting-started"),
        page("api/store.md", "/docs/api/store"),
      ],
      [
        chunk("introduction/README.md", "- [Core concepts](a.md)\n- [Examples](b.md)"),
        chunk("introduction/GettingStarted.md", prose("Redux")),
        chunk("api/store.md", prose("The store")),
      ],
    );
    expect(synopsis?.intro.filePath).toBe("introduction/GettingStarted.md");
    expect(synopsis?.text.startsWith("Redux is a library")).toBe(true);
  });

  it("opens on the introduction's prose, not on a figure above it", () => {
    const synopsis = buildSynopsis(
      [page("index.md", "/docs", { title: "Primer" })],
      [
        chunk(
          "index.md",
          `![The primer_bot rover with its lidar, IMU and wheel encoders labelled]()\n\n${prose("Primer")}`,
        ),
      ],
    );
    expect(synopsis?.text.startsWith("Primer is a library")).toBe(true);
  });

  it("uses the description when the introduction has no prose, and nothing for an empty book", () => {
    const synopsis = buildSynopsis(
      [page("index.md", "/docs", { title: "Atlas", description: "A field guide to maps." })],
      [chunk("index.md", "- [Maps](maps.md)")],
    );
    expect(synopsis?.text).toContain("Atlas: a field guide to maps. [1]");
    expect(buildSynopsis([], [])).toBeUndefined();
  });
});
