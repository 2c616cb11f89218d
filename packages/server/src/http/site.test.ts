import { describe, expect, it } from "vitest";
import type { PageSummary } from "../store/document-store.ts";
import { sidebar } from "./site.ts";

const page = (filePath: string, categories: string[] = [], position?: number): PageSummary => ({
  filePath,
  title:
    filePath
      .split("/")
      .at(-1)
      ?.replace(/\.mdx?$/, "") ?? filePath,
  url: `/docs/${filePath.replace(/\.mdx?$/, "")}`,
  categories,
  position,
});

/** The headings of the sidebar, in order, and the pages under each. */
function groupsOf(html: string): [string, string[]][] {
  return Array.from(
    html.matchAll(/(?:<h2>([^<]*)<\/h2>)?<ul>(.*?)<\/ul>/g),
    (match) =>
      [
        match[1] ?? "",
        Array.from((match[2] ?? "").matchAll(/>([^<]+)<\/a>/g), (link) => link[1] ?? ""),
      ] as [string, string[]],
  );
}

describe("the demo site's sidebar", () => {
  it.each([
    [
      "folders without a _category_ file are groups named after the folder",
      [
        page("intro.md"),
        page("01-getting-started/install.md"),
        page("01-getting-started/first-steps.md"),
        page("guides/deploy_to_prod/docker.md"),
      ],
      [
        ["", ["intro"]],
        ["Getting started", ["first-steps", "install"]],
        ["Guides › Deploy to prod", ["docker"]],
      ],
    ],
    [
      "a _category_ label wins over the folder's name",
      [
        page("02-ros/nodes.md", ["ROS 2 Fundamentals"]),
        page("02-ros/topics.md", ["ROS 2 Fundamentals"]),
      ],
      [["ROS 2 Fundamentals", ["nodes", "topics"]]],
    ],
  ])("%s", (_, pages, expected) => {
    expect(groupsOf(sidebar(pages, undefined))).toEqual(expected);
  });
});
