/// <reference lib="dom" />
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Config } from "../src/config/config.ts";
import { percentile } from "../src/eval/evaluate.ts";
import { startServer } from "../src/http/server.ts";
import { launchChromium } from "../test/browser.ts";

/** Bundle sizes of the widget builds, and how soon the widget is usable on a demo page. */
export async function benchWidget(config: Config, loads = 15) {
  const dist = (file: string) =>
    fileURLToPath(new URL(`../../widget/dist/${file}`, import.meta.url));
  const sizes: Record<string, { raw: number; gzip: number }> = {};
  for (const file of ["lectern.js", "lectern-widget.js"]) {
    const bytes = await readFile(dist(file));
    sizes[file] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  const server = await startServer(config);
  const browser = await launchChromium();
  const timings: number[] = [];
  try {
    for (let load = 0; load < loads + 2; load++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/docs/ros2/topics`);
      // From navigation start until the launcher button exists in the widget's shadow root.
      const ready = await page.waitForFunction(() => {
        const host = document.querySelector("lectern-chat, [data-lectern-chat]");
        return host?.shadowRoot?.querySelector("button") ? performance.now() : false;
      });
      if (load >= 2) timings.push((await ready.jsonValue()) as number);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  timings.sort((a, b) => a - b);
  return {
    sizes,
    interactiveP50Ms: percentile(timings, 0.5),
    interactiveP95Ms: percentile(timings, 0.95),
    loads,
  };
}
