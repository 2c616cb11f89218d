import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, requireChromium } from "./browser.ts";
import { runCli, SAMPLE_DOCS } from "./cli.ts";
import { type StaticSite, serveStatic } from "./static-site.ts";

/**
 * A static build for a site served below a path (a project's GitHub Pages:
 * `https://<user>.github.io/<project>/`), built with `--base-url`: the pages sit in the build
 * folder by their path under the base, the widget and the book are asked for under the base, and
 * the widget's citations open pages the host serves.
 */

const BASE = "/handbook/";
let workDir: string;
let site: StaticSite;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-static-base-"));
  // The host first: the build is made for the address it serves the site at.
  site = await serveStatic(path.join(workDir, "site"), { basePath: BASE });
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
  ]);
  expect(built.code, built.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await site?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("a static build for a site served at /handbook/", () => {
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
        await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
        const box = page.getByRole("textbox");
        await box.fill("How does a robot keep from falling over while standing?");
        await box.press("Enter");
        const answer = page.getByRole("article", { name: "Answer" }).last();
        await expect
          .poll(async () => (await answer.textContent()) ?? "", { timeout: 30_000 })
          .toMatch(/support polygon|centre of mass|center of mass/i);
        const chip = answer.getByRole("link", { name: /^Source \d+:/ }).first();
        const cited = new URL((await chip.getAttribute("href")) ?? "", page.url());
        expect(cited.origin).toBe(new URL(site.url).origin);
        expect(cited.pathname).toMatch(/^\/handbook\/docs\/humanoids\/[\w-]+$/);
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
