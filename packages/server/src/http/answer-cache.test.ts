import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type AnswerSynthesizer,
  ExtractiveSynthesizer,
  type SynthesisInput,
  type SynthesisOutput,
} from "@lectern/engine/pipeline/answer-synthesizer";
import type { RunOptions } from "@lectern/engine/pipeline/types";
import { Redis } from "ioredis";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson, testConfig } from "../../test/http-fixture.ts";
import { requireRedis, TEST_REDIS_URL } from "../../test/redis.ts";
import { readEventStream } from "../../test/sse-client.ts";
import { loadConfig } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import { MemoryHistoryStore } from "../store/memory-history-store.ts";
import { composeApp } from "./compose.ts";
import { ChatResponseSchema } from "./wire.ts";

/**
 * ANSWER_CACHE=redis against the real Redis: two instances share cached first answers; a
 * follow-up, a degraded answer, a failure and a new index version never come from the cache.
 */

const available = await requireRedis();
const prefix = `lectern-test:cache:${randomBytes(6).toString("hex")}:`;
const closers: (() => Promise<void>)[] = [];
let workDir: string;
let docsDir: string;
let lectern: Lectern;

const GEARS =
  "# Gears\n\nA gear ratio trades speed for torque. Meshing gears turn in opposite directions.\n";
const BEARINGS =
  "# Bearings\n\nA ball bearing reduces friction between a shaft and its housing. Bearings need grease.\n";
const FLYWHEEL =
  "# Flywheels\n\nA flywheel stores rotational energy and smooths the speed of an engine.\n";

/** The extractive answers, counted, and made to degrade or fail on demand. */
class ObservedSynthesizer implements AnswerSynthesizer {
  readonly kind = "extractive";
  calls = 0;
  behaviour: "answer" | "degraded" | "fail" = "answer";
  private readonly extractive = new ExtractiveSynthesizer();
  async synthesize(input: SynthesisInput, options?: RunOptions): Promise<SynthesisOutput> {
    this.calls++;
    if (this.behaviour === "fail") throw new Error("synthesis failed");
    const output = await this.extractive.synthesize(input, options);
    return this.behaviour === "degraded" ? { ...output, degraded: true } : output;
  }
}

beforeAll(async () => {
  if (!available) return;
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-answer-cache-"));
  docsDir = path.join(workDir, "docs");
  await mkdir(docsDir);
  await writeFile(path.join(docsDir, "gears.md"), GEARS);
  await writeFile(path.join(docsDir, "bearings.md"), BEARINGS);
  lectern = await openLectern(
    loadConfig({ env: {}, overrides: { dataDir: path.join(workDir, "data") } }),
  );
  await lectern.ingest(docsDir);
});

afterAll(async () => {
  for (const close of closers) await close();
  await lectern?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  if (!available) return;
  const redis = new Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** One instance with the Redis answer cache, as `lectern serve` composes it. */
async function instance(env: Record<string, string> = {}) {
  const synthesizer = new ObservedSynthesizer();
  const config = testConfig(lectern, {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ANSWER_CACHE: "redis",
    ANSWER_CACHE_TTL_S: "120",
    RATE_LIMIT_ENABLED: "false",
    ...env,
  });
  const { app, ready, close } = composeApp(lectern, config, {
    logger: pino({ level: "silent" }),
    history: new MemoryHistoryStore(),
    synthesizer,
    siteAndFeedback: true,
  });
  closers.push(close);
  await ready;
  return { app, synthesizer };
}

async function cacheCounts(app: Awaited<ReturnType<typeof instance>>["app"]) {
  const text = await (await app.request("/metrics")).text();
  const family = parsePrometheusTextFormat(text).find(
    (candidate) => candidate.name === "lectern_answer_cache_total",
  );
  const count = (result: string) =>
    Number(family?.metrics.find((sample) => sample.labels?.result === result)?.value ?? 0);
  return { hit: count("hit"), miss: count("miss"), stored: count("stored") };
}

async function ask(
  app: Awaited<ReturnType<typeof instance>>["app"],
  body: Record<string, unknown>,
) {
  const response = await postJson(app, "/chat", body);
  expect(response.status).toBe(200);
  return ChatResponseSchema.parse(await response.json());
}

describe.skipIf(!available)("the Redis answer cache", () => {
  it("answers a first question asked again on another instance from the cache, on /chat and /chat/stream", async () => {
    const first = await instance();
    const second = await instance();

    const answered = await ask(first.app, { query: "What does a ball bearing reduce?" });
    expect(answered.answer).toMatch(/friction/);
    expect(first.synthesizer.calls).toBe(1);
    expect(await cacheCounts(first.app)).toEqual({ hit: 0, miss: 1, stored: 1 });

    // Case, spacing and closing punctuation do not make another question.
    const cached = await ask(second.app, { query: "  what does a BALL bearing   reduce " });
    expect(second.synthesizer.calls).toBe(0);
    expect(cached.answer).toBe(answered.answer);
    expect(cached.sources).toEqual(answered.sources);
    expect(cached.metadata.mode).toBe(answered.metadata.mode);
    // The turn is still the reader's own: a new session and message id, the question as asked.
    expect(cached.session_id).not.toBe(answered.session_id);
    expect(cached.message_id).not.toBe(answered.message_id);
    expect(cached.metadata.original_query).toBe("what does a BALL bearing   reduce");
    expect(await cacheCounts(second.app)).toEqual({ hit: 1, miss: 0, stored: 0 });

    const stream = await postJson(second.app, "/chat/stream", {
      query: "What does a ball bearing reduce?",
    });
    const events = await readEventStream(stream);
    const deltas = events.flatMap((event) => (event.name === "delta" ? [event.data.delta] : []));
    expect(deltas.join("")).toBe(answered.answer);
    const sources = events.find((event) => event.name === "sources");
    expect(sources?.name === "sources" && sources.data.sources).toEqual(answered.sources);
    expect(events.at(-1)?.name).toBe("done");
    expect(second.synthesizer.calls).toBe(0);
    expect((await cacheCounts(second.app)).hit).toBe(2);

    // Another filter is another question.
    await ask(second.app, {
      query: "What does a ball bearing reduce?",
      filters: { source_url_prefix: "/docs/gears" },
    });
    expect(await cacheCounts(second.app)).toMatchObject({ miss: 1, stored: 1 });

    // The entry expires with ANSWER_CACHE_TTL_S.
    const redis = new Redis(TEST_REDIS_URL);
    const keys = await redis.keys(`${prefix}answer:*`);
    expect(keys.length).toBe(2);
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120);
    }
    redis.disconnect();
  });

  it("never answers a follow-up from the cache", async () => {
    const { app, synthesizer } = await instance();
    const opening = await ask(app, { query: "What is a gear ratio?" });
    // The same words as a second turn depend on the conversation: answered afresh, not stored.
    const before = await cacheCounts(app);
    await ask(app, { query: "What does a ball bearing reduce?", session_id: opening.session_id });
    expect(synthesizer.calls).toBe(2);
    expect(await cacheCounts(app)).toEqual(before);
  });

  it("never keeps a degraded answer or a failure", async () => {
    const { app, synthesizer } = await instance();
    synthesizer.behaviour = "degraded";
    await ask(app, { query: "Why do bearings need grease?" });
    synthesizer.behaviour = "fail";
    expect((await postJson(app, "/chat", { query: "Why do bearings need grease?" })).status).toBe(
      500,
    );
    synthesizer.behaviour = "answer";
    await ask(app, { query: "Why do bearings need grease?" });
    expect(synthesizer.calls).toBe(3);
    expect(await cacheCounts(app)).toEqual({ hit: 0, miss: 3, stored: 1 });
    await ask(app, { query: "Why do bearings need grease?" });
    expect(synthesizer.calls).toBe(3);
    expect((await cacheCounts(app)).hit).toBe(1);
  });

  it("answers from the new index after an ingest, not from an answer of the previous one", async () => {
    const { app } = await instance();
    const before = await ask(app, { query: "What does a flywheel store?" });
    expect(
      before.sources.map((source) => ("file_path" in source ? source.file_path : "")),
    ).not.toContain("flywheel.md");
    await writeFile(path.join(docsDir, "flywheel.md"), FLYWHEEL);
    await lectern.ingest(docsDir);
    const after = await ask(app, { query: "What does a flywheel store?" });
    expect(
      after.sources.map((source) => ("file_path" in source ? source.file_path : "")),
    ).toContain("flywheel.md");
  });

  it("answers uncached while Redis cannot be reached", async () => {
    const { app, synthesizer } = await instance({ REDIS_URL: "redis://127.0.0.1:1" });
    await ask(app, { query: "What is a gear ratio?" });
    await ask(app, { query: "What is a gear ratio?" });
    expect(synthesizer.calls).toBe(2);
  });
});
