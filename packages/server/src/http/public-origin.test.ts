import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { absoluteUrl, publicOrigin } from "./public-origin.ts";

async function originOf(
  url: string,
  headers: Record<string, string>,
  config: { trustProxy?: boolean } = {},
) {
  const app = new Hono();
  app.get("*", (context) =>
    context.text(
      publicOrigin(context, {
        rateLimit: { trustProxy: config.trustProxy ?? false },
      }) ?? "(none)",
    ),
  );
  const response = await app.request(url, { headers });
  return response.text();
}

describe("publicOrigin", () => {
  it.each([
    {
      why: "the request's own origin",
      url: "http://127.0.0.1:3000/chat",
      headers: {},
      expected: "http://127.0.0.1:3000",
    },
    {
      why: "the embedding site (a CORS origin)",
      url: "http://api.internal:3000/chat",
      headers: { origin: "https://docs.example.com" },
      expected: "https://docs.example.com",
    },
    {
      why: "the asking page's origin: its own server's, behind whatever proxy",
      url: "http://127.0.0.1:3000/chat",
      headers: { origin: "https://docs.example.com" },
      expected: "https://docs.example.com",
    },
    {
      why: "not an opaque origin",
      url: "http://127.0.0.1:3000/chat",
      headers: { origin: "null" },
      expected: "http://127.0.0.1:3000",
    },
    {
      why: "not an Origin header that is no origin",
      url: "http://127.0.0.1:3000/chat",
      headers: { origin: "https://docs.example.com/path" },
      expected: "http://127.0.0.1:3000",
    },
    {
      why: "the forwarded scheme and host behind a trusted proxy",
      url: "http://10.0.0.5:3000/chat",
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "docs.example.com" },
      config: { trustProxy: true },
      expected: "https://docs.example.com",
    },
    {
      why: "not forwarded headers without TRUST_PROXY",
      url: "http://10.0.0.5:3000/chat",
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "docs.example.com" },
      expected: "http://10.0.0.5:3000",
    },
    {
      why: "not a forwarded host that is no host name",
      url: "http://10.0.0.5:3000/chat",
      headers: { "x-forwarded-host": "evil.example/path?x=" },
      config: { trustProxy: true },
      expected: "http://10.0.0.5:3000",
    },
  ])("takes $why", async ({ url, headers, config, expected }) => {
    expect(await originOf(url, headers, config)).toBe(expected);
  });
});

describe("absoluteUrl", () => {
  it.each([
    [
      "/docs/ros2/topics#qos",
      "https://docs.example.com",
      "https://docs.example.com/docs/ros2/topics#qos",
    ],
    ["https://book.example/docs/a", "https://docs.example.com", "https://book.example/docs/a"],
    ["", "https://docs.example.com", ""],
    ["//cdn.example/x", "https://docs.example.com", "//cdn.example/x"],
    ["/docs/a", undefined, "/docs/a"],
  ])("%s against %s", (url, origin, expected) => {
    expect(absoluteUrl(url, origin)).toBe(expected);
  });
});
