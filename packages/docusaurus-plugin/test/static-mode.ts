import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { launchChromium, requireChromium } from "../../server/test/browser.ts";
import { SAMPLE_DOCS } from "../../server/test/cli.ts";
import { serveStatic } from "../../server/test/static-site.ts";
import { buildSiteFolder, docusaurusInstall, skipDocusaurusBuild } from "./docusaurus-install.ts";

/**
 * A third site in the install of docusaurus-build.test.ts: the sample book with the plugin in
 * `mode: "static"`. The build writes the book for the browser; a plain static file server serves
 * the build, with no Lectern process anywhere, and the widget answers on its pages; a reader's
 * thumbs post the rating to the site's `feedbackUrl` (here a path the server records).
 */

const SITE_FOLDER = "static-primer";
const SITE_URL = "https://primer.example.com";
const WIDGET_TITLE = "Ask the primer";
// Where the screenshots are left, for a person to look at.
const SCREENSHOTS = path.join(tmpdir(), "lectern-docusaurus-static");

const CONFIG = `// Written by static-mode.ts
export default {
  title: "Robotics Primer",
  url: ${JSON.stringify(SITE_URL)},
  baseUrl: "/",
  onBrokenLinks: "warn",
  presets: [["classic", { docs: { path: "docs" }, blog: false }]],
  plugins: [
    [
      "docusaurus-plugin-lectern",
      ${JSON.stringify({ mode: "static", title: WIDGET_TITLE, persist: false, feedbackUrl: "/api/ratings", ingest: { enabled: true, dataDir: ".lectern", llmsTxt: false } })},
    ],
  ],
  themeConfig: { navbar: { title: "Robotics Primer" } },
};
`;

const VIEWPORTS = [
  ["desktop", { viewport: { width: 1280, height: 860 } }],
  [
    "phone",
    { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  ],
] as const;

export function describeStaticSite(): void {
  describe.skipIf(skipDocusaurusBuild)(
    'the sample book built with mode: "static", served as plain files',
    () => {
      let buildDir: string;

      beforeAll(async () => {
        const root = await docusaurusInstall();
        const siteDir = path.join(root, SITE_FOLDER);
        await mkdir(path.join(siteDir, "src", "pages"), { recursive: true });
        await writeFile(path.join(siteDir, "docusaurus.config.js"), CONFIG);
        await writeFile(path.join(siteDir, "src", "pages", "index.md"), "# Robotics Primer\n");
        await cp(SAMPLE_DOCS, path.join(siteDir, "docs"), { recursive: true });
        await buildSiteFolder(root, SITE_FOLDER);
        buildDir = path.join(siteDir, "build");
      }, 10 * 60_000);

      it("wrote the book for the browser into the build, and pointed every page's widget at it", async () => {
        for (const file of ["manifest.json", "lectern.js", "engine/lectern-worker.js"])
          expect(existsSync(path.join(buildDir, "lectern", file)), file).toBe(true);
        const page = await readFile(
          path.join(buildDir, "docs", "ros2", "topics", "index.html"),
          "utf8",
        );
        expect(page).toMatch(/src="\/lectern\/lectern\.js"/);
        expect(page).toMatch(/data-static-book="\/lectern\/manifest\.json"/);
        expect(page).not.toMatch(/data-api=/);
      });

      it.each(VIEWPORTS)(
        "answers on a built page (%s) from the static files, citing a section the site has",
        async (name, contextOptions) => {
          if (!requireChromium()) return;
          const site = await serveStatic(buildDir);
          const ratings: string[] = [];
          site.route("/api/ratings", (request) => {
            let body = "";
            request.on("data", (chunk: Buffer) => {
              body += chunk.toString("utf8");
            });
            request.on("end", () => ratings.push(body));
            return { status: 204 };
          });
          const browser = await launchChromium();
          await mkdir(SCREENSHOTS, { recursive: true });
          try {
            const context = await browser.newContext(contextOptions);
            const page = await context.newPage();
            await page.goto(`${site.url}docs/ros2/topics/`);
            await page.getByRole("button", { name: new RegExp(WIDGET_TITLE) }).click();
            const box = page.getByRole("textbox");
            await box.fill("How does a robot keep from falling over while standing?");
            await box.press("Enter");
            const answer = page.getByRole("article", { name: "Answer" }).last();
            await expect
              .poll(async () => (await answer.textContent()) ?? "", { timeout: 30_000 })
              .toMatch(/support polygon|centre of mass|center of mass/i);
            await answer.getByRole("button", { name: "Helpful answer", exact: true }).click();
            await expect.poll(() => ratings.length).toBe(1);
            expect(JSON.parse(ratings[0] ?? "{}")).toMatchObject({
              rating: "up",
              question: "How does a robot keep from falling over while standing?",
            });
            await page.screenshot({ path: path.join(SCREENSHOTS, `widget-${name}.png`) });
            // The citation names the site's page and section; the built site has both.
            const link = answer.getByRole("link", { name: /^Source \d+:/ }).first();
            const cited = new URL((await link.getAttribute("href")) ?? "");
            expect(cited.origin).toBe(SITE_URL);
            expect(cited.pathname).toMatch(/^\/docs\/humanoids\//);
            await page.goto(`${site.url}${cited.pathname.slice(1)}${cited.hash}`);
            const anchor = cited.hash.replace(/^#/, "").split(":~:")[0] ?? "";
            const target = anchor ? page.locator(`[id="${anchor}"]`) : page.locator("article h1");
            await expect.poll(() => target.count()).toBe(1);
            await context.close();
          } finally {
            await browser.close();
            await site.close();
          }
          // Only files were fetched: nothing was posted to an API.
          const asked = site.requests.map((request) => request.path);
          expect(asked).toContain("/lectern/engine/lectern-worker.js");
          expect(
            asked.filter((request) => /\/(?:chat|search|suggestions)\b/.test(request)),
          ).toEqual([]);
        },
        120_000,
      );
    },
  );
}
