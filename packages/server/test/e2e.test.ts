/// <reference lib="dom" />
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
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
const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
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
    // The page's full URL on the site's origin, the section's anchor, and a Text Fragment that
    // highlights the cited passage.
    const origin = new URL(page.url()).origin;
    expect(href?.startsWith(`${origin}/`)).toBe(true);
    const cited = new URL(href ?? "");
    // A section's anchor, or none for a passage from the page's opening (before its first heading).
    expect(`${cited.pathname}${cited.hash}`).toMatch(
      /^\/docs\/humanoids\/[\w-]+(#[\w-]*)?(:~:text=.+)?$/,
    );
    await chip.click();
    await page.waitForURL((url) => url.pathname === cited.pathname);
    const anchor = new URL(page.url()).hash.replace(/^#/, "").split(":~:")[0] ?? "";
    const heading = anchor ? page.locator(`[id="${anchor}"]`) : page.locator("article h1");
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
    // The sidebar sits beside the page on a desktop: no "Contents" link in the header.
    expect(await page.getByRole("link", { name: "Contents" }).isVisible()).toBe(false);
    await launcher.click();
    await ask(page, "What is a URDF?");
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/URDF/);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("asks about a selected passage and answers from the book around it, not by repeating it", async () => {
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
    // One sentence quoted back would tell the reader nothing: the book around it answers.
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toContain("The answer quotes the book around the selection.");
    const answer = (await lastAnswer(page).textContent()) ?? "";
    expect(answer).not.toContain(selected.trim());
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
    // The answer's actions show once it is complete, and so stored: a reload before would cut it.
    await lastAnswer(page)
      .getByRole("button", { name: "Copy answer as Markdown" })
      .waitFor({ timeout: 15_000 });
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
    // The next answer ends while the reader is on Stop. Stop turns into Send, disabled while the
    // box is empty, and Chromium drops focus from a disabled button: the box must take it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/chat/stream", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("textbox").focus();
    await page.keyboard.type("What is a topic?");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.keyboard.press("Tab");
    const focusedControl = () =>
      page.evaluate(() => {
        const active = document.querySelector("lectern-chat")?.shadowRoot?.activeElement;
        return active ? `${active.tagName}:${active.textContent ?? ""}` : "none";
      });
    expect(await focusedControl()).toBe("BUTTON:Stop");
    release();
    await expect
      .poll(async () => (await lastAnswer(page).textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/topic/i);
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(await focusedControl()).toBe("TEXTAREA:");
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
      // The table of contents, below the page on a phone, is one tap away from the header.
      const navTop = () =>
        page.evaluate(() => document.querySelector("nav")?.getBoundingClientRect().top ?? -1);
      expect(await navTop()).toBeGreaterThan(await page.evaluate(() => innerHeight));
      await page.getByRole("link", { name: "Contents" }).tap();
      await expect.poll(navTop).toBeLessThan(5);
      expect(await navTop()).toBeGreaterThanOrEqual(-5);
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
    // A table in an answer keeps each word of a cell whole ("Service", not "Ser / vice").
    await ask(page, "What's the difference between a service and an action?");
    const cells = lastAnswer(page).locator("td");
    await expect.poll(() => cells.count(), { timeout: 15_000 }).toBeGreaterThan(3);
    const brokenWords = await cells.evaluateAll((elements) =>
      elements
        .filter((cell) => !/\s/.test(cell.textContent?.trim() ?? ""))
        .filter((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          return range.getClientRects().length > 1;
        })
        .map((cell) => cell.textContent),
    );
    expect(brokenWords).toEqual([]);
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
  /* The reader's tools: the search-and-ask box, the side panel, suggestions, copy, touch. */

  const launcherOf = (page: Page) => page.getByRole("button", { name: /Ask Robotics Primer/ });
  const searchBoxOf = (page: Page) => page.getByRole("combobox", { name: "Search or ask" });

  /** Whether `locator`'s element has focus, looking through the widget's shadow root. */
  const hasFocus = (locator: ReturnType<Page["locator"]>) =>
    locator.evaluate((element) => {
      const root = element.getRootNode() as Document | ShadowRoot;
      return root.activeElement === element;
    });

  /** Saves a screenshot for the test run, and for the README when UPDATE_SCREENSHOTS=1. */
  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
    if (process.env.UPDATE_SCREENSHOTS === "1") {
      await page.screenshot({
        path: fileURLToPath(new URL(`../../../docs/images/${name}.png`, import.meta.url)),
      });
    }
  }

  /** Switches the demo site's widget to the side panel, as `data-placement="side"` does. */
  const useSidePanel = (page: Page) =>
    page.evaluate(() => {
      const element = document.querySelector("lectern-chat") as HTMLElement | null;
      if (element) element.dataset.placement = "side";
    });

  /** Waits until the newest answer has finished streaming (its copy button appears). */
  async function waitForAnswer(page: Page, pattern: RegExp): Promise<void> {
    await lastAnswer(page)
      .getByRole("button", { name: "Copy answer as Markdown" })
      .waitFor({ timeout: 15_000 });
    expect((await lastAnswer(page).textContent()) ?? "").toMatch(pattern);
  }

  it("opens the search box with /, ⌘K and Ctrl+K; results come as the reader types and open their page", async () => {
    const page = await openPage("/docs/getting-started/what-is-robotics-software");
    const searchBox = searchBoxOf(page);
    const pageLink = page.locator("main a[href]").first();
    for (const shortcut of ["/", "Meta+k", "Control+k"]) {
      await pageLink.focus();
      await page.keyboard.press(shortcut);
      await searchBox.waitFor();
      // The box takes focus once it has rendered: wait for that, not for the first frame.
      await expect.poll(() => hasFocus(searchBox), { message: shortcut }).toBe(true);
      // Tab stays in the box.
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      expect(await page.getByRole("dialog", { name: "Search or ask" }).count()).toBe(1);
      await page.keyboard.press("Escape");
      await searchBox.waitFor({ state: "detached" });
      await expect.poll(() => hasFocus(pageLink), { message: shortcut }).toBe(true);
    }

    await page.keyboard.press("/");
    const searched = page.waitForResponse((response) => response.url().includes("/search?"));
    await searchBox.fill("xacro");
    const response = await searched;
    expect(new URL(response.url()).searchParams.get("q")).toBe("xacro");
    expect(new URL(response.url()).searchParams.get("limit")).toBe("8");
    const body = (await response.json()) as { results: { url: string }[] };
    expect(body.results.length).toBeGreaterThan(0);
    const options = page.getByRole("option");
    await expect.poll(() => options.count()).toBe(body.results.length + 1);
    expect(await options.first().textContent()).toBe("Ask: xacro");
    const marks = await options.nth(1).locator("mark").allTextContents();
    expect(marks.some((mark) => /xacro/i.test(mark))).toBe(true);
    await screenshot(page, "search-desktop");

    await page.keyboard.press("ArrowDown");
    expect(await options.nth(1).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("Enter");
    const target = new URL(body.results[0]?.url ?? "", server.url);
    await page.waitForURL((url) => url.pathname === target.pathname);
    await page.context().close();
  });

  it("asks from the search box's Ask row, shows the answer from its start, and opens the chat with ⌘I", async () => {
    const page = await openPage("/docs/ros2/topics");
    await launcherOf(page).click();
    await ask(page, "What is a node?");
    await waitForAnswer(page, /node/i);
    await page.keyboard.press("Escape");

    await page.keyboard.press("Control+k");
    await searchBoxOf(page).fill("How does a robot keep from falling over while standing?");
    await page
      .getByRole("option", { name: /^Ask: How does a robot keep from falling over/ })
      .waitFor();
    await page.keyboard.press("Enter");
    await waitForAnswer(page, /support polygon|centre of mass|center of mass/i);
    // The new answer is read from its start: its top is in view, not scrolled past.
    const layout = await lastAnswer(page).evaluate((answer) => {
      const list = answer.closest(".messages") as HTMLElement;
      const box = list.getBoundingClientRect();
      return {
        answerTop: answer.getBoundingClientRect().top,
        listTop: box.top,
        listBottom: box.bottom,
        scrollable: list.scrollHeight > list.clientHeight,
      };
    });
    expect(layout.scrollable).toBe(true);
    expect(layout.answerTop).toBeGreaterThanOrEqual(layout.listTop);
    expect(layout.answerTop).toBeLessThan(layout.listBottom - 40);

    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.keyboard.press("ControlOrMeta+i");
    const input = page.getByRole("textbox", { name: "Your question" });
    await input.waitFor();
    expect(await hasFocus(input)).toBe(true);
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.context().close();
  });

  it("opens as a side panel: a drawer on the right on a desktop, the whole screen on a phone", async () => {
    const page = await openPage("/docs/humanoids/zmp");
    await useSidePanel(page);
    await launcherOf(page).click();
    const drawer = page.getByRole("dialog", { name: /Ask Robotics Primer/ });
    const box = await drawer.boundingBox();
    expect(box).toMatchObject({ y: 0, height: 860 });
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBe(1280);
    expect(box?.width).toBeLessThanOrEqual(420);
    expect(await drawer.getAttribute("aria-modal")).toBeNull();
    await ask(page, "What is the zero moment point?");
    await waitForAnswer(page, /moment|ZMP/i);
    await screenshot(page, "side-panel-desktop");
    await page.context().close();

    const context = await browser.newContext({ ...devices["Pixel 7"] });
    const phone = await context.newPage();
    await phone.goto(`${server.url}/docs/humanoids/zmp`);
    await launcherOf(phone).waitFor();
    await useSidePanel(phone);
    await launcherOf(phone).tap();
    const width = await phone.evaluate(() => screen.width);
    const phoneBox = await phone.getByRole("dialog").boundingBox();
    expect(phoneBox).toMatchObject({ x: 0, width });
    await screenshot(phone, "side-panel-phone");

    await phone.getByRole("button", { name: "Search or ask" }).tap();
    await searchBoxOf(phone).fill("zero moment");
    await expect.poll(() => phone.getByRole("option").count()).toBeGreaterThan(1);
    const searchBox = await phone.getByRole("dialog", { name: "Search or ask" }).boundingBox();
    expect(searchBox).toMatchObject({ x: 0, width });
    await screenshot(phone, "search-phone");
    await context.close();
  });

  it("offers starter questions, then follow-ups under the answer; each asks with one press", async () => {
    const page = await openPage("/docs");
    const starters = ["What is a topic?", "What is a URDF?"];
    await page.route("**/suggestions", (route) => route.fulfill({ json: { questions: starters } }));
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/chat/stream")) sent.push(request.postData() ?? "");
    });

    await launcherOf(page).click();
    const starterList = page.getByRole("list", { name: "Try asking" });
    await starterList.getByRole("button", { name: "What is a topic?" }).click();
    await waitForAnswer(page, /topic/i);
    // The follow-ups are the server's: the sections after the one the answer quotes.
    const followUpList = lastAnswer(page).getByRole("list", { name: "Ask next" });
    const followUps = await followUpList.getByRole("button").allTextContents();
    expect(followUps.length).toBeGreaterThanOrEqual(2);
    expect(followUps.every((question) => question.endsWith("?"))).toBe(true);
    const first = followUps[0] ?? "";
    await followUpList.getByRole("button", { name: first }).click();
    await expect.poll(() => page.getByRole("article", { name: "Answer" }).count()).toBe(2);
    await expect
      .poll(() => sent.map((body) => JSON.parse(body).query))
      .toEqual(["What is a topic?", first]);
    await page.context().close();
  });

  it("answers a suggested question with the section it names", async () => {
    const page = await openPage("/docs");
    // A suggestion asks about a heading as the server words it (answer/suggestions.ts).
    const suggested = "What should I know about connecting ROS 2 and gazebo?";
    await page.route("**/suggestions", (route) =>
      route.fulfill({ json: { questions: [suggested] } }),
    );
    await launcherOf(page).click();
    await page
      .getByRole("list", { name: "Try asking" })
      .getByRole("button", { name: suggested })
      .click();
    await waitForAnswer(page, /Gazebo/);
    // The answer opens under that section's heading, not under a page that mentions its words.
    expect(await lastAnswer(page).locator("strong").first().textContent()).toMatch(
      /› Connecting ROS 2 and Gazebo$/,
    );
    await page.context().close();
  });

  it("copies an answer as Markdown with its sources as absolute links", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/docs`);
    await launcherOf(page).click();
    await ask(page, "What is a URDF?");
    await waitForAnswer(page, /URDF/);
    const copy = lastAnswer(page).getByRole("button", { name: "Copy answer as Markdown" });
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe("Copied");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/URDF/);
    expect(copied).toContain("\n\nSources:\n\n1. [");
    expect(copied).toContain(`](${server.url}/docs/`);
    await context.close();
  });

  it("offers 'Ask about this' for a selection made by touch on a phone", async () => {
    const context = await browser.newContext({ ...devices["Pixel 7"] });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/docs/humanoids/zmp`);
      await launcherOf(page).waitFor();
      // A long press and a dragged handle: selectionchange events, and no mouseup or keyup.
      const selected = await page.evaluate(() => {
        const text = document.querySelector("article p")?.firstChild;
        if (!text?.textContent) return "";
        const end = text.textContent.indexOf(". ") + 1 || text.textContent.length;
        const selection = window.getSelection();
        const range = document.createRange();
        range.setStart(text, 0);
        range.setEnd(text, end);
        selection?.removeAllRanges();
        selection?.addRange(range);
        return selection?.toString() ?? "";
      });
      expect(selected.length).toBeGreaterThan(20);
      await page.getByRole("button", { name: "Ask about this" }).tap();
      const panel = page.getByRole("dialog");
      await panel.getByText(/Asking about your selection/).waitFor();
      expect(await panel.textContent()).toContain(selected.slice(0, 40));
    } finally {
      await context.close();
    }
  });

  it("has no serious or critical accessibility violations (axe) in any state", async () => {
    const page = await openPage("/docs/ros2/topics");
    const axeSource = await readFile(AXE_SOURCE, "utf8");
    const violations: unknown[] = [];
    const check = async (state: string) => {
      // Evaluated through the DevTools protocol: the page's Content-Security-Policy allows no
      // inline script tag, and the check must not weaken it.
      if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
      const found = await page.evaluate(async () => {
        type AxeResult = {
          violations: {
            id: string;
            impact: string | null;
            help: string;
            nodes: { target: unknown[] }[];
          }[];
        };
        const axe = (window as unknown as { axe: { run(context: Document): Promise<AxeResult> } })
          .axe;
        const result = await axe.run(document);
        return result.violations
          .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => ({
            id: violation.id,
            help: violation.help,
            targets: violation.nodes.map((node) => JSON.stringify(node.target)),
          }));
      });
      violations.push(...found.map((violation) => ({ state, ...violation })));
    };

    await check("closed");
    await launcherOf(page).click();
    await page.getByRole("textbox", { name: "Your question" }).waitFor();
    await check("open, empty");
    await ask(page, "What is a topic?");
    await waitForAnswer(page, /topic/i);
    await check("answer shown");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+k");
    await searchBoxOf(page).fill("topic");
    await expect.poll(() => page.getByRole("option").count()).toBeGreaterThan(1);
    await check("search box with results");
    await page.keyboard.press("Escape");
    await useSidePanel(page);
    await launcherOf(page).click();
    await lastAnswer(page).waitFor();
    await check("side panel");
    await page.evaluate(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await check("side panel, dark");
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
