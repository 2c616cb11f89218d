/// <reference lib="dom" />
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, devices, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type RunningServer, startServer } from "../src/http/server.ts";
import { launchChromium, requireChromium } from "./browser.ts";
import { openSampleBook } from "./http-fixture.ts";

/**
 * The reader's experience in a real browser: `lectern serve` on the sample book, its demo site
 * with the widget, driven through Chromium.
 */

const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts", import.meta.url));
const chromiumReady = requireChromium();

let bookDir: string;
let dataDir: string;
let server: RunningServer;
let browser: Browser;
let port = 0;

async function startBook(): Promise<RunningServer> {
  const config = loadConfig({
    env: { LOG_LEVEL: "silent", PORT: String(port), RATE_LIMIT_ENABLED: "false" },
    overrides: { dataDir },
  });
  const started = await startServer(config);
  port = started.port;
  return started;
}

describe.runIf(chromiumReady)("reader's experience in Chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const book = await openSampleBook();
    await book.lectern.close();
    bookDir = book.dataDir;
    dataDir = await mkdtemp(path.join(tmpdir(), "lectern-e2e-"));
    await cp(bookDir, dataDir, { recursive: true });
    server = await startBook();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close().catch(() => {});
    await rm(bookDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  async function openPage(route: string, viewport = { width: 1280, height: 860 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${server.url}${route}`);
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).waitFor();
    return page;
  }

  async function ask(page: Page, question: string): Promise<void> {
    const box = page.getByRole("textbox");
    await box.fill(question);
    await box.press("Enter");
  }

  const lastAnswer = (page: Page) => page.getByRole("article", { name: "Answer" }).last();

  it("streams an answer with a citation that opens the right page at the right section", async () => {
    const page = await openPage("/docs/ros2/topics");
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    const deltas: number[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith("/chat/stream")) deltas.push(Date.now());
    });
    await ask(page, "How does a robot keep from falling over while standing?");
    const answer = lastAnswer(page);
    await expect
      .poll(async () => (await answer.textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/support polygon|centre of mass|center of mass/i);
    await page.screenshot({ path: path.join(ARTIFACTS, "panel-desktop.png") });
    // The README's picture is refreshed on request only, so a test run leaves the tree clean.
    if (process.env.UPDATE_SCREENSHOTS === "1") {
      await page.screenshot({
        path: fileURLToPath(new URL("../../../docs/images/widget-desktop.png", import.meta.url)),
      });
    }

    // The first citation chip of the answer (the passage it quotes may be any of the sources).
    const chip = answer.getByRole("link", { name: /^Source \d+:/ }).first();
    const href = await chip.getAttribute("href");
    // The section's anchor, plus a Text Fragment that highlights the cited passage.
    expect(href).toMatch(/^\/docs\/humanoids\/[\w-]+#[\w-]+(:~:text=.+)?$/);
    await chip.click();
    await page.waitForURL((url) => url.pathname === href?.split("#")[0]?.split(":~:")[0]);
    const anchor = new URL(page.url()).hash.replace(/^#/, "").split(":~:")[0] ?? "";
    expect(anchor.length).toBeGreaterThan(0);
    const heading = page.locator(`[id="${anchor}"]`);
    await expect.poll(() => heading.count()).toBe(1);
    expect(await heading.isVisible()).toBe(true);
    await page.context().close();
  });

  it("runs under the site's Content-Security-Policy without a single violation", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const report = (window as unknown as { reportViolation: (text: string) => void })
          .reportViolation;
        report(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${server.url}/docs/ros2/topics`);
    expect(response?.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
    const launcher = page.getByRole("button", { name: /Ask Robotics Primer/ });
    await launcher.waitFor();
    // The widget's stylesheet applies: the launcher floats over the page.
    expect(await launcher.evaluate((element) => getComputedStyle(element).position)).toBe("fixed");
    // The theme toggle's script runs.
    await page.getByRole("button", { name: "Toggle dark mode" }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await launcher.click();
    await ask(page, "What is a URDF?");
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/URDF/);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("asks about a selected passage and answers from the selection", async () => {
    const page = await openPage("/docs/humanoids/zmp");
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/chat/stream")) sent.push(request.postData() ?? "");
    });
    // Select the first sentence of the first paragraph, as a reader would with the mouse.
    const selected = await page.evaluate(() => {
      const paragraph = document.querySelector("article p");
      const text = paragraph?.firstChild;
      if (!paragraph || !text?.textContent) return "";
      const end = text.textContent.indexOf(". ") + 1 || text.textContent.length;
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, end);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      const box = range.getBoundingClientRect();
      paragraph.dispatchEvent(
        new MouseEvent("mouseup", { bubbles: true, clientX: box.right, clientY: box.bottom }),
      );
      return selection?.toString() ?? "";
    });
    expect(selected.length).toBeGreaterThan(20);
    await page.getByRole("button", { name: "Ask about this" }).click();
    await ask(page, "Explain this in simpler terms");
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toContain(selected.slice(0, 20));
    expect(JSON.parse(sent[0] ?? "{}")).toMatchObject({ selected_text: selected });
    await page.context().close();
  });

  it("keeps the conversation across a reload, and clears it on request", async () => {
    const page = await openPage("/docs");
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    await ask(page, "What is a URDF?");
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/URDF/);
    const sessionId = await page.evaluate(() => {
      for (const key of Object.keys(sessionStorage)) {
        const match = /"sessionId":"([0-9a-f-]{36})"/.exec(sessionStorage.getItem(key) ?? "");
        if (match) return match[1];
      }
      return undefined;
    });
    expect(sessionId).toBeDefined();
    await page.reload();
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    await expect.poll(() => page.getByRole("article", { name: "Your question" }).count()).toBe(1);
    expect((await fetch(`${server.url}/history/${sessionId}`)).status).toBe(200);
    await page.getByRole("button", { name: "Clear conversation" }).click();
    await expect.poll(() => page.getByRole("article", { name: "Your question" }).count()).toBe(0);
    await expect
      .poll(async () => (await fetch(`${server.url}/history/${sessionId}`)).status)
      .toBe(404);
    await page.context().close();
  });

  it("shows an error when the server is down, and Retry works once it is back", async () => {
    const page = await openPage("/docs");
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    await server.close();
    await ask(page, "What is a service?");
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 15_000 });
    server = await startBook();
    await alert.getByRole("button", { name: "Retry" }).click();
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/service/i);
    await page.context().close();
  });

  it("works with the keyboard alone: open, ask, close with Esc", async () => {
    const page = await openPage("/docs/getting-started/what-is-robotics-software");
    const launcher = page.getByRole("button", { name: /Ask Robotics Primer/ });
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/chat/stream")) sent.push(request.postData() ?? "");
    });
    // A reader types as soon as the box shows: it must already have the focus when it appears,
    // or the first keys go elsewhere ("What is a node?" arriving as "ode?" finds nothing).
    await page.evaluate(() => {
      const shadow = document.querySelector("lectern-chat")?.shadowRoot;
      if (!shadow) throw new Error("the widget has no shadow root");
      const record = window as unknown as { focusedWhenShown?: boolean };
      const observer = new MutationObserver(() => {
        const box = shadow.querySelector("textarea");
        if (!box) return;
        record.focusedWhenShown = shadow.activeElement === box;
        observer.disconnect();
      });
      observer.observe(shadow, { childList: true, subtree: true });
    });
    await launcher.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("textbox").waitFor();
    expect(
      await page.evaluate(
        () => (window as unknown as { focusedWhenShown?: boolean }).focusedWhenShown,
      ),
    ).toBe(true);
    await page.keyboard.type("What is a node?");
    await page.keyboard.press("Enter");
    await expect.poll(() => sent.length).toBe(1);
    expect(JSON.parse(sent[0] ?? "{}")).toMatchObject({ query: "What is a node?" });
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/node/i);
    // Focus stays inside the open panel.
    for (let press = 0; press < 12; press++) await page.keyboard.press("Tab");
    const insidePanel = await page.evaluate(() => {
      const host =
        document.querySelector("lectern-chat, [data-lectern-chat]") ?? document.activeElement;
      return (
        Boolean(host?.shadowRoot?.activeElement) ||
        document.activeElement?.tagName === "LECTERN-CHAT"
      );
    });
    expect(insidePanel).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("textbox").count()).toBe(0);
    await page.context().close();
  });

  it("fits every page of the book on a phone (real mobile emulation), content first", async () => {
    const context = await browser.newContext({ ...devices["Pixel 7"] });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/docs`);
      const links = await page.$$eval('nav a[href^="/docs"]', (anchors) =>
        anchors.map((anchor) => anchor.getAttribute("href") ?? ""),
      );
      expect(links.length).toBeGreaterThan(10);
      for (const link of links) {
        await page.goto(`${server.url}${link}`);
        const launcher = page.getByRole("button", { name: /Ask Robotics Primer/ });
        await launcher.waitFor();
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          // On a phone the layout viewport grows to fit anything wider than the screen, so the
          // page is compared with the screen, not with innerWidth.
          innerWidth: screen.width,
          layoutWidth: innerWidth,
          // The page's own content comes before its table of contents on a narrow screen.
          contentFirst:
            (document.querySelector("main")?.getBoundingClientRect().top ?? 0) <
            (document.querySelector("nav")?.getBoundingClientRect().top ?? 0),
        }));
        expect(layout.layoutWidth, link).toBe(layout.innerWidth);
        expect(layout.scrollWidth, link).toBeLessThanOrEqual(layout.innerWidth);
        expect(layout.contentFirst, link).toBe(true);
        const box = await launcher.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= layout.innerWidth, link).toBe(true);
      }
      // The chat panel fills the phone's screen, without sideways scrolling.
      await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
      const panel = await page.getByRole("dialog").boundingBox();
      const width = await page.evaluate(() => screen.width);
      expect(panel?.x).toBe(0);
      expect(panel?.width).toBe(width);
      await page.screenshot({ path: path.join(ARTIFACTS, "panel-phone-emulated.png") });
    } finally {
      await context.close();
    }
  });

  it("fills the screen on a phone, and follows the site's dark theme", async () => {
    const page = await openPage("/docs/ros2/topics", { width: 390, height: 760 });
    await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    const panel = page.getByRole("dialog");
    const box = await panel.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(380);
    await page.screenshot({ path: path.join(ARTIFACTS, "panel-mobile.png") });
    await page.context().close();

    const dark = await openPage("/docs/ros2/topics");
    await dark.evaluate(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await dark.getByRole("button", { name: /Ask Robotics Primer/ }).click();
    const background = await dark
      .getByRole("dialog")
      .evaluate((element) => getComputedStyle(element).backgroundColor);
    const [red = 255, green = 255, blue = 255] = (background.match(/\d+/g) ?? []).map(Number);
    expect(red + green + blue).toBeLessThan(200);
    await dark.screenshot({ path: path.join(ARTIFACTS, "panel-dark.png") });
    await dark.context().close();
  });
});
