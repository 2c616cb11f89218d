// Over 300 lines on purpose: the server over a socket, one case per lifecycle event.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type RunningServer, startServer } from "../src/http/server.ts";
import {
  ChatResponseSchema,
  ConversationHistoryResponseSchema,
  ErrorBodySchema,
} from "../src/http/wire.ts";
import { openLectern } from "../src/lectern.ts";
import { openPglite } from "../src/store/pglite.ts";
import { SAMPLE_DOCS } from "./cli.ts";
import { openSampleBook } from "./http-fixture.ts";
import { createTestSchema, requirePostgres } from "./postgres.ts";
import { readEventStream } from "./sse-client.ts";

/** Lectern over a real socket: SSE parsed by a standard client, restarts, faults, shutdown. */

let bookDir: string;
let workDir: string;
beforeAll(async () => {
  // Ingest once; each test copies the data directory so they never share a database.
  const book = await openSampleBook();
  await book.lectern.close();
  bookDir = book.dataDir;
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-server-"));
});
afterAll(async () => {
  await rm(bookDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

let copies = 0;
async function start(
  env: Record<string, string> = {},
  synthesizer?: AnswerSynthesizer,
  dataDir?: string,
) {
  const directory = dataDir ?? path.join(workDir, `data-${++copies}`);
  if (!dataDir) await cp(bookDir, directory, { recursive: true });
  const config = loadConfig({
    env: { LOG_LEVEL: "silent", PORT: "0", ...env },
    overrides: { dataDir: directory },
  });
  const server = await startServer(config, synthesizer ? { synthesizer } : {});
  return { server, dataDir: directory };
}

function post(server: RunningServer, route: string, body: unknown, signal?: AbortSignal) {
  return fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Emits a first piece, then waits until released or cancelled: an answer still being produced. */
function heldSynthesizer() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const observed = { started: false, aborted: false, finished: false };
  const synthesizer: AnswerSynthesizer = {
    kind: "held",
    async synthesize(_input, options = {}) {
      observed.started = true;
      options.onDelta?.("First part. ");
      await new Promise<void>((resolve) => {
        released.then(resolve);
        options.signal?.addEventListener("abort", () => {
          observed.aborted = true;
          resolve();
        });
      });
      if (options.signal?.aborted)
        throw Object.assign(new Error("cancelled"), { name: "AbortError" });
      options.onDelta?.("Second part.");
      observed.finished = true;
      return { answer: "First part. Second part.", fallbackMessage: null, mode: "retrieval_only" };
    },
  };
  return { synthesizer, release: () => release(), observed };
}

describe("over a real socket", () => {
  it("streams Server-Sent Events that a standard SSE client parses: deltas, sources, done", async () => {
    const { server } = await start();
    try {
      const response = await post(server, "/chat/stream", {
        query: "How do I publish messages on a topic?",
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = await readEventStream(response);
      const names = events.map((event) => event.name);
      expect(names.filter((name) => name === "delta").length).toBeGreaterThan(1);
      expect(names.slice(-2)).toEqual(["sources", "done"]);
      const text = events
        .flatMap((event) => (event.name === "delta" ? [event.data.delta] : []))
        .join("");
      const sources = events.find((event) => event.name === "sources");
      if (sources?.name !== "sources") throw new Error("no sources event");
      expect(text).toBe(sources.data.answer);
      expect(sources.data.metadata.mode).toBe("retrieval_only");
      expect(sources.data.suggestions?.length).toBeGreaterThanOrEqual(2);
      const history = ConversationHistoryResponseSchema.parse(
        await (await fetch(`${server.url}/history/${sources.data.session_id}`)).json(),
      );
      expect(history.entries.map((entry) => entry.response)).toEqual([text]);
    } finally {
      await server.close();
    }
  });

  it("answers stream validation errors with a JSON error before any event", async () => {
    const { server } = await start();
    try {
      const response = await post(server, "/chat/stream", { query: "" });
      expect(response.status).toBe(400);
      expect(ErrorBodySchema.parse(await response.json()).error_code).toBe("EMPTY_QUERY");
    } finally {
      await server.close();
    }
  });

  /** How a client leaves mid-answer: the request made, then the client gone. */
  const leavings: {
    route: string;
    leave: (
      response: Promise<Response>,
      client: AbortController,
      held: ReturnType<typeof heldSynthesizer>,
    ) => Promise<void>;
  }[] = [
    {
      route: "/chat/stream",
      leave: async (response, client) => {
        const events = await readEventStream(await response, (event) => {
          if (event.name === "delta") client.abort();
        });
        expect(events.map((event) => event.name)).toEqual(["delta"]);
      },
    },
    {
      route: "/chat",
      leave: async (response, client, held) => {
        const settled = response.catch((error: unknown) => error);
        await expect.poll(() => held.observed.started, { timeout: 5_000 }).toBe(true);
        client.abort();
        expect(await settled).toMatchObject({ name: "AbortError" });
      },
    },
  ];

  it.each(leavings)(
    "stops the work and stores nothing when the client of $route goes away mid-answer",
    async ({ route, leave }) => {
      const held = heldSynthesizer();
      const { server } = await start({ LECTERN_MAX_CONCURRENT_CHATS: "1" }, held.synthesizer);
      try {
        const sessionId = "5e8b2c1a-7d4f-4e3a-9b6c-1f2e3d4c5b6a";
        const client = new AbortController();
        const body = { query: "What is a node?", session_id: sessionId };
        await leave(post(server, route, body, client.signal), client, held);
        await expect.poll(() => held.observed.aborted, { timeout: 5_000 }).toBe(true);
        expect(held.observed.finished).toBe(false);
        expect((await fetch(`${server.url}/history/${sessionId}`)).status).toBe(404);
        // The in-flight slot was released: with a cap of one, a new chat is accepted.
        held.release();
        expect((await post(server, "/chat", { query: "What is a node?" })).status).toBe(200);
      } finally {
        held.release();
        await server.close();
      }
    },
  );

  it("keeps history across a restart (PGlite on disk)", async () => {
    const first = await start();
    const body = ChatResponseSchema.parse(
      await (await post(first.server, "/chat", { query: "What is tf2?" })).json(),
    );
    await first.server.close();
    const second = await start({}, undefined, first.dataDir);
    try {
      const history = ConversationHistoryResponseSchema.parse(
        await (await fetch(`${second.server.url}/history/${body.session_id}`)).json(),
      );
      expect(history.entries.map((entry) => entry.query)).toEqual(["What is tf2?"]);
    } finally {
      await second.server.close();
    }
  });

  it("purges sessions idle longer than the retention period when it starts", async () => {
    const first = await start();
    const stale = ChatResponseSchema.parse(
      await (await post(first.server, "/chat", { query: "What is tf2?" })).json(),
    );
    const fresh = ChatResponseSchema.parse(
      await (await post(first.server, "/chat", { query: "What is a node?" })).json(),
    );
    await first.server.lectern.db.query(
      "UPDATE sessions SET last_active = now() - interval '8 days' WHERE session_id = $1",
      [stale.session_id],
    );
    await first.server.close();
    const second = await start({ HISTORY_RETENTION_DAYS: "7" }, undefined, first.dataDir);
    try {
      expect((await fetch(`${second.server.url}/history/${stale.session_id}`)).status).toBe(404);
      expect((await fetch(`${second.server.url}/history/${fresh.session_id}`)).status).toBe(200);
    } finally {
      await second.server.close();
    }
  });

  it("answers 503 DATABASE_UNAVAILABLE when the database goes away mid-request, and writes nothing", async () => {
    const { server, dataDir } = await start();
    const sessionId = "3c2b1a09-8f7e-4d6c-8b5a-493827161504";
    let closed = false;
    try {
      // The answer is computed from the in-memory index; storing it needs the database, now gone.
      await server.lectern.db.close();
      closed = true;
      const response = await post(server, "/chat", {
        query: "What is a node?",
        session_id: sessionId,
      });
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = ErrorBodySchema.parse(await response.json());
      expect(body.error_code).toBe("DATABASE_UNAVAILABLE");
      expect(body.message).not.toMatch(/PGlite|SQL|closed/i);

      const stream = await post(server, "/chat/stream", {
        query: "What is a topic?",
        session_id: sessionId,
      });
      const events = await readEventStream(stream);
      const last = events.at(-1);
      expect(last?.name).toBe("error");
      if (last?.name === "error") {
        expect(last.data.error.error_code).toBe("DATABASE_UNAVAILABLE");
        expect(last.data.error.retry_able).toBe(true);
      }
    } finally {
      await server.close().catch(() => {});
      if (!closed) await server.lectern.close();
    }
    const db = await openPglite(path.join(dataDir, "db"));
    try {
      expect(await db.query("SELECT 1 FROM sessions WHERE session_id = $1", [sessionId])).toEqual(
        [],
      );
      expect(
        await db.query("SELECT 1 FROM conversations WHERE session_id = $1", [sessionId]),
      ).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("shuts down gracefully: refuses new questions, finishes the stream in flight", async () => {
    const held = heldSynthesizer();
    const { server } = await start({}, held.synthesizer);
    const response = await post(server, "/chat/stream", { query: "What is a node?" });
    // Shut down once the client has the first piece of the answer: the stream is in flight.
    let firstDelta: () => void = () => {};
    const streaming = new Promise<void>((resolve) => {
      firstDelta = resolve;
    });
    const reading = readEventStream(response, (event) => {
      if (event.name === "delta") firstDelta();
    });
    await Promise.race([
      streaming,
      reading.then(() => {
        throw new Error("the stream ended before its first delta");
      }),
    ]);
    const closing = server.close();
    // A connection that reaches the port before it closes gets a whole 503; later ones are refused.
    const late = await post(server, "/chat", { query: "What is a node?" }).then(
      async (refusal) => ({ status: refusal.status, body: await refusal.json() }),
      () => "connection refused",
    );
    if (late !== "connection refused") {
      expect(late).toMatchObject({ status: 503, body: { error_code: "SERVICE_UNAVAILABLE" } });
    }
    held.release();
    const events = await reading;
    expect(events.map((event) => event.name).slice(-2)).toEqual(["sources", "done"]);
    await closing;
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});

const postgresReady = await requirePostgres();
// Skipped only outside CI when no PostgreSQL is reachable (requirePostgres throws under CI).
describe.runIf(postgresReady)("with DATABASE_URL (PostgreSQL)", () => {
  it("ingests, answers and keeps history in PostgreSQL", async () => {
    const schema = await createTestSchema();
    const dataDir = path.join(workDir, "pg-data");
    const config = loadConfig({
      env: { LOG_LEVEL: "silent", PORT: "0", DATABASE_URL: schema.url },
      overrides: { dataDir },
    });
    const lectern = await openLectern(config);
    try {
      await lectern.ingest(SAMPLE_DOCS);
      const server = await startServer(config, { lectern });
      try {
        const body = ChatResponseSchema.parse(
          await (await post(server, "/chat", { query: "What is a URDF?" })).json(),
        );
        expect(body.sources.length).toBeGreaterThan(0);
        const history = ConversationHistoryResponseSchema.parse(
          await (await fetch(`${server.url}/history/${body.session_id}`)).json(),
        );
        expect(history.total_entries).toBe(1);
        expect(
          (await fetch(`${server.url}/history/${body.session_id}`, { method: "DELETE" })).status,
        ).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      await lectern.close();
      await schema.drop();
    }
  });
});
