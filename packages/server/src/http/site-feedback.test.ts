import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { indexOf } from "@lectern/engine/search/test-builders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, expectError, openSampleBook, postJson } from "../../test/http-fixture.ts";
import type { Lectern } from "../lectern.ts";
import { FeedbackStore } from "../store/feedback-store.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { SqlHistoryStore } from "../store/sql-history-store.ts";
import { createSite } from "./site.ts";
import { ChatResponseSchema, ConversationHistoryResponseSchema, ErrorBodySchema } from "./wire.ts";

let lectern: Lectern;
let cleanup: () => Promise<void>;
let scriptDir: string;
beforeAll(async () => {
  ({ lectern, cleanup } = await openSampleBook());
  scriptDir = await mkdtemp(path.join(tmpdir(), "lectern-widget-"));
  await writeFile(path.join(scriptDir, "lectern.js"), "console.log('widget');\n");
});
afterAll(async () => {
  await cleanup();
  await rm(scriptDir, { recursive: true, force: true });
});

function app(env: Record<string, string> = {}) {
  return createTestApp(lectern, {
    history: new MemoryHistoryStore(),
    env: { RATE_LIMIT_ENABLED: "false", ...env },
    deps: {
      site: createSite({ store: lectern.store, widgetScript: path.join(scriptDir, "lectern.js") }),
      feedback: new FeedbackStore(lectern.db),
    },
  }).app;
}

describe("demo book site", () => {
  it("serves the book to browsers at / and keeps JSON for API clients", async () => {
    const site = app();
    const html = await site.request("/", {
      headers: { accept: "text/html,application/xhtml+xml" },
    });
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
    const body = await html.text();
    expect(body).toContain("<h1>Robotics Primer</h1>");
    expect(body).toMatch(
      /<script src="\/lectern\.js" data-api="http:\/\/localhost" [^>]*defer><\/script>/,
    );
    expect(body).toContain('href="/docs/ros2/topics"');
    const api = await site.request("/", { headers: { accept: "application/json" } });
    expect(((await api.json()) as { name: string }).name).toBe("Lectern");
  });

  it("sends security headers: a hash-based CSP on pages, nosniff, no framing, Vary: Accept on /", async () => {
    const site = app();
    const page = await site.request("/docs/ros2/topics", { headers: { accept: "text/html" } });
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).toMatch(/script-src 'self' 'sha256-[\w+/=]+'(;|$)/);
    expect(policy).toMatch(/style-src 'self' 'sha256-[\w+/=]+'(;|$)/);
    expect(policy).toMatch(/frame-ancestors 'none'/);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    // No inline event handler, which a hash cannot allow.
    expect(await page.text()).not.toMatch(/\son[a-z]+="/);

    for (const accept of ["text/html", "application/json"]) {
      const root = await site.request("/", { headers: { accept } });
      expect(root.headers.get("vary") ?? "", accept).toMatch(/\bAccept\b/i);
    }
    const api = await site.request("/health");
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    expect(api.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const missing = await site.request("/no/such/endpoint", { method: "POST" });
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("lets the configured sites frame its pages", async () => {
    const own = await app({ LECTERN_FRAME_ANCESTORS: "'self'" }).request("/", {
      headers: { accept: "text/html" },
    });
    expect(own.headers.get("content-security-policy")).toMatch(/frame-ancestors 'self'(;|$)/);
    expect(own.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const other = await app({
      LECTERN_FRAME_ANCESTORS: "'self',https://docs.example.com",
    }).request("/", { headers: { accept: "text/html" } });
    expect(other.headers.get("content-security-policy")).toMatch(
      /frame-ancestors 'self' https:\/\/docs\.example\.com(;|$)/,
    );
    // X-Frame-Options cannot name another origin; the CSP alone decides.
    expect(other.headers.get("x-frame-options")).toBeNull();
  });

  it("renders a page with the same heading anchors the citations use", async () => {
    const site = app();
    const body = await (
      await site.request("/docs/ros2/topics", { headers: { accept: "text/html" } })
    ).text();
    const chunks = [...indexOf(lectern).allChunks()].filter(
      (chunk) => chunk.filePath === "02-ros2-fundamentals/02-topics-and-messages.mdx",
    );
    const anchors = chunks
      .map((chunk) => chunk.url.split("#")[1])
      .filter((anchor): anchor is string => Boolean(anchor));
    expect(anchors.length).toBeGreaterThan(2);
    for (const anchor of anchors) expect(body).toContain(`id="${anchor}"`);
    expect(body).toContain('aria-current="page"');
    // Book text is escaped, never passed through as HTML.
    expect(body).not.toMatch(/<ros2_control>/);
    expect((await site.request("/docs/no/such/page")).status).toBe(404);
  });

  it("answers malformed percent-escapes in the path with 404 in the error shape, never 500", async () => {
    const site = app();
    const paths = [
      "/%ff",
      "/%%",
      "/%",
      "/docs/%E0%A4%A",
      "/%c0%af", // overlong UTF-8 for "/"
      "/%ed%a0%80", // a UTF-16 surrogate encoded as UTF-8
      "/docs/ros2/%zz",
      "/feedback/%c0%80",
    ];
    for (const target of paths) {
      for (const accept of ["text/html", "application/json"]) {
        const response = await site.request(target, { headers: { accept } });
        expect(response.status, `${target} (${accept})`).toBe(404);
        const body = ErrorBodySchema.parse(await response.json());
        expect(body.error_code).toBe("NOT_FOUND");
      }
    }
    // In a route's parameter, a malformed escape is a malformed value.
    const history = await site.request("/history/%ff");
    expect(history.status).toBe(400);
    expect(ErrorBodySchema.parse(await history.json()).error_code).toBe("INVALID_SESSION_ID");
  });

  it("serves the widget script with caching headers and answers 304 when unchanged", async () => {
    const site = app();
    const first = await site.request("/lectern.js");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/javascript/);
    expect(first.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^".+"$/);
    const again = await site.request("/lectern.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("text the database cannot store", () => {
  it("normalises NUL characters and lone surrogates in every text field before they are stored", async () => {
    const token = "a-long-enough-admin-token";
    const site = createTestApp(lectern, {
      history: new SqlHistoryStore(lectern.db),
      env: { RATE_LIMIT_ENABLED: "false", LECTERN_ADMIN_TOKEN: token },
      deps: { feedback: new FeedbackStore(lectern.db) },
    }).app;
    const dirty = (text: string) => `${text}\u0000 \ud800|\udfff`;
    const clean = (text: string) => `${text} \ufffd|\ufffd`;
    const asked = await postJson(site, "/chat", {
      query: dirty("What is a node?"),
      selected_text: dirty("A node is a process that computes."),
      source_url: dirty("https://book.example/docs/nodes"),
      filters: { section: dirty("Nodes") },
    });
    expect(asked.status).toBe(200);
    const answer = ChatResponseSchema.parse(await asked.json());
    expect(answer.metadata.original_query).toBe(clean("What is a node?"));
    const history = ConversationHistoryResponseSchema.parse(
      await (await site.request(`/history/${answer.session_id}`)).json(),
    );
    expect(history.entries[0]).toMatchObject({
      query: clean("What is a node?"),
      selected_text: clean("A node is a process that computes."),
    });
    expect(history.entries[0]?.sources[0]).toMatchObject({
      source_url: clean("https://book.example/docs/nodes"),
    });

    const stream = await postJson(site, "/chat/stream", {
      query: dirty("What is a topic?"),
      session_id: answer.session_id,
    });
    expect(await stream.text()).toMatch(/event: done/);

    const vote = await postJson(site, "/feedback", {
      session_id: answer.session_id,
      message_id: answer.message_id,
      rating: "down",
      comment: dirty("Too short"),
    });
    expect(vote.status).toBe(201);
    const exported = (await (
      await site.request("/feedback", { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { entries: { session_id: string; comment: string | null }[] };
    expect(exported.entries.find((entry) => entry.session_id === answer.session_id)).toMatchObject({
      comment: clean("Too short"),
    });
  });
});

describe("feedback", () => {
  it("stores a rating for an answer and exports it behind the admin token", async () => {
    const token = "a-long-enough-admin-token";
    const site = app({ LECTERN_ADMIN_TOKEN: token });
    const answer = ChatResponseSchema.parse(
      await (await postJson(site, "/chat", { query: "What is a node?" })).json(),
    );
    const vote = {
      session_id: answer.session_id,
      message_id: answer.message_id,
      rating: "down",
      comment: "Too short",
    };
    expect((await postJson(site, "/feedback", vote)).status).toBe(201);
    expect(
      (await postJson(site, "/feedback", { ...vote, rating: "up", comment: null })).status,
    ).toBe(201); // changes the vote

    expect((await site.request("/feedback")).status).toBe(401);
    expect(
      (
        await site.request("/feedback", {
          headers: { authorization: "Bearer wrong-token-of-some-length" },
        })
      ).status,
    ).toBe(401);
    // The right token, but not as `Bearer <token>`.
    expect((await site.request("/feedback", { headers: { authorization: token } })).status).toBe(
      401,
    );
    const exported = (await (
      await site.request("/feedback", { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      entries: { session_id: string; message_id: string; rating: string; comment: string | null }[];
    };
    const mine = exported.entries.filter((entry) => entry.session_id === answer.session_id);
    expect(mine).toEqual([
      expect.objectContaining({ message_id: answer.message_id, rating: "up", comment: null }),
    ]);
    const csv = await (
      await site.request("/feedback?format=csv", { headers: { authorization: `Bearer ${token}` } })
    ).text();
    expect(csv.split("\n")[0]).toBe("session_id,message_id,rating,comment,created_at");
    expect(csv).toContain(`"${answer.session_id}"`);
  });

  it("accepts a vote only on an answer given in that session", async () => {
    const site = app();
    const requestId = "1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b";
    const answered = await postJson(
      site,
      "/chat",
      { query: "What is a node?" },
      { "x-request-id": requestId },
    );
    const answer = ChatResponseSchema.parse(await answered.json());
    const other = ChatResponseSchema.parse(
      await (await postJson(site, "/chat", { query: "What is a topic?" })).json(),
    );
    const vote = (sessionId: string, messageId: string | null | undefined) =>
      postJson(site, "/feedback", { session_id: sessionId, message_id: messageId, rating: "up" });
    for (const [sessionId, messageId] of [
      [answer.session_id, "7c6b5a49-3827-4161-8efd-cba987654321"], // no such answer
      [answer.session_id, requestId], // the request id is not the answer's id
      [answer.session_id, other.message_id], // an answer of another session
      ["5f4e3d2c-1b0a-4987-8654-3210fedcba98", answer.message_id], // an unknown session
      [answer.session_id, "not an id"],
    ] as const) {
      const refused = await vote(sessionId, messageId);
      expect(refused.status, `${sessionId} ${messageId}`).toBe(404);
      expect(ErrorBodySchema.parse(await refused.json()).error_code).toBe("MESSAGE_NOT_FOUND");
    }
    expect((await vote(answer.session_id, answer.message_id)).status).toBe(201);
  });

  it("rate-limits votes and history reads per session and per client, with Retry-After", async () => {
    const site = app({
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_PER_SESSION_BURST: "2",
      RATE_LIMIT_PER_SESSION_PER_MINUTE: "6",
    });
    const answer = ChatResponseSchema.parse(
      await (await postJson(site, "/chat", { query: "What is a node?" })).json(),
    );
    const vote = () =>
      postJson(site, "/feedback", {
        session_id: answer.session_id,
        message_id: answer.message_id,
        rating: "up",
      });
    expect((await vote()).status).toBe(201);
    expect((await vote()).status).toBe(201);
    const limited = await vote();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(ErrorBodySchema.parse(await limited.json()).error_code).toBe("RATE_LIMITED");

    const read = () => site.request(`/history/${answer.session_id}`);
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    const readLimited = await read();
    expect(readLimited.status).toBe(429);
    expect(Number(readLimited.headers.get("retry-after"))).toBeGreaterThan(0);
    const deleteLimited = await site.request(`/history/${answer.session_id}`, { method: "DELETE" });
    expect(deleteLimited.status).toBe(429);

    const perIp = app({ RATE_LIMIT_ENABLED: "true", RATE_LIMIT_PER_IP_BURST: "3" });
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) {
      statuses.push((await perIp.request(`/history/${randomUUID()}`)).status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it("exports comments so that a spreadsheet shows formulas as text", async () => {
    const token = "a-long-enough-admin-token";
    const site = app({ LECTERN_ADMIN_TOKEN: token });
    const comments = [
      '=HYPERLINK("https://evil.example","click")',
      "+1+2",
      "-2+3",
      "@SUM(A1)",
      "fine, =not at the start",
    ];
    const sessions: string[] = [];
    for (const comment of comments) {
      const answer = ChatResponseSchema.parse(
        await (await postJson(site, "/chat", { query: "What is a node?" })).json(),
      );
      sessions.push(answer.session_id);
      const vote = await postJson(site, "/feedback", {
        session_id: answer.session_id,
        message_id: answer.message_id,
        rating: "down",
        comment,
      });
      expect(vote.status).toBe(201);
    }
    const csv = await (
      await site.request("/feedback?format=csv", { headers: { authorization: `Bearer ${token}` } })
    ).text();
    const lines = sessions.map(
      (sessionId) => csv.split("\n").find((row) => row.startsWith(`"${sessionId}"`)) ?? "",
    );
    const expected = [
      `'=HYPERLINK(""https://evil.example"",""click"")`,
      "'+1+2",
      "'-2+3",
      "'@SUM(A1)",
      "fine, =not at the start",
    ];
    // The comment is the cell before created_at, the last one.
    for (const [index, line] of lines.entries()) {
      expect(line).toMatch(new RegExp(`,"${escapeRegExp(expected[index] ?? "")}","[^"]+"$`));
    }
    // The JSON export keeps the comment as written.
    const json = (await (
      await site.request("/feedback", { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { entries: { session_id: string; comment: string }[] };
    expect(json.entries.find((entry) => entry.session_id === sessions[0])?.comment).toBe(
      comments[0],
    );
  });

  it("answers 429 with Retry-After to a client after 10 wrong admin tokens, the right one included", async () => {
    const token = "a-long-enough-admin-token";
    const site = app({ LECTERN_ADMIN_TOKEN: token, RATE_LIMIT_ENABLED: "true" });
    const exportWith = (authorization: string) =>
      site.request("/feedback", { headers: { authorization } });
    // The right token costs nothing, however often it is sent.
    for (let request = 0; request < 12; request++) {
      expect((await exportWith(`Bearer ${token}`)).status).toBe(200);
    }
    // Guesses sent at once are all counted.
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, guess) => exportWith(`Bearer wrong-guess-number-${guess}`)),
    );
    expect(guesses.map((response) => response.status).sort()).toEqual([
      ...Array(10).fill(401),
      429,
      429,
    ]);
    const limited = await exportWith(`Bearer ${token}`);
    await expectError(limited, 429, "RATE_LIMITED");
    // One more guess a minute (59 if a second has passed since the last wrong one).
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    // The admin page counts in the same bucket.
    const page = await site.request("/admin", { headers: { authorization: `Bearer ${token}` } });
    await expectError(page, 429, "RATE_LIMITED");
  });

  it("limits a vote to 16 KiB of bytes, not of characters", async () => {
    const site = app();
    // 6,000 characters, 18,000 bytes in UTF-8: over the limit however it is counted on the wire.
    const response = await postJson(site, "/feedback", {
      session_id: randomUUID(),
      message_id: "m",
      rating: "up",
      padding: "€".repeat(6_000),
    });
    expect(response.status).toBe(413);
    expect(ErrorBodySchema.parse(await response.json()).error_code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("validates the vote", async () => {
    const site = app();
    const code = async (body: unknown) =>
      ErrorBodySchema.parse(await (await postJson(site, "/feedback", body)).json()).error_code;
    expect(await code({ session_id: "x", message_id: "m", rating: "up" })).toBe(
      "INVALID_SESSION_ID",
    );
    expect(
      await code({
        session_id: "2f0c6a58-3b8e-4c1a-9d7e-5a4b3c2d1e0f",
        message_id: "m",
        rating: "meh",
      }),
    ).toBe("VALIDATION_ERROR");
    expect(await code("{broken")).toBe("INVALID_JSON");
    // Without a configured token nothing can be exported.
    expect(
      (
        await site.request("/feedback", {
          headers: { authorization: "Bearer anything-at-all-here" },
        })
      ).status,
    ).toBe(401);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
