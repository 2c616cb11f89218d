import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Engine, EngineAnswer, StaticManifest } from "@lectern/engine/static/static-book";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, requireChromium } from "./browser.ts";
import { runCli, SAMPLE_DOCS, SAMPLE_QUESTIONS } from "./cli.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";
import { type StaticSite, serveStatic } from "./static-site.ts";
import { askInWidget } from "./widget-ask.ts";

/**
 * `lectern build-static` on the sample book, served by a plain static file server with no Lectern
 * process behind it: the engine's browser build, run in Node and in Chromium over those files,
 * answers every question of the sample book's question sets exactly as `POST /chat` of a real
 * server over the same index does.
 */

const ENGINE_BUILD = fileURLToPath(
  new URL("../dist/static-engine/lectern-engine.js", import.meta.url),
);
const FRESH_QUESTIONS = SAMPLE_QUESTIONS.replace(/questions\.jsonl$/, "questions-fresh.jsonl");

interface Asked {
  query: string;
  selected_text?: string;
}

/** What `/chat` and the engine must agree on: everything of an answer that depends on the book. */
function comparable(answer: {
  answer: string | null;
  sources: unknown[];
  confidence: string;
  suggestions?: string[] | undefined;
}) {
  return {
    answer: answer.answer,
    sources: answer.sources,
    confidence: answer.confidence,
    suggestions: answer.suggestions ?? [],
  };
}

async function questionsOf(file: string): Promise<string[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => (JSON.parse(line) as { question: string }).question);
}

let workDir: string;
let site: StaticSite;
let server: ServerProcess;

async function chat(asked: Asked) {
  const response = await fetch(`${server.url}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(asked),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as Parameters<typeof comparable>[0] & {
    fallback_message: string | null;
  };
  // The server writes its own origin before a link; the static book links within its site.
  const sources = (body.sources as { source_url?: string }[]).map((source) =>
    source.source_url?.startsWith(server.url)
      ? { ...source, source_url: source.source_url.slice(server.url.length) }
      : source,
  );
  return { ...comparable({ ...body, sources }), fallback: body.fallback_message };
}

function engineView(answer: EngineAnswer) {
  return { ...comparable(answer), fallback: answer.fallbackMessage };
}

beforeAll(async () => {
  // The engine's browser build of these sources (a build left from other sources would be tested
  // in their place).
  const engine = spawnSync(process.execPath, ["scripts/build-engine.mjs"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
  });
  expect(engine.status, engine.stderr).toBe(0);
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-static-"));
  const built = await runCli([
    "build-static",
    "--docs",
    SAMPLE_DOCS,
    "--data-dir",
    path.join(workDir, "data"),
    "--out",
    path.join(workDir, "site"),
  ]);
  expect(built.code, built.stderr).toBe(0);
  expect(built.stdout).toMatch(/Wrote the static book to .*lectern/);
  site = await serveStatic(path.join(workDir, "site"));
  // Every question of the sets is asked from one address: no rate limit.
  server = await startServerProcess(["--port", "0", "--data-dir", path.join(workDir, "data")], {
    LOG_LEVEL: "error",
    RATE_LIMIT_ENABLED: "false",
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await site?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("a static build of the sample book", () => {
  it("writes a manifest naming the book's core and, the book being small, its two shards to fetch with it", async () => {
    const manifest = (await (
      await fetch(`${site.url}lectern/manifest.json`)
    ).json()) as StaticManifest;
    expect(manifest).toMatchObject({ format: 2, title: "Robotics Primer" });
    expect(manifest.core).toBe(`book-${manifest.indexVersion}/core.json`);
    const core = (await (await fetch(`${site.url}lectern/${manifest.core}`)).json()) as {
      pageShards: number;
      termShards: number;
    };
    // A sample book of 25 pages is written whole: one page shard, one term shard.
    expect(core).toMatchObject({ pageShards: 1, termShards: 1 });
    expect(manifest.withCore).toEqual(["pages-0.json", "terms-0.json"]);
    const folder = `book-${manifest.indexVersion}`;
    for (const file of [
      manifest.core,
      `${folder}/pages-0.json`,
      `${folder}/terms-0.json`,
      "engine/lectern-engine.js",
    ])
      expect((await fetch(`${site.url}lectern/${file}`)).status, file).toBe(200);
  });

  it("fetches the core and its two shards on opening, and nothing more for questions", async () => {
    const { openStaticBook } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string, fetcher: typeof fetch): Promise<Engine>;
    };
    const fetched: string[] = [];
    const counting = ((url: URL | string, init?: RequestInit) => {
      fetched.push(new URL(url).pathname.replace(/^\/lectern\//, ""));
      return fetch(url, init);
    }) as typeof fetch;
    const engine = await openStaticBook(`${site.url}lectern/manifest.json`, counting);
    const folder = path.dirname(fetched.find((file) => file.endsWith("core.json")) ?? "");
    const opened = [
      "manifest.json",
      ...["core", "pages-0", "terms-0"].map((name) => `${folder}/${name}.json`),
    ];
    expect(fetched).toEqual(opened);
    for (const query of ["What is a ROS 2 topic?", "What is a URDF file?"])
      expect(engineView(await engine.ask({ query }))).toEqual(await chat({ query }));
    expect(fetched).toEqual(opened);
  });

  it("refuses a manifest of the earlier format (one book file and one index)", async () => {
    const { openStaticBook } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine>;
    };
    const manifestFile = path.join(workDir, "site", "lectern", "manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as StaticManifest;
    const { core: _core, ...rest } = manifest;
    await writeFile(
      path.join(workDir, "site", "lectern", "format-1.json"),
      JSON.stringify({ ...rest, format: 1, book: "book-1.json", index: "index-1.json" }),
    );
    await expect(openStaticBook(`${site.url}lectern/format-1.json`)).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
      message: expect.stringMatching(/format 2: rebuild/),
    });
  });

  it("answers every sample question as /chat does, in Node over the served files", async () => {
    const { openStaticBook } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine>;
    };
    const engine = await openStaticBook(`${site.url}lectern/manifest.json`);
    const questions = [
      ...(await questionsOf(SAMPLE_QUESTIONS)),
      ...(await questionsOf(FRESH_QUESTIONS)),
    ];
    expect(questions.length).toBeGreaterThan(150);
    const differing: string[] = [];
    let refused = 0;
    for (const query of questions) {
      const [fromServer, fromFiles] = [
        await chat({ query }),
        engineView(await engine.ask({ query })),
      ];
      if (fromServer.answer === null) refused += 1;
      if (JSON.stringify(fromServer) !== JSON.stringify(fromFiles)) differing.push(query);
    }
    expect(differing).toEqual([]);
    // Both kinds of reply were compared: answers and refusals.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(questions.length / 2);
  }, 300_000);

  it("answers a question about a selected passage as /chat does", async () => {
    const { openStaticBook } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine>;
    };
    const engine = await openStaticBook(`${site.url}lectern/manifest.json`);
    const selection = "A topic is a named channel that carries a stream of messages of one type.";
    for (const query of ["explain this", "what does topic mean?"]) {
      const fromServer = await chat({ query, selected_text: selection });
      const fromFiles = engineView(await engine.ask({ query, selectedText: selection }));
      expect(fromFiles, query).toEqual(fromServer);
    }
  }, 60_000);

  it("finds sections as you type as GET /search does, from the worker's routes", async () => {
    const { openStaticBook, staticRoutes } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine>;
      staticRoutes(
        engine: Engine,
        historyWindow: number,
      ): (request: { method: string; path: string }) => Promise<{ status: number; body: string }>;
    };
    const routes = staticRoutes(await openStaticBook(`${site.url}lectern/manifest.json`), 5);
    for (const typed of ["quality of serv", "urdf ", "launch file"]) {
      const route = `/search?${new URLSearchParams({ q: typed, limit: "8" })}`;
      const fromServer = (await (await fetch(`${server.url}${route}`)).json()) as {
        results: unknown[];
      };
      const reply = await routes({ method: "GET", path: route });
      expect(reply.status).toBe(200);
      const fromFiles = JSON.parse(reply.body) as { results: unknown[] };
      expect(fromServer.results.length, typed).toBeGreaterThan(0);
      expect(fromFiles.results, typed).toEqual(fromServer.results);
    }
    // What needs a server says so.
    const feedback = await routes({ method: "POST", path: "/feedback" });
    expect(feedback.status).toBe(501);
    expect(JSON.parse(feedback.body)).toMatchObject({ error_code: "NEEDS_SERVER" });
  });

  it.runIf(requireChromium())(
    "answers in Chromium from the static files alone, as /chat does",
    async () => {
      await writeFile(
        path.join(workDir, "site", "ask.html"),
        `<!doctype html><meta charset="utf-8"><title>Ask</title><script type="module">
import { openStaticBook } from "./lectern/engine/lectern-engine.js";
const engine = openStaticBook("./lectern/manifest.json");
window.ask = async (query) => (await engine).ask({ query });
</script>`,
      );
      const manifest = JSON.parse(
        await readFile(path.join(workDir, "site", "lectern", "manifest.json"), "utf8"),
      ) as StaticManifest;
      const before = site.requests.length;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        await page.goto(`${site.url}ask.html`);
        await page.waitForFunction(() => "ask" in window);
        const questions = (await questionsOf(SAMPLE_QUESTIONS)).slice(0, 12);
        questions.push("How do I bake sourdough bread?");
        for (const query of questions) {
          const fromFiles = await page.evaluate(
            (asked) => (window as unknown as { ask(q: string): Promise<EngineAnswer> }).ask(asked),
            query,
          );
          expect(engineView(fromFiles), query).toEqual(await chat({ query }));
        }
        expect(errors).toEqual([]);
        // The page read the manifest, the book's core and shards and the engine: files, each found.
        const read = site.requests
          .slice(before)
          .filter((request) => request.path !== "/favicon.ico");
        const paths = read.map((request) => request.path);
        expect(paths).toEqual(
          expect.arrayContaining([
            "/lectern/manifest.json",
            `/lectern/${manifest.core}`,
            "/lectern/engine/lectern-engine.js",
          ]),
        );
        const folder = `/lectern/book-${manifest.indexVersion}/`;
        expect(paths.some((file) => file.startsWith(`${folder}pages-`))).toBe(true);
        expect(paths.some((file) => file.startsWith(`${folder}terms-`))).toBe(true);
        expect(read.filter((request) => request.status !== 200)).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );
});

const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts", import.meta.url));

describe.runIf(requireChromium())("the widget on a static build's pages", () => {
  const viewports = [
    ["desktop", { viewport: { width: 1280, height: 860 } }],
    [
      "phone",
      {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
      },
    ],
  ] as const;

  it.each(viewports)(
    "answers in the page (%s) with a citation that lands on its section, and no server",
    async (name, contextOptions) => {
      const before = site.requests.length;
      const browser = await launchChromium();
      try {
        const context = await browser.newContext(contextOptions);
        const page = await context.newPage();
        await page.goto(`${site.url}docs/ros2/topics/`);
        const answer = await askInWidget(
          page,
          "How does a robot keep from falling over while standing?",
          /support polygon|centre of mass|center of mass/i,
        );
        await mkdir(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: path.join(ARTIFACTS, `static-panel-${name}.png`) });
        const chip = answer.getByRole("link", { name: /^Source \d+:/ }).first();
        const cited = new URL((await chip.getAttribute("href")) ?? "", page.url());
        expect(cited.pathname).toMatch(/^\/docs\/humanoids\/[\w-]+$/);
        await chip.click();
        await page.waitForURL((url) => url.pathname.replace(/\/$/, "") === cited.pathname);
        const anchor = new URL(page.url()).hash.replace(/^#/, "").split(":~:")[0] ?? "";
        const heading = anchor ? page.locator(`[id="${anchor}"]`) : page.locator("article h1");
        await expect.poll(() => heading.count()).toBe(1);
        await context.close();
      } finally {
        await browser.close();
      }
      // Only files were asked for: nothing was posted anywhere.
      const asked = site.requests.slice(before).map((request) => request.path);
      expect(asked).toContain("/lectern/engine/lectern-worker.js");
      expect(asked.filter((request) => /\/(?:chat|search|suggestions)\b/.test(request))).toEqual(
        [],
      );
    },
    120_000,
  );
});

describe.runIf(requireChromium())("the widget's panel on a static build's pages", () => {
  it("starts the engine when it opens, before a question, with the host's starter questions too", async () => {
    const before = site.requests.length;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      // The host gives its own starter questions (data-suggestions), so none are asked of the
      // engine: before this, the engine started only with the first question.
      await page.route(`${site.url}docs/ros2/topics/`, async (route) => {
        const response = await route.fetch();
        const body = (await response.text()).replace(
          "data-static-book=",
          `data-suggestions='["What is a topic?"]' data-static-book=`,
        );
        await route.fulfill({ response, body });
      });
      const manifest = (await (
        await fetch(`${site.url}lectern/manifest.json`)
      ).json()) as StaticManifest;
      await page.goto(`${site.url}docs/ros2/topics/`);
      await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
      await page.getByRole("button", { name: "What is a topic?" }).waitFor();
      const read = () => site.requests.slice(before).map((request) => request.path);
      await expect.poll(read, { timeout: 30_000 }).toContain(`/lectern/${manifest.core}`);
      expect(read()).toContain("/lectern/engine/lectern-worker.js");
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe("lectern build-static, again", () => {
  it("leaves one book: an earlier build's folder and the single files of format 1 go", async () => {
    const out = path.join(workDir, "again");
    const lectern = path.join(out, "lectern");
    await mkdir(path.join(lectern, "book-0"), { recursive: true });
    for (const file of ["book-0/core.json", "book-0.json", "index-0.json"])
      await writeFile(path.join(lectern, file), "{}");
    // A data directory of its own: the server of these tests holds the other.
    const built = await runCli([
      "build-static",
      "--docs",
      SAMPLE_DOCS,
      "--data-dir",
      path.join(workDir, "again-data"),
      "--out",
      out,
      "--book-only",
    ]);
    expect(built.code, built.stderr).toBe(0);
    // A person reads the shards of each kind on one line.
    expect(built.stdout).toMatch(/book-\d+\/pages-\*\.json \(\d+ files\)/);
    const manifest = JSON.parse(
      await readFile(path.join(lectern, "manifest.json"), "utf8"),
    ) as StaticManifest;
    const books = (await readdir(lectern)).filter((name) => /^(?:book|index)-/.test(name));
    expect(books).toEqual([`book-${manifest.indexVersion}`]);
  }, 60_000);
});

describe("lectern build-static, bad input", () => {
  it("says what is missing without --out", async () => {
    const result = await runCli(["build-static", "--docs", SAMPLE_DOCS]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Missing --out <dir>/);
  });

  it("refuses a manifest whose book is of another build, and an unreachable one", async () => {
    const { openStaticBook } = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine>;
    };
    const manifestFile = path.join(workDir, "site", "lectern", "manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as StaticManifest;
    await writeFile(
      path.join(workDir, "site", "lectern", "other.json"),
      JSON.stringify({ ...manifest, indexVersion: manifest.indexVersion + 1 }),
    );
    await expect(openStaticBook(`${site.url}lectern/other.json`)).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
    await expect(openStaticBook(`${site.url}lectern/missing.json`)).rejects.toMatchObject({
      code: "STATIC_BOOK_UNREACHABLE",
    });
    await writeFile(path.join(workDir, "site", "lectern", "page.json"), "<html>");
    await expect(openStaticBook(`${site.url}lectern/page.json`)).rejects.toMatchObject({
      code: "STATIC_BOOK_INVALID",
    });
  });
});
