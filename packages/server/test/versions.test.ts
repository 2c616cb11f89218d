import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { sliceOf } from "../src/http/compose.ts";
import { createSite } from "../src/http/site.ts";
import { readVersionedSite } from "../src/ingest/versioned-site.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { runCli } from "./cli.ts";
import { askChat, createTestApp, expectError, postJson, type TestApp } from "./http-fixture.ts";
import { readEventStream } from "./sse-client.ts";

/**
 * A versioned Docusaurus site written by the test: the current docs (served under /docs/next/),
 * version 2.0 (the last released one, served at /docs/) and version 1.0 (/docs/1.0/). How often a
 * failed delivery is retried differs in each; streaming uploads exist only in the current docs.
 */
const INTRO = `---
title: Introduction
---

# Introduction

Parcel Post is a library that sends parcels between warehouses and keeps track of deliveries.
`;

const retries = (times: string) => `---
title: Retries
---

# Retries

## Failed deliveries

A failed delivery is retried ${times} times by default before the parcel is returned to its sender.
Each retry waits a little longer than the one before it.
`;

const STREAMING = `---
title: Streaming uploads
---

# Streaming uploads

The streamUpload function sends a large parcel in pieces through a writable stream, so that the
whole parcel never has to be held in memory at once.
`;

const SITE: Record<string, string> = {
  "versions.json": JSON.stringify(["2.0", "1.0"]),
  "docs/intro.md": INTRO,
  "docs/retries.md": retries("nine"),
  "docs/streaming.md": STREAMING,
  "versioned_docs/version-2.0/intro.md": INTRO,
  "versioned_docs/version-2.0/retries.md": retries("five"),
  "versioned_docs/version-1.0/intro.md": INTRO,
  "versioned_docs/version-1.0/retries.md": retries("three"),
};

const RETRY_QUESTION = "How many times is a failed delivery retried?";

let siteDir: string;
let dataDir: string;
let lectern: Lectern;
let app: TestApp;

beforeAll(async () => {
  siteDir = await mkdtemp(path.join(tmpdir(), "lectern-site-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-versions-"));
  for (const [file, text] of Object.entries(SITE)) {
    await mkdir(path.dirname(path.join(siteDir, file)), { recursive: true });
    await writeFile(path.join(siteDir, file), text);
  }
  lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  const report = await lectern.ingest(await readVersionedSite(siteDir));
  expect(report.failures).toEqual([]);
  app = createTestApp(lectern).app;
});

afterAll(async () => {
  await lectern?.close();
  await rm(siteDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

/** The path of the first source's URL (the server makes URLs absolute on its own origin). */
function firstUrl(sources: { source_url?: string | null | undefined }[]): string {
  return new URL(sources[0]?.source_url ?? "/", "http://localhost").pathname;
}

describe("a versioned Docusaurus site", () => {
  it("is one book whose versions are routed where Docusaurus serves them", async () => {
    expect(
      lectern.served.versions.map(({ name, urlSegment, latest }) => [name, urlSegment, latest]),
    ).toEqual([
      ["current", "next", false],
      ["2.0", "", true],
      ["1.0", "1.0", false],
    ]);
    const urls = (await lectern.store.pages()).map((page) => page.url).sort();
    expect(urls).toEqual([
      "/docs/1.0/intro",
      "/docs/1.0/retries",
      "/docs/intro",
      "/docs/next/intro",
      "/docs/next/retries",
      "/docs/next/streaming",
      "/docs/retries",
    ]);
  });

  it("answers a 1.0 reader from 1.0, citing 1.0's page", async () => {
    const body = await askChat(app, { query: RETRY_QUESTION, filters: { version: "1.0" } });
    expect(body.answer).toContain("three times");
    expect(body.answer).not.toMatch(/nine|five/);
    expect(firstUrl(body.sources)).toMatch(/^\/docs\/1\.0\/retries/);
  });

  it("answers a reader of the current docs from them, under /docs/next/", async () => {
    for (const version of ["next", "current", "Next"]) {
      const body = await askChat(app, { query: RETRY_QUESTION, filters: { version } });
      expect(body.answer).toContain("nine times");
      expect(firstUrl(body.sources)).toMatch(/^\/docs\/next\/retries/);
    }
  });

  it("answers from the last released version when no version is named", async () => {
    for (const filters of [undefined, { version: "latest" }, { section: "Failed deliveries" }]) {
      const body = await askChat(app, { query: RETRY_QUESTION, ...(filters ? { filters } : {}) });
      expect(body.answer).toContain("five times");
      expect(firstUrl(body.sources)).toMatch(/^\/docs\/retries/);
    }
  });

  it("reads the version from the page the reader is on when none is named", async () => {
    const body = await askChat(app, {
      query: RETRY_QUESTION,
      source_url: "https://parcel.example/docs/1.0/intro",
    });
    expect(body.answer).toContain("three times");
    expect(firstUrl(body.sources)).toMatch(/^\/docs\/1\.0\/retries/);
  });

  it("says so when the reader's version lacks what another version covers", async () => {
    const question = "How do I send a large parcel in pieces through a writable stream?";
    const body = await askChat(app, { query: question, filters: { version: "1.0" } });
    expect(body.answer).toMatch(/^Not in version 1\.0; the Next version covers it:/);
    expect(firstUrl(body.sources)).toMatch(/^\/docs\/next\/streaming/);
    const current = await askChat(app, { query: question, filters: { version: "next" } });
    expect(current.answer).not.toMatch(/^Not in/);
    expect(firstUrl(current.sources)).toMatch(/^\/docs\/next\/streaming/);
  });

  it("streams the notice first when another version answers", async () => {
    const events = await readEventStream(
      await postJson(app, "/chat/stream", {
        query: "How do I send a large parcel in pieces through a writable stream?",
        filters: { version: "1.0" },
      }),
    );
    const text = events.map((event) => (event.name === "delta" ? event.data.delta : "")).join("");
    expect(text).toMatch(/^Not in version 1\.0; the Next version covers it:\n\n/);
    expect(text).toContain("streamUpload");
    expect(events.at(-1)?.name).toBe("done");
  });

  it("sums the book up from its latest version", async () => {
    const body = await askChat(app, { query: "What is this book about?" });
    expect(body.sources.length).toBeGreaterThan(0);
    for (const source of body.sources) expect(firstUrl([source])).toBe("/docs/intro");
  });

  it("refuses a version the book does not have, naming those it has", async () => {
    const response = await postJson(app, "/chat", {
      query: RETRY_QUESTION,
      filters: { version: "0.9" },
    });
    const body = await expectError(response, 400, "INVALID_FILTER");
    expect(body.message).toContain("current, 2.0, 1.0");
  });

  it("answers MCP's search_docs and ask_docs in the version named, the latest by default", async () => {
    const tool = async (name: string, args: Record<string, unknown>) => {
      const response = await app.request("/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      });
      const body = (await response.json()) as {
        result: { isError?: boolean; content: { text: string }[] };
      };
      expect(body.result.isError).toBeFalsy();
      return body.result.content[0]?.text ?? "";
    };
    const search = await tool("search_docs", {
      query: RETRY_QUESTION,
      filters: { version: "1.0" },
    });
    expect(search).toContain("/docs/1.0/retries");
    expect(search).not.toMatch(/\/docs\/(next\/)?retries/);
    const ask = await tool("ask_docs", { question: RETRY_QUESTION, version: "next" });
    expect(ask).toContain("nine times");
    expect(ask).toContain("/docs/next/retries");
    expect(await tool("ask_docs", { question: RETRY_QUESTION })).toContain("five times");
  });

  it("searches one version's sections in GET /search", async () => {
    for (const [version, prefix] of [
      ["1.0", "/docs/1.0/"],
      ["next", "/docs/next/"],
    ] as const) {
      const response = await app.request(`/search?q=retried&version=${version}`, {});
      const body = (await response.json()) as { results: { url: string }[] };
      expect(body.results.length).toBeGreaterThan(0);
      for (const result of body.results)
        expect(new URL(result.url, "http://x").pathname).toMatch(prefix);
    }
    const unknown = await expectError(
      await app.request("/search?q=retried&version=0.9", {}),
      400,
      "INVALID_FILTER",
    );
    expect(unknown.details).toMatchObject({ field: "version" });
    const latest = (await (await app.request("/search?q=retried", {})).json()) as {
      results: { url: string }[];
    };
    expect(latest.results.map((result) => new URL(result.url, "http://x").pathname)).toEqual([
      "/docs/retries",
    ]);
  });
});

describe("the command line on a versioned site", () => {
  it("ingests it with --site and answers with --doc-version", async () => {
    const cliData = await mkdtemp(path.join(tmpdir(), "lectern-versions-cli-"));
    try {
      const ingest = await runCli(["ingest", "--site", siteDir, "--data-dir", cliData]);
      expect(ingest.stderr).toBe("");
      expect(ingest.code).toBe(0);
      expect(ingest.stdout).toContain("Versions: Next, 2.0 (latest), 1.0\n");
      const ask = (version: string[]) =>
        runCli(["ask", RETRY_QUESTION, "--data-dir", cliData, "--json", ...version]);
      const old = JSON.parse((await ask(["--doc-version", "1.0"])).stdout);
      expect(old.answer).toContain("three times");
      expect(old.sources[0].source_url).toMatch(/^\/docs\/1\.0\/retries/);
      const latest = JSON.parse((await ask([])).stdout);
      expect(latest.answer).toContain("five times");
      const unknown = await ask(["--doc-version", "0.9"]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^error \[INVALID_FILTER\]: Unknown docs version "0.9"/);
      const both = await runCli(["ingest", "--site", siteDir, "--docs", siteDir]);
      expect(both.code).toBe(2);
    } finally {
      await rm(cliData, { recursive: true, force: true });
    }
  }, 60_000);

  it("ingests the versions a configuration declares for folders that are no Docusaurus site", async () => {
    const project = await mkdtemp(path.join(tmpdir(), "lectern-versions-config-"));
    try {
      await writeFile(
        path.join(project, "lectern.config.json"),
        JSON.stringify({
          dataDir: "index",
          versions: [
            { name: "v1", path: path.join(siteDir, "versioned_docs/version-1.0"), url: "v1" },
            { name: "v2", path: path.join(siteDir, "versioned_docs/version-2.0"), url: "" },
          ],
        }),
      );
      const ingest = await runCli(["ingest"], { cwd: project });
      expect(ingest.code).toBe(0);
      const ask = async (version: string[]) =>
        JSON.parse(
          (await runCli(["ask", RETRY_QUESTION, "--json", ...version], { cwd: project })).stdout,
        );
      const old = await ask(["--doc-version", "v1"]);
      expect(old.answer).toContain("three times");
      expect(old.sources[0].source_url).toMatch(/^\/docs\/v1\/retries/);
      // The last version declared is the latest unless one is marked so.
      const latest = await ask([]);
      expect(latest.answer).toContain("five times");
      expect(latest.sources[0].source_url).toMatch(/^\/docs\/retries/);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("llms.txt of a versioned site", () => {
  const siteApp = () =>
    createTestApp(lectern, {
      deps: {
        site: createSite({
          store: lectern.store,
          title: () => lectern.title(),
          slice: sliceOf(lectern),
        }),
      },
    }).app;
  const linked = async (route: string) =>
    Array.from(
      (await (await siteApp().request(route)).text()).matchAll(/\]\(https?:\/\/[^/]+(\/\S+?)\)/g),
      (match) => match[1],
    ).sort();

  it("lists the latest version's pages, and another version's with ?version=", async () => {
    expect(await linked("/llms.txt")).toEqual(["/docs/intro.md", "/docs/retries.md"]);
    expect(await linked("/llms.txt?version=next")).toEqual([
      "/docs/next/intro.md",
      "/docs/next/retries.md",
      "/docs/next/streaming.md",
    ]);
    const full = await (await siteApp().request("/llms-full.txt?version=1.0")).text();
    expect(full).toContain("retried three times");
    expect(full).not.toMatch(/retried (five|nine) times/);
    await expectError(await siteApp().request("/llms.txt?version=9.9"), 400, "INVALID_FILTER");
  });
});
