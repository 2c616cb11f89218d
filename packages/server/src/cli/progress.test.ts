import { afterEach, describe, expect, it, vi } from "vitest";
import { createFakeClock } from "../../test/doubles/fake-clock.ts";
import { createProgressBar } from "./progress.ts";

function fakeTerminal(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, write: (text: string) => writes.push(text) };
  return { stream: stream as unknown as NodeJS.WriteStream, writes };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the ingest progress bar", () => {
  it("redraws at most every 50 ms, and always draws the last file", () => {
    vi.stubEnv("CI", "");
    const clock = createFakeClock();
    const terminal = fakeTerminal(true);
    const bar = createProgressBar(terminal.stream, "Ingesting", clock.now);
    bar.update({ done: 1, total: 4, file: "a.md" });
    clock.advance(49);
    bar.update({ done: 2, total: 4, file: "b.md" });
    clock.advance(1);
    bar.update({ done: 3, total: 4, file: "c.md" });
    bar.update({ done: 4, total: 4, file: "d.md" });
    expect(terminal.writes).toEqual([
      `\r\x1b[2KIngesting ${"█".repeat(7)}${"░".repeat(21)} 1/4 a.md`,
      `\r\x1b[2KIngesting ${"█".repeat(21)}${"░".repeat(7)} 3/4 c.md`,
      `\r\x1b[2KIngesting ${"█".repeat(28)} 4/4 d.md`,
    ]);
    bar.finish();
    expect(terminal.writes.at(-1)).toBe("\r\x1b[2K");
  });

  it.each([
    { output: "piped", isTTY: false, ci: "" },
    { output: "in CI", isTTY: true, ci: "true" },
  ])("stays silent when output is $output", ({ isTTY, ci }) => {
    vi.stubEnv("CI", ci);
    const terminal = fakeTerminal(isTTY);
    const bar = createProgressBar(terminal.stream, "Ingesting", createFakeClock().now);
    bar.update({ done: 1, total: 1, file: "a.md" });
    bar.finish();
    expect(terminal.writes).toEqual([]);
  });
});
