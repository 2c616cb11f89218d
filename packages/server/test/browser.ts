import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, driven by playwright-core (no browser is ever downloaded). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Under CI=true a missing browser fails the suite instead of skipping it. */
export function requireChromium(): boolean {
  const available = existsSync(CHROMIUM_PATH);
  if (!available && process.env.CI)
    throw new Error(`Chromium is required under CI but missing at ${CHROMIUM_PATH}`);
  return available;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}
