import { once } from "node:events";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf } from "./client-link.ts";

/** What a route saw of its client: when it was watched, and what `watch` reported. */
interface Seen {
  gone: unknown[];
  answer: (body: string) => void;
  stop: () => void;
  /** Watches the same client again, now; what that watch reports. */
  watchAgain: () => unknown[];
}

/** A real server whose one route watches its client and answers when the test says so. */
async function watchingServer(): Promise<{ url: string; server: ServerType; seen: Promise<Seen> }> {
  const app = new Hono();
  let tell: (seen: Seen) => void = () => {};
  const seen = new Promise<Seen>((resolve) => {
    tell = resolve;
  });
  app.post("/ask", (context) => {
    const gone: unknown[] = [];
    const stop = clientOf(context).watch((reason) => gone.push(reason));
    return new Promise<Response>((resolve) => {
      const watchAgain = () => {
        const later: unknown[] = [];
        clientOf(context).watch((reason) => later.push(reason));
        return later;
      };
      tell({ gone, stop, watchAgain, answer: (body) => resolve(context.text(body)) });
    });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/ask`, server, seen };
}

function post(url: string) {
  const sent = httpRequest(url, { method: "POST", headers: { "content-type": "text/plain" } });
  sent.on("error", () => {});
  sent.end("question");
  const answered = new Promise<string>((resolve) => {
    sent.on("response", (response) => {
      let body = "";
      response.on("data", (part: Buffer) => {
        body += part.toString();
      });
      response.on("end", () => resolve(body));
    });
  });
  return { sent, answered };
}

/** Lets the server's socket see what the client did. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("clientOf: the client of a request served by Node, told by its response's close", () => {
  let server: ServerType | undefined;
  afterEach(async () => {
    server?.close();
    server = undefined;
  });

  const cases: {
    name: string;
    act: (parts: { seen: Seen; sent: ReturnType<typeof post> }) => Promise<void>;
    gone: number;
  }[] = [
    {
      name: "the client goes away before the answer",
      act: async ({ sent }) => {
        sent.sent.destroy();
        await settle();
      },
      gone: 1,
    },
    {
      name: "the answer is written whole, then the connection closes",
      act: async ({ seen, sent }) => {
        seen.answer("done");
        expect(await sent.answered).toBe("done");
        sent.sent.destroy();
        await settle();
      },
      gone: 0,
    },
    {
      name: "the watch is stopped, then the client goes away",
      act: async ({ seen, sent }) => {
        seen.stop();
        sent.sent.destroy();
        await settle();
      },
      gone: 0,
    },
  ];

  it.each(cases)("$name", async (row) => {
    const started = await watchingServer();
    server = started.server;
    const sent = post(started.url);
    const seen = await started.seen;
    await row.act({ seen, sent });
    expect(seen.gone).toHaveLength(row.gone);
    if (row.gone > 0) expect(seen.gone[0]).toBeInstanceOf(Error);
    seen.answer("late");
  });

  it("tells at once when watched after the client has gone", async () => {
    const started = await watchingServer();
    server = started.server;
    const sent = post(started.url);
    const seen = await started.seen;
    sent.sent.destroy();
    await settle();
    expect(seen.gone).toHaveLength(1);
    expect(seen.watchAgain()).toHaveLength(1);
    seen.answer("late");
  });
});

describe("clientOf: a request that did not come through Node is told by its signal", () => {
  const cases: { name: string; abort: "before" | "after" | "never"; gone: number }[] = [
    { name: "aborted before it is watched", abort: "before", gone: 1 },
    { name: "aborted while watched", abort: "after", gone: 1 },
    { name: "never aborted", abort: "never", gone: 0 },
  ];

  it.each(cases)("$name", async (row) => {
    const controller = new AbortController();
    const gone: unknown[] = [];
    const app = new Hono();
    app.post("/ask", (context) => {
      if (row.abort === "before") controller.abort(new Error("before"));
      clientOf(context).watch((reason) => gone.push(reason));
      if (row.abort === "after") controller.abort(new Error("after"));
      return context.text("ok");
    });
    const response = await app.request("/ask", { method: "POST", signal: controller.signal });
    expect(response.status).toBe(200);
    expect(gone).toHaveLength(row.gone);
  });
});
