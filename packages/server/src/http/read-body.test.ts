import { isLecternError } from "@lectern/engine/errors";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.ts";
import { readBody } from "./read-body.ts";
import { readJsonObject } from "./request.ts";

/** A route that reads its body twice under a 1 KiB limit and answers with the sizes it got. */
function app() {
  const routes = new Hono();
  routes.post("/", async (context) => {
    try {
      const first = await readBody(context, 1_024);
      const second = await readBody(context, 1_024);
      return context.json({ first: first.byteLength, same: first === second });
    } catch (error) {
      if (!isLecternError(error)) throw error;
      return context.json({ code: error.code, details: error.details }, 413);
    }
  });
  return routes;
}

/** A body of `chunks` chunks of 256 bytes that counts how many the server pulled. */
function countedBody(chunks: number) {
  const counter = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled === chunks) return controller.close();
      counter.pulled += 1;
      controller.enqueue(new Uint8Array(256));
    },
  });
  return { body, counter };
}

describe("readBody", () => {
  it("stops reading a streamed body at the limit and answers PAYLOAD_TOO_LARGE", async () => {
    const { body, counter } = countedBody(10_000); // 2.5 MB offered
    const response = await app().request("/", {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      details: { max_bytes: 1_024 },
    });
    expect(response.headers.get("connection")).toBe("close");
    // 1 KiB is 4 chunks; the fifth crosses the limit (a stream may have pulled one ahead).
    expect(counter.pulled).toBeLessThanOrEqual(6);
  });

  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    const { body, counter } = countedBody(1);
    const response = await app().request("/", {
      method: "POST",
      body,
      duplex: "half",
      headers: { "content-length": "5000000" },
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(counter.pulled).toBeLessThanOrEqual(1);
  });

  it("counts bytes, not characters, and gives a second read the same bytes", async () => {
    const atLimit = await app().request("/", { method: "POST", body: "a".repeat(1_024) });
    expect(await atLimit.json()).toEqual({ first: 1_024, same: true });
    // 400 characters, 1,200 bytes in UTF-8.
    const multiByte = await app().request("/", { method: "POST", body: "€".repeat(400) });
    expect(multiByte.status).toBe(413);
  });
});

describe("readJsonObject", () => {
  /** A route that reads the body as JSON twice, as POST /chat does, and says what it got. */
  function jsonApp() {
    const routes = new Hono();
    routes.post("/", async (context) => {
      const config = loadConfig({ env: {} });
      const reads = [readJsonObject(context, config), readJsonObject(context, config)];
      const settled = await Promise.allSettled(reads);
      const [first, second] = settled.map((each) =>
        each.status === "fulfilled" ? each.value : (each.reason as { code: string }).code,
      );
      return context.json({ first, same: first === second });
    });
    return routes;
  }

  it.each([
    { body: '{"query":"a question"}', first: { query: "a question" } },
    { body: '{"query":"lone \\ud800"}', first: { query: "lone \ufffd" } },
    { body: "{not json", first: "INVALID_JSON" },
    { body: "[1, 2]", first: "VALIDATION_ERROR" },
  ])("reads $body once: the second read gets the same object or error", async (row) => {
    const response = await jsonApp().request("/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: row.body,
    });
    expect(await response.json()).toEqual({ first: row.first, same: true });
  });
});
