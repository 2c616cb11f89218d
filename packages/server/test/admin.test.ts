/// <reference lib="dom" />
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, devices } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type RunningServer, startServer } from "../src/http/server.ts";
import { launchChromium, requireChromium } from "./browser.ts";
import { openSampleBook } from "./http-fixture.ts";

/**
 * The authors' insights page in a real browser: `lectern serve` on the sample book with readers'
 * questions asked over HTTP, then GET /admin in Chromium on a desktop and on an emulated phone:
 * refused without the admin token, drawn with it, no horizontal scrolling on the phone, and no
 * serious accessibility violation (axe).
 */

const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts", import.meta.url));
const IMAGES = fileURLToPath(new URL("../../../docs/images", import.meta.url));
const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TOKEN = "admin-page-browser-token";
const PORT = 4531;
const chromiumReady = requireChromium();

let bookDir: string;
let dataDir: string;
let server: RunningServer;
let browser: Browser;

const QUESTIONS = [
  "What is a topic?",
  "How do I publish a message on a topic?",
  "How many subscribers can a topic have?",
  "How does a droid keep its balance?",
  "Why does my droid fall over when walking?",
  "What is a URDF?",
  "How do I write a URDF file for my arm?",
  "Can I pay for the course by invoice?",
  "Can I pay for the course by invoice?",
  "How do I calibrate a camera?",
  "What is the ZMP of a humanoid robot?",
];

async function ask(query: string, sessionId = crypto.randomUUID()) {
  const response = await fetch(`${server.url}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, session_id: sessionId }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { message_id: string };
}

describe.runIf(chromiumReady)("the insights page in Chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const book = await openSampleBook();
    await book.lectern.close();
    bookDir = book.dataDir;
    dataDir = await mkdtemp(path.join(tmpdir(), "lectern-admin-"));
    await cp(bookDir, dataDir, { recursive: true });
    server = await startServer(
      loadConfig({
        env: {
          LOG_LEVEL: "silent",
          PORT: String(PORT),
          RATE_LIMIT_ENABLED: "false",
          LECTERN_ADMIN_TOKEN: TOKEN,
          INSIGHTS_FLUSH_MS: "10",
        },
        overrides: { dataDir },
      }),
    );
    for (const question of QUESTIONS) await ask(question);
    const session = crypto.randomUUID();
    const rated = await ask("How does a lidar measure distance?", session);
    const vote = await fetch(`${server.url}/feedback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        session_id: session,
        message_id: rated.message_id,
        rating: "down",
        comment: "I wanted the maximum range of a typical sensor.",
      }),
    });
    expect(vote.status).toBe(201);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close().catch(() => {});
    await rm(bookDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it("is refused without the admin token, or with a wrong one", async () => {
    for (const credentials of [undefined, { username: "author", password: "not-the-token" }]) {
      const context = await browser.newContext(credentials ? { httpCredentials: credentials } : {});
      const page = await context.newPage();
      const answers: { status: number; challenge: string | undefined; body: string }[] = [];
      page.on("response", async (response) => {
        if (!response.url().endsWith("/admin")) return;
        const body = await response.text().catch(() => "");
        answers.push({
          status: response.status(),
          challenge: response.headers()["www-authenticate"],
          body,
        });
      });
      // Headless Chromium has no login prompt: it shows the 401, or ends the navigation with
      // ERR_INVALID_AUTH_CREDENTIALS; either way every answer it got was the 401.
      const shown = await page.goto(`${server.url}/admin`).catch((error: Error) => {
        expect(error.message).toMatch(/ERR_INVALID_AUTH_CREDENTIALS/);
        return null;
      });
      if (shown) expect(shown.status()).toBe(401);
      await expect.poll(() => answers.length).toBeGreaterThan(0);
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(answer.challenge).toMatch(/^Basic realm="Lectern admin"/);
        expect(answer.body).not.toMatch(/droid|invoice/);
      }
      await context.close();
    }
  });

  const viewports: [string, BrowserContextOptions][] = [
    ["desktop", { viewport: { width: 1280, height: 900 } }],
    ["phone", { ...devices["Pixel 7"], isMobile: true, hasTouch: true } as BrowserContextOptions],
  ];

  for (const [name, options] of viewports) {
    it(`shows the insights on a ${name}, without horizontal scrolling or accessibility violations`, async () => {
      const context = await browser.newContext({
        ...options,
        httpCredentials: { username: "author", password: TOKEN },
      });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const response = await page.goto(`${server.url}/admin`);
      expect(response?.status()).toBe(200);
      await page.getByRole("heading", { name: "Vocabulary gaps" }).waitFor();

      // Both charts are drawn, with accessible names that state their numbers.
      const charts = page.getByRole("img");
      expect(await charts.count()).toBe(2);
      expect(await charts.first().getAttribute("aria-label")).toMatch(/^Questions per day: 12 /);
      expect(await page.locator("svg rect").count()).toBeGreaterThan(2);
      // The sections an author reads.
      const main = page.getByRole("main");
      await expect.poll(() => main.textContent()).toMatch(/droid/);
      expect(await main.textContent()).toMatch(/Proposed synonym: droid → humanoid/);
      expect(await main.textContent()).toMatch(/Can I pay for the course by invoice\?/);
      expect(await main.textContent()).toMatch(/I wanted the maximum range of a typical sensor\./);

      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);

      await page.evaluate(await readFile(AXE_SOURCE, "utf8"));
      const found = await page.evaluate(async () => {
        type AxeResult = { violations: { id: string; impact: string | null; help: string }[] };
        const axe = (window as unknown as { axe: { run(context: Document): Promise<AxeResult> } })
          .axe;
        const result = await axe.run(document);
        return result.violations
          .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => `${violation.id}: ${violation.help}`);
      });
      expect(found).toEqual([]);
      expect(violations).toEqual([]);

      await page.screenshot({ path: path.join(ARTIFACTS, `admin-${name}.png`), fullPage: true });
      // The README's pictures are refreshed on request only, so a test run leaves the tree clean.
      if (process.env.UPDATE_SCREENSHOTS === "1") {
        await page.screenshot({ path: path.join(IMAGES, `admin-${name}.png`) });
      }
      await context.close();
    });
  }
});
