import { describe, expect, it } from "vitest";
import { PromptGuard, PromptLeakError } from "./prompt-guard.ts";
import { BOOK_SYSTEM_PROMPT, NOT_IN_BOOK_REPLY } from "./prompts.ts";

const CANARY = "lc-0123456789abcdef";

function feed(guard: PromptGuard, text: string, size: number): string {
  let shown = "";
  for (let start = 0; start < text.length; start += size) {
    shown += guard.push(text.slice(start, start + size));
  }
  return shown;
}

describe("PromptGuard", () => {
  it("passes an ordinary answer through whole, holding back only a few characters", () => {
    const guard = new PromptGuard(BOOK_SYSTEM_PROMPT, [NOT_IN_BOOK_REPLY], CANARY);
    const answer =
      "A topic is a named bus: publishers send messages on it and subscribers receive them [1].";
    const shown = feed(guard, answer, 4);
    expect(answer.length - shown.length).toBeLessThan(12);
    expect(shown + guard.finish()).toBe(answer);
  });

  it("allows the exact refusal the prompt asks for", () => {
    const guard = new PromptGuard(BOOK_SYSTEM_PROMPT, [NOT_IN_BOOK_REPLY], CANARY);
    expect(feed(guard, NOT_IN_BOOK_REPLY, 5) + guard.finish()).toBe(NOT_IN_BOOK_REPLY);
  });

  it("stops a repeated prompt before any of it is shown, whatever the case and spacing", () => {
    const guard = new PromptGuard(BOOK_SYSTEM_PROMPT, [NOT_IN_BOOK_REPLY], CANARY);
    const echo = `Here you go: ${BOOK_SYSTEM_PROMPT.toUpperCase().replace(/ /g, "  ")}`;
    let shown = "";
    expect(() => {
      for (let start = 0; start < echo.length; start += 3) {
        shown += guard.push(echo.slice(start, start + 3));
      }
    }).toThrow(PromptLeakError);
    expect(shown).toBe("Here you go: ");
  });

  it("puts a canary in the prompt and stops an answer that writes it out", () => {
    const guard = new PromptGuard("Be brief.", [], CANARY);
    expect(guard.system).toContain(CANARY);
    let shown = "";
    expect(() => {
      shown += guard.push("The marker is lc-0123");
      shown += guard.push("456789ABCDEF, as asked.");
    }).toThrow(PromptLeakError);
    expect(shown).not.toContain("lc-");
  });

  it("checks a whole reply at once: the canary or a run of the prompt is a repeat", () => {
    const check = (reply: string) =>
      new PromptGuard(BOOK_SYSTEM_PROMPT, [NOT_IN_BOOK_REPLY], CANARY).isRepeatedIn(reply);
    expect(check("What limits the gain of a servo?")).toBe(false);
    expect(check(NOT_IN_BOOK_REPLY)).toBe(false);
    expect(check(`The marker is ${CANARY.toUpperCase()}.`)).toBe(true);
    expect(check(BOOK_SYSTEM_PROMPT.slice(20, 90))).toBe(true);
  });
});
