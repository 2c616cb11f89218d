import { readFileSync } from "node:fs";
import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  createTestApp,
  expectError,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
} from "../../test/http-fixture.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { ChatResponseSchema, HealthResponseSchema } from "./wire.ts";

/**
 * Seed S1's contract where Lectern's own API had drifted from it: its validation matrix (400 for
 * a malformed session id or URL prefix), Retry-After on 503, the services /health names, sources
 * best first, and the served OpenAPI document against S1's (test/fixtures/s1-chat-api.openapi.yaml).
 */

const book = sampleBookForSuite();

describe("seed S1's validation matrix", () => {
  it("refuses a source_url_prefix that is not a URL path prefix with 400", async () => {
    const app = memoryHistoryApp(book.lectern);
    for (const prefix of ["docs/ros2", "javascript:alert(1)", "/docs?x=1", "//evil.example/docs"]) {
      const body = await expectError(
        await postJson(app, "/chat", {
          query: "What is a node?",
          filters: { source_url_prefix: prefix },
        }),
        400,
        "INVALID_FILTER",
      );
      expect(body.details).toEqual({ field: "filters.source_url_prefix" });
    }
    for (const prefix of ["/docs/ros2", "https://example.com/docs"]) {
      const response = await postJson(app, "/chat", {
        query: "What is a node?",
        filters: { source_url_prefix: prefix },
      });
      expect(response.status).toBe(200);
    }
  });
});

describe("503 answers", () => {
  it("carry Retry-After on every route", async () => {
    const databaseDown = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    class UnreachableHistory extends MemoryHistoryStore {
      override async saveExchange(): Promise<void> {
        throw databaseDown;
      }
    }
    const { app } = createTestApp(book.lectern, {
      history: new UnreachableHistory(),
      deps: {
        checks: {
          database: async () => {
            throw databaseDown;
          },
          indexedChunks: () => 0,
        },
      },
    });
    const chat = await postJson(app, "/chat", { query: "What is a node?" });
    await expectError(chat, 503, "DATABASE_UNAVAILABLE");
    expect(Number(chat.headers.get("retry-after"))).toBeGreaterThan(0);
    // This app stores no feedback.
    const feedback = await postJson(app, "/feedback", {
      session_id: "2f0c6a58-3b8e-4c1a-9d7e-5a4b3c2d1e0f",
      message_id: "m",
      rating: "up",
    });
    await expectError(feedback, 503, "SERVICE_UNAVAILABLE");
    expect(Number(feedback.headers.get("retry-after"))).toBeGreaterThan(0);
    const ready = await app.request("/ready");
    expect(ready.status).toBe(503);
    expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("GET /health", () => {
  const s1 = parse(
    readFileSync(new URL("../../test/fixtures/s1-chat-api.openapi.yaml", import.meta.url), "utf8"),
  ) as {
    components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
  };
  const s1Statuses = s1.components.schemas.ServiceStatus?.properties.status?.enum ?? [];

  /** The body checked against S1's enums: the overall status and every service's. */
  const expectS1Health = (body: unknown) => {
    const health = HealthResponseSchema.parse(body);
    expect(s1.components.schemas.HealthResponse?.properties.status?.enum).toContain(health.status);
    for (const service of Object.values(health.services))
      expect(s1Statuses).toContain(service.status);
    return health;
  };

  it("lists only the services in use, each with one of S1's statuses", async () => {
    expect(s1Statuses).toEqual(["healthy", "degraded", "unavailable"]);
    const embedded = memoryHistoryApp(book.lectern);
    const health = expectS1Health(await (await embedded.request("/health")).json());
    expect(health.status).toBe("healthy");
    expect(health.services.database?.status).toBe("healthy");
    expect(health.services.index?.status).toBe("healthy");
    // The embedded database and vectors in it: neither PostgreSQL nor Qdrant is in use.
    expect(Object.keys(health.services).sort()).toEqual(["database", "index"]);

    // With DATABASE_URL the database is PostgreSQL, and postgres reports its status.
    const { app } = createTestApp(book.lectern, {
      env: { DATABASE_URL: "postgres://lectern@127.0.0.1:5432/lectern" },
    });
    const onPostgres = expectS1Health(await (await app.request("/health")).json());
    expect(onPostgres.services.postgres).toMatchObject({ name: "postgres", status: "healthy" });
    expect(onPostgres.services.qdrant).toBeUndefined();

    // S3's route answers the same body.
    expectS1Health(await (await embedded.request("/api/health")).json());
  });
});

describe("sources", () => {
  it("are listed best score first", async () => {
    const app = memoryHistoryApp(book.lectern);
    for (const query of [
      "How do I publish messages on a topic?",
      "What is inverse kinematics?",
      "How do launch files work?",
      "What does the zero moment point mean?",
    ]) {
      const body = ChatResponseSchema.parse(await (await postJson(app, "/chat", { query })).json());
      const scores = body.sources.flatMap((source) =>
        source.source_type === "selected_text" ? [] : [source.similarity_score],
      );
      expect(scores, query).toEqual([...scores].sort((left, right) => right - left));
    }
  });
});

type Schema = Record<string, unknown> & {
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

describe("the served OpenAPI document", () => {
  const reference = parse(
    readFileSync(new URL("../../test/fixtures/s1-chat-api.openapi.yaml", import.meta.url), "utf8"),
  ) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> } & {
    components: { schemas: Record<string, Schema> };
  };
  const resolve = (schema: Schema): Schema =>
    schema.$ref
      ? resolve(reference.components.schemas[schema.$ref.split("/").at(-1) ?? ""] ?? {})
      : schema;
  /** The served variants of a schema (a nullable field is `anyOf [schema, null]`). */
  const variants = (schema: Schema): Schema[] =>
    (schema.anyOf ?? schema.oneOf ?? [schema]).filter((variant) => variant.type !== "null");

  /** Every property, required field and enum value of S1's schema is in the served one. */
  function expectCovers(expected: Schema, served: Schema, where: string): void {
    const wanted = resolve(expected);
    const options = wanted.oneOf ?? wanted.anyOf;
    if (options) {
      const servedOptions = variants(served);
      for (const [index, option] of options.entries()) {
        expectCovers(option, servedOptions[index] ?? {}, `${where}|${index}`);
      }
      return;
    }
    const [actual = {}] = variants(served);
    if (wanted.enum) {
      const values = actual.enum ?? (actual.const === undefined ? [] : [actual.const]);
      for (const value of wanted.enum) expect(values, `${where} enum`).toContain(value);
    }
    for (const field of wanted.required ?? []) {
      expect(actual.required ?? [], `${where} required`).toContain(field);
    }
    for (const [name, property] of Object.entries(wanted.properties ?? {})) {
      expect(actual.properties, `${where}.${name}`).toHaveProperty(name);
      expectCovers(property, actual.properties?.[name] ?? {}, `${where}.${name}`);
    }
    if (wanted.items) expectCovers(wanted.items, actual.items ?? {}, `${where}[]`);
  }

  it("covers S1's paths, status codes, required fields and enums", async () => {
    const app = memoryHistoryApp(book.lectern);
    const served = (await (await app.request("/openapi.json")).json()) as typeof reference;
    for (const [path, operations] of Object.entries(reference.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const ours = served.paths[path]?.[method];
        expect(ours, `${method} ${path}`).toBeDefined();
        for (const status of Object.keys(operation.responses)) {
          expect(ours?.responses, `${method} ${path} ${status}`).toHaveProperty(status);
        }
      }
    }
    for (const name of [
      "ChatRequest",
      "ChatResponse",
      "HealthResponse",
      "ConversationHistoryResponse",
      "ErrorResponse",
    ]) {
      expectCovers(
        { $ref: `#/components/schemas/${name}` },
        served.components.schemas[name] ?? {},
        name,
      );
    }
    const retryAfter = (served.paths["/chat"]?.post?.responses["503"] ?? {}) as {
      headers?: Record<string, unknown>;
    };
    expect(retryAfter.headers).toHaveProperty("Retry-After");
  });

  it("documents every error code Lectern answers with", async () => {
    const app = memoryHistoryApp(book.lectern);
    const served = (await (await app.request("/openapi.json")).json()) as {
      components: { schemas: { ErrorResponse: Schema } };
    };
    const codes = served.components.schemas.ErrorResponse.properties?.error_code?.enum ?? [];
    for (const code of ["INVALID_FILTER", "DATABASE_UNAVAILABLE", "TIMEOUT", "VALIDATION_ERROR"]) {
      expect(codes).toContain(code);
    }
  });
});

describe("the request timeout", () => {
  /** An answer that holds the thread longer than the request may take, as a large book's can. */
  const holdsTheThread: AnswerSynthesizer = {
    kind: "holds-the-thread",
    async synthesize() {
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // Busy: no timer can fire until this returns.
      }
      return {
        answer: "A slow answer.",
        fallbackMessage: null,
        mode: "retrieval_only",
        citedNumbers: [],
      };
    },
  };

  it("answers TIMEOUT on every JSON route when the answer's work outlasts it", async () => {
    const history = new MemoryHistoryStore();
    const { app } = createTestApp(book.lectern, {
      env: { LECTERN_REQUEST_TIMEOUT_MS: "100" },
      synthesizer: holdsTheThread,
      history,
    });
    const sessionId = "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
    await expectError(
      await postJson(app, "/chat", { query: "What is a ROS 2 node?", session_id: sessionId }),
      504,
      "TIMEOUT",
    );
    // Nothing of the timed-out turn is kept.
    expect(await history.getHistory(sessionId, 10)).toBeUndefined();
    const s4 = await postJson(app, "/chat", { query_text: "What is a ROS 2 node?" });
    expect(s4.status).toBe(504);
    expect(((await s4.json()) as { error_code: string }).error_code).toBe("TIMEOUT");
    expect((await postJson(app, "/api/chat", { message: "What is a ROS 2 node?" })).status).toBe(
      504,
    );
  });
});
