import { describe, expect, it } from "vitest";
import {
  createTestApp,
  expectError,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
  type TestApp,
} from "../../test/http-fixture.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { allowedMethods, honoPath } from "./route-spec.ts";
import { ROUTES } from "./route-table.ts";
import {
  ChatResponseSchema,
  HealthResponseSchema,
  SearchResponseSchema,
  SuggestionsResponseSchema,
} from "./wire.ts";

const book = sampleBookForSuite();

describe("rate limits and the in-flight cap", () => {
  it("limits a session's burst with 429 RATE_LIMITED and Retry-After", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_SESSION_BURST: "2",
      RATE_LIMIT_PER_SESSION_PER_MINUTE: "6",
    });
    const sessionId = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    expect(
      (await postJson(app, "/chat", { query: "What is a node?", session_id: sessionId })).status,
    ).toBe(200);
    expect(
      (await postJson(app, "/chat", { query: "What is a node?", session_id: sessionId })).status,
    ).toBe(200);
    const limited = await postJson(app, "/chat", {
      query: "What is a node?",
      session_id: sessionId,
    });
    const body = await expectError(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBe(10);
    expect(body.details).toMatchObject({ scope: "session" });
    // Another session is not affected.
    expect((await postJson(app, "/chat", { query: "What is a node?" })).status).toBe(200);
  });

  it("limits per client IP, read from X-Forwarded-For only behind a trusted proxy", async () => {
    const askFrom = (app: TestApp, forwardedFor: string) =>
      postJson(app, "/chat", { query: "What is a node?" }, { "x-forwarded-for": forwardedFor });
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
      TRUST_PROXY: "true",
    });
    expect((await askFrom(app, "203.0.113.7")).status).toBe(200);
    await expectError(await askFrom(app, "203.0.113.7, 10.0.0.1"), 429, "RATE_LIMITED");
    expect((await askFrom(app, "198.51.100.4")).status).toBe(200);

    const untrusted = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    expect((await askFrom(untrusted, "203.0.113.7")).status).toBe(200);
    // A spoofed header does not get a fresh bucket without a trusted proxy.
    await expectError(await askFrom(untrusted, "198.51.100.4"), 429, "RATE_LIMITED");
  });

  it("can be switched off", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_ENABLED: "false",
      RATE_LIMIT_PER_IP_BURST: "1",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    for (let round = 0; round < 4; round++)
      expect((await postJson(app, "/chat", { query: "What is a node?" })).status).toBe(200);
  });

  it("refuses chats beyond the in-flight cap with 429", async () => {
    let releaseFirst: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let synthesisStarted: () => void = () => {};
    const firstInFlight = new Promise<void>((resolve) => {
      synthesisStarted = resolve;
    });
    // A synthesizer that holds the first answer open until released: a chat still in flight.
    const holding = {
      kind: "holding",
      async synthesize() {
        synthesisStarted();
        await gate;
        return { answer: "held", fallbackMessage: null, mode: "retrieval_only" as const };
      },
    };
    const { app } = createTestApp(book.lectern, {
      history: new MemoryHistoryStore(),
      synthesizer: holding,
      env: { LECTERN_MAX_CONCURRENT_CHATS: "1" },
    });
    const first = postJson(app, "/chat", { query: "What is a node?" });
    await firstInFlight;
    const second = await postJson(app, "/chat", { query: "What is a topic?" });
    const body = await expectError(second, 429, "RATE_LIMITED");
    expect(body.details).toMatchObject({ reason: "concurrency" });
    releaseFirst();
    expect((await first).status).toBe(200);
    expect((await postJson(app, "/chat", { query: "What is a topic?" })).status).toBe(200);
  });
});

describe("GET /search", () => {
  it("returns the book's sections for the words typed so far, with highlights and links", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await app.request("/search?q=launch%20fil&limit=5");
    expect(response.status).toBe(200);
    const body = SearchResponseSchema.parse(await response.json());
    expect(body.query).toBe("launch fil");
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(5);
    const first = body.results[0];
    expect(first?.url).toMatch(/^\/docs\/ros2-fundamentals\/launch-files/);
    const marked = (first?.highlights ?? []).map(([start, end]) =>
      first?.snippet.slice(start, end).toLowerCase(),
    );
    expect(marked).toContain("launch");
    expect(marked.some((word) => word?.startsWith("file"))).toBe(true);
  });

  it("rejects an empty, too long or badly limited search with the documented codes", async () => {
    const app = memoryHistoryApp(book.lectern);
    await expectError(await app.request("/search"), 400, "EMPTY_QUERY");
    await expectError(await app.request("/search?q=%20%20"), 400, "EMPTY_QUERY");
    await expectError(await app.request(`/search?q=${"a".repeat(201)}`), 400, "QUERY_TOO_LONG");
    await expectError(await app.request("/search?q=node&limit=0"), 422, "VALIDATION_ERROR");
    await expectError(await app.request("/search?q=node&limit=abc"), 422, "VALIDATION_ERROR");
    const nothing = SearchResponseSchema.parse(
      await (await app.request("/search?q=qqqqzzzz%20")).json(),
    );
    expect(nothing.results).toEqual([]);
  });
});

describe("suggested questions", () => {
  it("offers starters for an empty conversation, beginning with the book as a whole", async () => {
    const app = memoryHistoryApp(book.lectern);
    const response = await app.request("/suggestions");
    expect(response.status).toBe(200);
    const { questions } = SuggestionsResponseSchema.parse(await response.json());
    expect(questions[0]).toBe("What is this book about?");
    expect(questions.length).toBeGreaterThanOrEqual(3);
    // Each starter is answered from the book, not refused.
    for (const question of questions) {
      const answer = ChatResponseSchema.parse(
        await (await postJson(app, "/chat", { query: question })).json(),
      );
      expect(answer.metadata.mode, question).not.toBe("no_results");
    }
  });

  it("offers follow-ups under an answer: the sections after the quoted one", async () => {
    const app = memoryHistoryApp(book.lectern);
    const answer = ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query: "How do I publish on a topic?" })).json(),
    );
    expect(answer.suggestions?.length).toBeGreaterThanOrEqual(2);
    expect(answer.suggestions?.every((question) => question.endsWith("?"))).toBe(true);
    const refused = ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query: "What is the capital of Australia?" })).json(),
    );
    expect(refused.suggestions).toBeUndefined();
  });
});

describe("sharing an answer", () => {
  const sessionId = "5b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";
  const share = (app: TestApp, body: unknown) => postJson(app, "/share", body);

  it("is off by default: POST answers 403, a link answers 404", async () => {
    const app = memoryHistoryApp(book.lectern);
    await expectError(
      await share(app, { session_id: sessionId, message_id: "m" }),
      403,
      "SHARING_DISABLED",
    );
    await expectError(await app.request("/share/AAAAAAAAAAAAAAAAAAAAAA"), 404, "SHARE_NOT_FOUND");
  });

  it("copies one answer under an unguessable id, shows it read-only, and lets its owner delete it", async () => {
    const app = memoryHistoryApp(book.lectern, { SHARE_ENABLED: "true" });
    const answer = ChatResponseSchema.parse(
      await (
        await postJson(app, "/chat", {
          query: "How do I publish on a topic?",
          session_id: sessionId,
        })
      ).json(),
    );
    const messageId = answer.message_id as string;
    await expectError(
      await share(app, { session_id: sessionId, message_id: "not-an-answer" }),
      404,
      "MESSAGE_NOT_FOUND",
    );
    await expectError(
      await share(app, { session_id: "x", message_id: messageId }),
      400,
      "INVALID_SESSION_ID",
    );
    const created = await share(app, { session_id: sessionId, message_id: messageId });
    expect(created.status).toBe(201);
    const { share_id: id, url } = (await created.json()) as { share_id: string; url: string };
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(url).toBe(`/share/${id}`);
    const second = (await (
      await share(app, { session_id: sessionId, message_id: messageId })
    ).json()) as { share_id: string };
    expect(second.share_id).not.toBe(id);

    const page = await app.request(url, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>How do I publish on a topic?</h1>");
    const marker = /<a href="#source-(\d+)">\[(\d+)\]<\/a>/.exec(html);
    expect(marker?.[1]).toBe(marker?.[2]);
    expect(html).toMatch(
      new RegExp(`<li id="source-${marker?.[1]}" value="${marker?.[1]}"><a href="/docs/`),
    );
    const json = (await (await app.request(url)).json()) as { answer: string };
    expect(json.answer).toBe(answer.answer);

    // Only the session that shared it can delete it.
    const other = "6c2d3e4f-5061-4b7c-9d8e-0f1a2b3c4d5e";
    await expectError(
      await app.request(url, { method: "DELETE", headers: { "x-session-id": other } }),
      404,
      "SHARE_NOT_FOUND",
    );
    const deleted = await app.request(url, {
      method: "DELETE",
      headers: { "x-session-id": sessionId },
    });
    expect(deleted.status).toBe(200);
    await expectError(await app.request(url), 404, "SHARE_NOT_FOUND");
  });
});

describe("sharing an answer, rate-limited", () => {
  async function answeredSession(app: TestApp) {
    const sessionId = crypto.randomUUID();
    const answer = ChatResponseSchema.parse(
      await (
        await postJson(app, "/chat", { query: "What is a topic?", session_id: sessionId })
      ).json(),
    );
    return { session_id: sessionId, message_id: answer.message_id as string };
  }

  it("lets a session share 10 times at once, then answers 429 with Retry-After", async () => {
    const app = memoryHistoryApp(book.lectern, { SHARE_ENABLED: "true" });
    const exchange = await answeredSession(app);
    const statuses = [];
    for (let copy = 0; copy < 10; copy++) {
      statuses.push((await postJson(app, "/share", exchange)).status);
    }
    expect(statuses).toEqual(Array(10).fill(201));
    const limited = await postJson(app, "/share", exchange);
    const body = await expectError(limited, 429, "RATE_LIMITED");
    expect(body.details).toMatchObject({ scope: "session" });
    // 10 a minute: a share every 6 s (5 once a second has passed since the first).
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(5);
    // Another session is not held back by this one.
    expect((await postJson(app, "/share", await answeredSession(app))).status).toBe(201);
  });

  it("takes its rate from RATE_LIMIT_SHARES_PER_MINUTE", async () => {
    const app = memoryHistoryApp(book.lectern, {
      SHARE_ENABLED: "true",
      RATE_LIMIT_SHARES_PER_MINUTE: "2",
    });
    const exchange = await answeredSession(app);
    expect((await postJson(app, "/share", exchange)).status).toBe(201);
    expect((await postJson(app, "/share", exchange)).status).toBe(201);
    const limited = await postJson(app, "/share", exchange);
    await expectError(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(29);
  });
});

describe("other endpoints", () => {
  it("answers 404 for unknown routes and 405 with Allow for wrong methods", async () => {
    const app = memoryHistoryApp(book.lectern);
    await expectError(await app.request("/nope"), 404, "NOT_FOUND");
    const wrong = await app.request("/chat");
    await expectError(wrong, 405, "METHOD_NOT_ALLOWED");
    expect(wrong.headers.get("allow")).toBe("POST");
    await expectError(await app.request("/health", { method: "POST" }), 405, "METHOD_NOT_ALLOWED");
  });

  it("documents every route of the table in /openapi.json and GET /, and 405s other methods", async () => {
    const app = memoryHistoryApp(book.lectern);
    const openapi = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const root = (await (await app.request("/")).json()) as {
      endpoints: { method: string; path: string; description: string }[];
    };
    for (const route of ROUTES) {
      const operation = openapi.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path} in OpenAPI`).toMatchObject({
        summary: route.summary,
      });
      expect(root.endpoints).toContainEqual({
        method: route.method,
        path: route.path,
        description: route.summary,
      });
    }
    expect(root.endpoints).toHaveLength(ROUTES.length);
    const sessionId = "9b2f6b1e-0c1d-4e5f-8a9b-0c1d2e3f4a5b";
    for (const [path, allow] of allowedMethods(ROUTES)) {
      const served = allow.split(", ");
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        if (served.includes(method)) continue;
        const response = await app.request(path.replace("{session_id}", sessionId), { method });
        await expectError(response, 405, "METHOD_NOT_ALLOWED");
        expect(response.headers.get("allow"), `${method} ${path}`).toBe(allow);
      }
    }
  });

  it("serves only the routes of the table", () => {
    const app = memoryHistoryApp(book.lectern);
    const table = ROUTES.map((route) => `${route.method} ${honoPath(route.path)}`);
    const handlers = app.routes.filter((route) => route.method !== "ALL");
    expect(new Set(handlers.map((route) => `${route.method} ${route.path}`))).toEqual(
      new Set(table),
    );
    // Besides the middleware on every path, "ALL" routes are the 405 answers of the table's paths.
    const methodNotAllowed = app.routes.filter(
      (route) => route.method === "ALL" && route.path !== "/*",
    );
    expect(new Set(methodNotAllowed.map((route) => route.path))).toEqual(
      new Set(ROUTES.map((route) => honoPath(route.path))),
    );
  });

  it("reports health per service and readiness", async () => {
    const app = memoryHistoryApp(book.lectern);
    const health = HealthResponseSchema.parse(await (await app.request("/health")).json());
    expect(health.status).toBe("healthy");
    expect(health.services.database?.status).toBe("healthy");
    expect(health.services.index?.status).toBe("healthy");
    expect(await (await app.request("/ready")).json()).toMatchObject({ ready: true });

    const empty = createTestApp(book.lectern, {
      history: new MemoryHistoryStore(),
      deps: {
        checks: { database: async () => {}, indexedChunks: () => 0 },
        isShuttingDown: () => true,
      },
    }).app;
    const degraded = HealthResponseSchema.parse(await (await empty.request("/health")).json());
    expect(degraded.status).toBe("degraded");
    expect(degraded.services.index?.status).toBe("degraded");
    expect((await empty.request("/ready")).status).toBe(503);
  });

  it("describes itself at / and as OpenAPI generated from the same schemas", async () => {
    const app = memoryHistoryApp(book.lectern);
    const root = (await (await app.request("/")).json()) as {
      name: string;
      endpoints: { path: string }[];
    };
    expect(root.name).toBe("Lectern");
    expect(root.endpoints.map((endpoint) => endpoint.path)).toContain("/chat/stream");
    const openapi = (await (await app.request("/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(openapi.openapi).toBe("3.1.0");
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(["/chat", "/chat/stream", "/history/{session_id}", "/health"]),
    );
    const schemas = (
      openapi as unknown as {
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      }
    ).components.schemas;
    expect(Object.keys(schemas.ChatRequest?.properties ?? {})).toEqual(
      expect.arrayContaining(["query", "selected_text", "session_id", "filters"]),
    );
    expect(JSON.stringify(openapi.paths["/chat"])).toContain("#/components/schemas/ChatRequest");
  });

  it("documents GET /search in OpenAPI: its parameters, limits, errors and response", async () => {
    const app = memoryHistoryApp(book.lectern);
    const openapi = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: {
        schemas: Record<
          string,
          { properties?: Record<string, { items?: unknown }>; required?: string[] }
        >;
      };
    };
    const search = openapi.paths["/search"]?.get as {
      parameters: { name: string; in: string; required: boolean; schema: object }[];
      responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
    };
    expect(search.parameters).toEqual([
      {
        name: "q",
        in: "query",
        required: true,
        schema: { type: "string", minLength: 1, maxLength: 200 },
      },
      {
        name: "limit",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 1, maximum: 20, default: 8 },
      },
      { name: "version", in: "query", required: false, schema: { type: "string", maxLength: 100 } },
      { name: "locale", in: "query", required: false, schema: { type: "string", maxLength: 35 } },
    ]);
    expect(Object.keys(search.responses)).toEqual(
      expect.arrayContaining(["200", "400", "422", "503"]),
    );
    expect(search.responses["200"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/SearchResponse",
    });
    const response = openapi.components.schemas.SearchResponse;
    expect(response?.required).toEqual(expect.arrayContaining(["query", "results", "took_ms"]));
    const item = JSON.stringify(response?.properties?.results?.items);
    for (const field of ["page_title", "section", "url", "snippet", "highlights", "score"]) {
      expect(item).toContain(`"${field}"`);
    }

    // What the route answers is what the document says.
    const served = await app.request("/search?q=launch%20fil&limit=3");
    expect(served.status).toBe(200);
    const body = SearchResponseSchema.parse(await served.json());
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(3);
    await expectError(await app.request(`/search?q=${"a".repeat(201)}`), 400, "QUERY_TOO_LONG");
  });

  it("allows only configured CORS origins", async () => {
    const app = memoryHistoryApp(book.lectern, { CORS_ORIGINS: "https://book.example" });
    const allowedOrigin = async (app: TestApp, origin: string) =>
      (await postJson(app, "/chat", { query: "What is a node?" }, { origin })).headers.get(
        "access-control-allow-origin",
      );
    expect(await allowedOrigin(app, "https://book.example")).toBe("https://book.example");
    expect(await allowedOrigin(app, "https://evil.example")).toBeNull();
    const preflight = await app.request("/chat", {
      method: "OPTIONS",
      headers: { origin: "https://book.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    const closed = memoryHistoryApp(book.lectern);
    expect(await allowedOrigin(closed, "https://book.example")).toBeNull();
  });

  it("reuses a valid incoming X-Request-Id", async () => {
    const app = memoryHistoryApp(book.lectern);
    const requestId = "7d444840-9dc0-41c4-8b2b-5a5a5a5a5a5a";
    const response = await app.request("/health", { headers: { "x-request-id": requestId } });
    expect(response.headers.get("x-request-id")).toBe(requestId);
  });
});
