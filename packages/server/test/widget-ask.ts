import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";

/**
 * Opens the sample book's widget on `page`, asks `question` and waits until the answer's text
 * matches `expected`; returns the answer.
 */
export async function askInWidget(
  page: Page,
  question: string,
  expected: RegExp,
): Promise<Locator> {
  await page.getByRole("button", { name: /Ask Robotics Primer/ }).click();
  const box = page.getByRole("textbox");
  await box.fill(question);
  await box.press("Enter");
  const answer = page.getByRole("article", { name: "Answer" }).last();
  await expect
    .poll(async () => (await answer.textContent()) ?? "", { timeout: 30_000 })
    .toMatch(expected);
  return answer;
}
