import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The engine reads no clock and draws no random number of its own: the host passes them in
 * (EngineHost, static/host.ts). Node built-ins and database drivers are kept out by the
 * dependency rule (`npm run lint:deps`); this checks what an import list does not show.
 */
const SOURCES = import.meta.dirname;

const CLOCK_OR_RANDOM = new RegExp(
  [
    /\bDate\.now\(|\bnew Date\(|\bperformance\.now\(/,
    /\bMath\.random\(|\bgetRandomValues\(|\brandomUUID\(/,
  ]
    .map((part) => part.source)
    .join("|"),
);
/** Node's globals, absent in browsers and Web Workers. */
const NODE_GLOBALS = /\b(?:process\.\w|Buffer\.\w|__dirname|__filename|require\()/;

/** The one module that reads the runtime's clock and random numbers, for the static routes. */
const HOST = "static/host.ts";

async function sources(): Promise<string[]> {
  const files = await readdir(SOURCES, { recursive: true });
  return files
    .filter((file) => file.endsWith(".ts") && !/\.test\.ts$|test-builders\.ts$/.test(file))
    .map((file) => file.split(path.sep).join("/"));
}

/** The lines of `file` matching `pattern`, comments left out. */
async function matching(file: string, pattern: RegExp): Promise<string[]> {
  const text = await readFile(path.join(SOURCES, file), "utf8");
  return text
    .split("\n")
    .filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line) && pattern.test(line))
    .map((line) => `${file}: ${line.trim()}`);
}

describe("the engine's sources", () => {
  it("read a clock or draw random numbers only in the static host", async () => {
    const files = (await sources()).filter((file) => file !== HOST);
    expect(files.length).toBeGreaterThan(50);
    const found = await Promise.all(files.map((file) => matching(file, CLOCK_OR_RANDOM)));
    expect(found.flat()).toEqual([]);
  });

  it("use none of Node's globals", async () => {
    const files = await sources();
    const found = await Promise.all(files.map((file) => matching(file, NODE_GLOBALS)));
    expect(found.flat()).toEqual([]);
  });
});
