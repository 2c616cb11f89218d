import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import type { ModelFollowUps } from "@lectern/engine/pipeline/follow-ups";
import type { QueryRewriter } from "@lectern/engine/pipeline/query-rewriter";
import pino, { type Logger } from "pino";
import { afterAll, beforeAll, expect } from "vitest";
import { type Config, loadConfig } from "../src/config/config.ts";
import type { AppDeps } from "../src/http/app.ts";
import { composeApp } from "../src/http/compose.ts";
import { ChatResponseSchema, ErrorBodySchema } from "../src/http/wire.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import type { HistoryStore } from "../src/store/history-store.ts";
import { MemoryHistoryStore } from "../src/store/memory-history-store.ts";
import { SAMPLE_DOCS } from "./cli.ts";

type RequestableApp = {
  request: (path: string, init: RequestInit) => Response | Promise<Response>;
};

/** The sample book ingested once into a temporary data directory, shared by a test file. */
export async function openSampleBook(): Promise<{
  lectern: Lectern;
  dataDir: string;
  cleanup: () => Promise<void>;
}> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-http-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  const report = await lectern.ingest(SAMPLE_DOCS);
  if (report.failures.length > 0) throw new Error("sample book failed to ingest");
  return {
    lectern,
    dataDir,
    async cleanup() {
      await lectern.close().catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The sample book opened before a test file's tests and removed after them. */
export function sampleBookForSuite(): { readonly lectern: Lectern } {
  let book: Awaited<ReturnType<typeof openSampleBook>> | undefined;
  beforeAll(async () => {
    book = await openSampleBook();
  });
  afterAll(async () => book?.cleanup());
  return {
    get lectern() {
      if (!book) throw new Error("the sample book is opened in beforeAll");
      return book.lectern;
    },
  };
}

export function testConfig(lectern: Lectern, env: Record<string, string> = {}): Config {
  return loadConfig({
    env: { LOG_LEVEL: "silent", ...env },
    overrides: { dataDir: lectern.config.dataDir },
  });
}

export function createTestApp(
  lectern: Lectern,
  options: {
    env?: Record<string, string>;
    history?: HistoryStore;
    synthesizer?: AnswerSynthesizer;
    rewriter?: QueryRewriter;
    followUps?: ModelFollowUps | undefined;
    deps?: Partial<AppDeps>;
    /** Where the app logs (silent by default). */
    logger?: Logger;
  } = {},
) {
  const config = testConfig(lectern, options.env);
  const { app, history } = composeApp(lectern, config, {
    logger: options.logger ?? pino({ level: "silent" }),
    synthesizer: options.synthesizer,
    rewriter: options.rewriter,
    followUps: options.followUps,
    history: options.history,
    ...(options.deps ? { overrides: options.deps } : {}),
  });
  return { app, config, history };
}

export type TestApp = ReturnType<typeof createTestApp>["app"];

/** An app on the sample book that keeps history in memory, for a test of its own. */
export function memoryHistoryApp(lectern: Lectern, env: Record<string, string> = {}) {
  return createTestApp(lectern, { history: new MemoryHistoryStore(), env }).app;
}

export function postJson(
  app: RequestableApp,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return app.request(route, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** POST /chat with this body; the answer, checked against the wire schema. */
export async function askChat(app: RequestableApp, body: Record<string, unknown>) {
  return ChatResponseSchema.parse(await (await postJson(app, "/chat", body)).json());
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An error response in the contract's shape: status, code, request id, and no internals. */
export async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = ErrorBodySchema.parse(await response.json());
  expect(body.error_code).toBe(code);
  expect(body.request_id).toMatch(UUID_V4);
  expect(response.headers.get("x-request-id")).toBe(body.request_id);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.ts:\d+|node_modules|SELECT |\/work\//);
  return body;
}
