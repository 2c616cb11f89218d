import { indexOf } from "@lectern/engine/search/test-builders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, expectError, openSampleBook } from "../../test/http-fixture.ts";
import type { Lectern } from "../lectern.ts";
import type { PageSummary } from "../store/document-store.ts";
import { createSite } from "./site.ts";

let lectern: Lectern;
let cleanup: () => Promise<void>;
let pages: PageSummary[];
beforeAll(async () => {
  ({ lectern, cleanup } = await openSampleBook());
  pages = await lectern.store.pages();
});
afterAll(async () => cleanup());

function siteApp() {
  return createTestApp(lectern, {
    env: { RATE_LIMIT_ENABLED: "false" },
    deps: {
      site: createSite({
        store: lectern.store,
        title: () => lectern.title(),
        description: () => lectern.served.synopsis?.about,
      }),
    },
  }).app;
}

/** The `- [Title](url): description` lines of an llms.txt. */
function links(text: string): { title: string; url: string; description: string }[] {
  return Array.from(text.matchAll(/^- \[(.+?)\]\((\S+?)\)(?:: (.*))?$/gm), (match) => ({
    title: match[1] ?? "",
    url: match[2] ?? "",
    description: match[3] ?? "",
  }));
}

describe("llms.txt and each page as Markdown", () => {
  it("lists every page of the book under the book's title and summary", async () => {
    const response = await siteApp().request("/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    const lines = text.split("\n");
    expect(lines[0]).toBe("# Robotics Primer");
    expect(lines[2]).toMatch(/^> \S.{20,}/);
    expect(text).toMatch(/^## Docs$/m);
    expect(text).toMatch(/^## ROS 2 Fundamentals$/m);

    const listed = links(text);
    expect(pages.length).toBeGreaterThan(15);
    expect(listed).toHaveLength(pages.length);
    for (const page of pages) {
      const link = listed.find((candidate) =>
        candidate.url.endsWith(
          `${new URL(page.url, "http://localhost").pathname.replace(/\/$/, "") || "/index"}.md`,
        ),
      );
      expect(link, page.filePath).toBeDefined();
      expect(link?.title).toBe(page.title.replace(/[[\]]/g, "\\$&"));
      expect(link?.url).toMatch(/^http:\/\/localhost\//);
      expect(link?.description.length ?? 0, page.filePath).toBeGreaterThan(10);
    }
  });

  it("serves each listed page's Markdown at its URL + .md", async () => {
    const app = siteApp();
    const listed = links(await (await app.request("/llms.txt")).text());
    for (const link of listed) {
      const path = new URL(link.url).pathname;
      const response = await app.request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/markdown; charset=utf-8/);
      const markdown = await response.text();
      const page = pages.find(
        (candidate) => candidate.title.replace(/[[\]]/g, "\\$&") === link.title,
      );
      expect(markdown.split("\n")[0], path).toBe(`# ${page?.title}`);
      // The page's own sections are there, with its words.
      const chunks = indexOf(lectern).chunksOfPage(page?.filePath ?? "");
      for (const chunk of chunks) {
        if (chunk.headingPath.length > 1)
          expect(markdown, path).toContain(`## ${chunk.headingPath[1]}`);
      }
    }
  });

  it("keeps code in fences and tables as GFM tables", async () => {
    const app = siteApp();
    const topics = await (await app.request("/docs/ros2/topics.md")).text();
    expect(topics).toMatch(/^```\w*\n[\s\S]+?\n```$/m);
    const withTable = await lectern.store.allPageMarkdown();
    expect(
      [...withTable.values()].some((markdown) => /^\| .+ \|\n\|( --- \|)+$/m.test(markdown)),
    ).toBe(true);
  });

  it("puts every page into llms-full.txt with its URL", async () => {
    const response = await siteApp().request("/llms-full.txt");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith("# Robotics Primer\n\n> ")).toBe(true);
    for (const page of pages) {
      expect(text, page.filePath).toContain(`# ${page.title}\n\nSource: ${page.url}\n`);
    }
  });

  it("answers 404 for a .md that names no page, and without a demo site", async () => {
    await expectError(await siteApp().request("/docs/no-such-page.md"), 404, "NOT_FOUND");
    const apiOnly = createTestApp(lectern).app;
    await expectError(await apiOnly.request("/llms.txt"), 404, "NOT_FOUND");
    await expectError(await apiOnly.request("/docs/ros2/topics.md"), 404, "NOT_FOUND");
  });
});
