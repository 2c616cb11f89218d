import { describe, expect, it } from "vitest";
import type { PageSummary } from "../store/document-store.ts";
import { pageDescription } from "./llms-txt.ts";

const page: PageSummary = {
  filePath: "intro.md",
  title: "Introduction",
  url: "/docs/intro",
  categories: [],
  position: undefined,
};

describe("pageDescription", () => {
  it("is the first sentence of the first paragraph, not a figure above it", () => {
    const markdown =
      "# Introduction\n\n![The rover with its lidar and IMU labelled]()\n\nThe rover is a small robot. It has two wheels.\n";
    expect(pageDescription(page, markdown)).toBe("The rover is a small robot.");
  });

  it("is the frontmatter description when there is one", () => {
    expect(pageDescription({ ...page, description: "A small robot." }, "# Introduction\n")).toBe(
      "A small robot.",
    );
  });
});
