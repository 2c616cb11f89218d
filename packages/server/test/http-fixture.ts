import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { type Config, loadConfig } from "../src/config/config.ts";
import { type AppDeps, buildApp } from "../src/http/app.ts";
import { createHistoryStore, VERSION } from "../src/http/server.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import {
  type AnswerSynthesizer,
  ExtractiveSynthesizer,
} from "../src/pipeline/answer-synthesizer.ts";
import { ChatPipeline } from "../src/pipeline/chat-pipeline.ts";
import { HeuristicRewriter, type QueryRewriter } from "../src/pipeline/query-rewriter.ts";
import type { HistoryStore } from "../src/store/history-store.ts";
import { SAMPLE_DOCS } from "./cli.ts";

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
    deps?: Partial<AppDeps>;
  } = {},
) {
  const config = testConfig(lectern, options.env);
  const history = options.history ?? createHistoryStore(config, lectern);
  const pipeline = new ChatPipeline({
    retriever: () => lectern.retriever,
    synthesizer: options.synthesizer ?? new ExtractiveSynthesizer(),
    rewriter: options.rewriter ?? new HeuristicRewriter(),
  });
  const app = buildApp({
    config,
    pipeline,
    history,
    logger: pino({ level: "silent" }),
    version: VERSION,
    checks: {
      database: async () => {
        await lectern.db.query("SELECT 1");
      },
      indexedChunks: () => lectern.index.size,
    },
    ...options.deps,
  });
  return { app, config, history };
}

export function postJson(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
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
