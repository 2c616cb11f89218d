import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Engine, StaticManifest, staticRoutes } from "@lectern/engine/static/static-book";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, requireChromium } from "./browser.ts";
import { runCli, SAMPLE_DOCS } from "./cli.ts";
import { type StaticSite, serveStatic } from "./static-site.ts";
import { askInWidget } from "./widget-ask.ts";

/**
 * A static build as a project's GitHub Pages serves it (`https://<user>.github.io/<project>/`):
 * built with `--base-url`, the pages sit in the build folder by their path under the base, the
 * widget and the book are asked for under the base, and the widget's citations open pages the host
 * serves; built with `--feedback-url`, a reader's thumbs post the rating, with the question and
 * answer it rates, to the author's URL.
 */

const BASE = "/handbook/";
const HOOK = "/hooks/rating";
const ENGINE_BUILD = fileURLToPath(
  new URL("../dist/static-engine/lectern-engine.js", import.meta.url),
);
let workDir: string;
let site: StaticSite;
/** The ratings the author's URL received. */
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-static-base-"));
  // The host first: the build is made for the address it serves the site at.
  site = await serveStatic(path.join(workDir, "site"), { basePath: BASE });
  site.route(HOOK, (request) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => received.push(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
    return { status: 204 };
  });
  const built = await runCli([
    "build-static",
    "--docs",
    SAMPLE_DOCS,
    "--data-dir",
    path.join(workDir, "data"),
    "--out",
    path.join(workDir, "site"),
    "--base-url",
    new URL(BASE, site.url).href,
    "--feedback-url",
    new URL(HOOK, site.url).href,
  ]);
  expect(built.code, built.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await site?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("a static build for a site served at /handbook/, with ratings sent to the author", () => {
  it("writes each page at its path under the base, linking the widget and book under it", async () => {
    expect(existsSync(path.join(workDir, "site", "handbook"))).toBe(false);
    const file = path.join(workDir, "site", "docs", "ros2", "topics", "index.html");
    const html = await readFile(file, "utf8");
    expect(html).toContain(`src="${BASE}lectern/lectern.js"`);
    expect(html).toContain(`data-static-book="${BASE}lectern/manifest.json"`);
    expect(html).toContain(`<header><a href="${BASE}">`);
    expect(html).toContain(`href="${BASE}docs/ros2/topics"`);
    const served = await fetch(`${site.url}handbook/docs/ros2/topics/`);
    expect(served.status).toBe(200);
  });

  it.runIf(requireChromium())(
    "answers in the page, and its citation opens a page the host serves",
    async () => {
      const before = site.requests.length;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${site.url}handbook/docs/ros2/topics/`);
        const answer = await askInWidget(
          page,
          "How does a robot keep from falling over while standing?",
          /support polygon|centre of mass|center of mass/i,
        );
        const chip = answer.getByRole("link", { name: /^Source \d+:/ }).first();
        const cited = new URL((await chip.getAttribute("href")) ?? "", page.url());
        expect(cited.origin).toBe(new URL(site.url).origin);
        expect(cited.pathname).toMatch(/^\/handbook\/docs\/humanoids\/[\w-]+$/);
        await answer.getByRole("button", { name: "Helpful answer", exact: true }).click();
        await expect.poll(() => received.length).toBe(1);
        expect(received[0]).toMatchObject({
          rating: "up",
          question: "How does a robot keep from falling over while standing?",
          confidence: expect.any(String),
          sources: expect.arrayContaining([
            { title: expect.any(String), url: expect.stringContaining(cited.pathname) },
          ]),
        });
        expect(String(received[0]?.answer)).toMatch(/support polygon|centre of mass/i);
        await chip.click();
        await page.waitForURL((url) => url.pathname.replace(/\/$/, "") === cited.pathname);
        await expect.poll(() => page.locator("article h1").count()).toBe(1);
      } finally {
        await browser.close();
      }
      // Everything the pages asked for was there (the icon included): nothing missing.
      const asked = site.requests.slice(before);
      expect(asked.filter((request) => request.status >= 400)).toEqual([]);
      expect(asked.map((request) => request.path)).toContain(
        `${BASE}lectern/engine/lectern-worker.js`,
      );
    },
    120_000,
  );
});

describe("ratings of a static book's answers", () => {
  async function routes(fetcher: typeof fetch, feedbackUrl?: string) {
    const engineModule = (await import(pathToFileURL(ENGINE_BUILD).href)) as {
      openStaticBook(url: string): Promise<Engine & { manifest: StaticManifest }>;
      staticRoutes: typeof staticRoutes;
    };
    const engine = await engineModule.openStaticBook(`${site.url}handbook/lectern/manifest.json`);
    expect(engine.manifest.settings.feedbackUrl).toBe(new URL(HOOK, site.url).href);
    return engineModule.staticRoutes(engine, 5, feedbackUrl ? { feedbackUrl, fetcher } : {});
  }
  const post = (path: string, body: unknown) => ({
    method: "POST",
    path,
    body: JSON.stringify(body),
  });

  it("are refused with a clear code when wrong, and when the author's URL fails", async () => {
    let status = 200;
    const sent: string[] = [];
    const route = await routes(async (_url, init) => {
      sent.push(String(init?.body));
      if (status === 0) throw new Error("connection refused");
      return new Response(null, { status });
    }, "https://ratings.example/hook");
    const chat = JSON.parse(
      (await route(post("/chat", { query: "What is a URDF file?" }))).body,
    ) as { session_id: string; message_id: string };
    expect(chat.message_id).toMatch(/^[0-9a-f-]{36}$/);
    const rating = { session_id: chat.session_id, message_id: chat.message_id, rating: "down" };
    const cases: [unknown, number, string][] = [
      [{ ...rating, rating: "meh" }, 400, "VALIDATION_ERROR"],
      [{ ...rating, comment: "x".repeat(2_001) }, 400, "VALIDATION_ERROR"],
      [{ ...rating, message_id: "b7f3c2f0-0000-4000-8000-000000000000" }, 404, "MESSAGE_NOT_FOUND"],
      [{ ...rating, session_id: "b7f3c2f0-0000-4000-8000-000000000001" }, 404, "MESSAGE_NOT_FOUND"],
    ];
    for (const [body, code, errorCode] of cases) {
      const reply = await route(post("/feedback", body));
      expect([reply.status, JSON.parse(reply.body).error_code], JSON.stringify(body)).toEqual([
        code,
        errorCode,
      ]);
    }
    expect(sent).toEqual([]);
    status = 500;
    expect((await route(post("/feedback", rating))).status).toBe(502);
    status = 0;
    const refused = await route(post("/feedback", rating));
    expect([refused.status, JSON.parse(refused.body).error_code]).toEqual([
      502,
      "FEEDBACK_NOT_DELIVERED",
    ]);
    status = 200;
    const stored = await route(post("/feedback", { ...rating, comment: "  Too short.  " }));
    expect([stored.status, JSON.parse(stored.body)]).toEqual([201, { stored: true }]);
    expect(JSON.parse(sent.at(-1) ?? "{}")).toMatchObject({
      rating: "down",
      comment: "Too short.",
      question: "What is a URDF file?",
      session_id: chat.session_id,
      message_id: chat.message_id,
    });
  });

  it("share the chat's reading of a body: one that is not a JSON object is refused, not a 500", async () => {
    const route = await routes(globalThis.fetch, "https://ratings.example/hook");
    for (const path of ["/chat", "/feedback"])
      for (const body of ["null", "[1", "7"]) {
        const reply = await route({ method: "POST", path, body });
        expect([reply.status, JSON.parse(reply.body).error_code], `${path} ${body}`).toEqual([
          400,
          "VALIDATION_ERROR",
        ]);
      }
  });

  it("are not asked for without a URL: no message id, and POST /feedback needs a server", async () => {
    const route = await routes(globalThis.fetch);
    const chat = JSON.parse((await route(post("/chat", { query: "What is a URDF file?" }))).body);
    expect(chat.message_id).toBeNull();
    const reply = await route(post("/feedback", { rating: "up" }));
    expect([reply.status, JSON.parse(reply.body).error_code]).toEqual([501, "NEEDS_SERVER"]);
  });
});
