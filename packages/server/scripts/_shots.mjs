import { chromium, devices } from "playwright-core";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"] });
const questions = ["My subscriber never receives any messages, what should I check?", "How do I publish messages on a topic?"];
for (const [name, ctxOpts] of [["desktop", { viewport: { width: 1280, height: 860 } }], ["phone", { ...devices["Pixel 7"] }]]) {
  const context = await browser.newContext(ctxOpts);
  const page = await context.newPage();
  await page.goto("http://127.0.0.1:3456/docs/ros2/topics");
  const open = page.getByRole("button", { name: /Ask Robotics Primer/ });
  await open.waitFor();
  await open.click();
  for (const [i, q] of questions.entries()) {
    const box = page.getByRole("textbox");
    await box.fill(q);
    await box.press("Enter");
    await page.waitForTimeout(2500);
    await page.screenshot({ path: `/tmp/shots/${name}-${i}.png` });
    // scroll the answer list down a bit
    await page.getByRole("article", { name: "Answer" }).last().evaluate((el) => el.scrollIntoView({ block: "end" }));
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/shots/${name}-${i}b.png` });
  }
  await context.close();
}
await browser.close();
