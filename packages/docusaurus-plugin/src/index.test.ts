import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pluginLectern, { validateOptions } from "./index.js";
import type { LoadContext, PostBuildProps } from "./types.js";

const context: LoadContext = {
  siteDir: "/site",
  siteConfig: { url: "https://book.example.com", baseUrl: "/" },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lectern-docusaurus-plugin-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A stand-in for the lectern CLI that records the arguments of each call, one JSON line each. */
function recordingCommand(file: string): string[] {
  return [
    process.execPath,
    "-e",
    `require("fs").appendFileSync(${JSON.stringify(file)}, JSON.stringify(process.argv.slice(1)) + "\\n")`,
  ];
}

async function recordedCalls(file: string): Promise<string[][]> {
  const text = await readFile(file, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as string[]);
}

function postBuildProps(extra: Partial<PostBuildProps> = {}): PostBuildProps {
  return {
    siteDir: dir,
    outDir: path.join(dir, "build"),
    siteConfig: {
      url: "https://book.example.com",
      baseUrl: "/primer/",
      presets: [["classic", { docs: { routeBasePath: "handbook" } }]],
    },
    plugins: [],
    i18n: { defaultLocale: "en", currentLocale: "en" },
    ...extra,
  };
}

describe("pluginLectern", () => {
  it("is a Docusaurus plugin module: a function with validateOptions on it and beside it", () => {
    expect(pluginLectern.validateOptions).toBe(validateOptions);
    expect(pluginLectern(context, { apiUrl: "https://api.example" }).name).toBe(
      "docusaurus-plugin-lectern",
    );
  });

  it("adds the widget script at the end of every page's body", () => {
    const plugin = pluginLectern(context, {
      apiUrl: "https://api.example",
      title: "Ask",
      persist: false,
    });
    expect(plugin.injectHtmlTags()).toEqual({
      postBodyTags: [
        {
          tagName: "script",
          attributes: {
            defer: true,
            src: "https://api.example/lectern.js",
            "data-api": "https://api.example",
            "data-title": "Ask",
            "data-persist": "false",
          },
        },
      ],
    });
  });

  it("adds nothing for the navbar button unless it is asked for", () => {
    const plugin = pluginLectern(context, { apiUrl: "https://api.example" });
    expect(plugin.getClientModules()).toEqual([]);
    expect(plugin.injectHtmlTags()).not.toHaveProperty("headTags");
  });

  it("with navbarButton, bundles the button's client module and names its label in the head", () => {
    const plugin = pluginLectern(context, {
      apiUrl: "https://api.example",
      navbarButton: { label: "Ask the primer" },
      placement: "side",
    });
    const modules = plugin.getClientModules();
    expect(modules).toEqual([path.join(import.meta.dirname, "navbar-button.js")]);
    const tags = plugin.injectHtmlTags();
    expect(tags.headTags).toEqual([
      {
        tagName: "meta",
        attributes: { name: "docusaurus-plugin-lectern:navbar-button", content: "Ask the primer" },
      },
    ]);
    expect(tags.postBodyTags[0]?.attributes?.["data-placement"]).toBe("side");
  });

  it("refuses wrong options even when used as an inline function plugin", () => {
    expect(() => pluginLectern(context, { apiUrl: "https://api.example", theme: "blue" })).toThrow(
      /option "theme"/,
    );
  });

  it("ingests nothing after the build unless ingest is enabled", async () => {
    const record = path.join(dir, "disabled.json");
    const plugin = pluginLectern(context, {
      apiUrl: "/api",
      ingest: { enabled: false, command: recordingCommand(record) },
    });
    await plugin.postBuild(postBuildProps());
    await expect(readFile(record)).rejects.toThrow(/ENOENT/);
  });

  it("runs lectern ingest after the build with the site's docs, URL and route, then lectern llms-txt", async () => {
    const record = path.join(dir, "enabled.json");
    const plugin = pluginLectern(context, {
      apiUrl: "/api",
      ingest: { enabled: true, command: recordingCommand(record), dataDir: "index" },
    });
    await plugin.postBuild(postBuildProps());
    expect(await recordedCalls(record)).toEqual([
      [
        "ingest",
        "--docs",
        path.join(dir, "docs"),
        "--base-url",
        "https://book.example.com/primer/",
        "--route-base-path",
        "handbook",
        "--data-dir",
        path.join(dir, "index"),
      ],
      [
        "llms-txt",
        "--out",
        path.join(dir, "build"),
        "--base-url",
        "https://book.example.com/primer/",
        "--data-dir",
        path.join(dir, "index"),
      ],
    ]);
  });

  it('with mode: "static", writes the book into the build after ingesting, and tags the widget with it', async () => {
    const record = path.join(dir, "static.json");
    const plugin = pluginLectern(
      { ...context, baseUrl: "/primer/" },
      {
        mode: "static",
        ingest: { enabled: true, command: recordingCommand(record), llmsTxt: false },
      },
    );
    expect(plugin.injectHtmlTags().postBodyTags[0]?.attributes).toMatchObject({
      src: "/primer/lectern/lectern.js",
      "data-static-book": "/primer/lectern/manifest.json",
    });
    await plugin.postBuild(postBuildProps());
    const calls = await recordedCalls(record);
    expect(calls.map((call) => call[0])).toEqual(["ingest", "build-static"]);
    expect(calls[1]).toEqual(["build-static", "--out", path.join(dir, "build"), "--book-only"]);
  });

  it('with mode: "static" and a feedback URL, has the build post ratings there', async () => {
    const record = path.join(dir, "static-feedback.json");
    const plugin = pluginLectern(context, {
      mode: "static",
      feedbackUrl: "https://hooks.example.com/ratings",
      ingest: { enabled: true, command: recordingCommand(record), llmsTxt: false },
    });
    await plugin.postBuild(postBuildProps());
    const calls = await recordedCalls(record);
    expect(calls[1]).toEqual([
      "build-static",
      "--out",
      path.join(dir, "build"),
      "--book-only",
      "--feedback-url",
      "https://hooks.example.com/ratings",
    ]);
  });

  it("writes no llms.txt with ingest.llmsTxt false", async () => {
    const record = path.join(dir, "no-llms.json");
    const plugin = pluginLectern(context, {
      apiUrl: "/api",
      ingest: { enabled: true, command: recordingCommand(record), llmsTxt: false },
    });
    await plugin.postBuild(postBuildProps());
    const calls = await recordedCalls(record);
    expect(calls.map((call) => call[0])).toEqual(["ingest"]);
  });

  it("ingests once, for the default locale", async () => {
    const record = path.join(dir, "locale.json");
    const plugin = pluginLectern(context, {
      apiUrl: "/api",
      ingest: { enabled: true, command: recordingCommand(record) },
    });
    await plugin.postBuild(postBuildProps({ i18n: { defaultLocale: "en", currentLocale: "fr" } }));
    await expect(readFile(record)).rejects.toThrow(/ENOENT/);
  });

  it("fails the build when ingestion fails", async () => {
    const plugin = pluginLectern(context, {
      apiUrl: "/api",
      ingest: { enabled: true, command: [process.execPath, "-e", "process.exit(3)"] },
    });
    await expect(plugin.postBuild(postBuildProps())).rejects.toThrow(
      /Lectern ingestion failed: .* exited with code 3/,
    );
  });
});
