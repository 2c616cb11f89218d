import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createFakeClock } from "../../../test/doubles/fake-clock.ts";
import {
  createTestApp,
  expectError,
  postJson,
  sampleBookForSuite,
} from "../../../test/http-fixture.ts";
import { MemoryHistoryStore } from "../../store/memory-history-store.ts";
import { migrate } from "../../store/migrations.ts";
import { openPglite } from "../../store/pglite.ts";
import { SqlHistoryStore } from "../../store/sql-history-store.ts";
import { ChatResponseSchema } from "../wire.ts";
import { S2MessagesResponseSchema, S2SessionSchema } from "./s2.ts";

/**
 * Seed S2's conversation states, on a fake clock: NEW → ACTIVE → INACTIVE (30 idle minutes, or
 * HISTORY_INACTIVE_MINUTES) → ENDED, and its messages with sender_type user or agent.
 */

const book = sampleBookForSuite();
const MINUTE = 60_000;

function appOnClock(env: Record<string, string> = {}) {
  const clock = createFakeClock(Date.UTC(2026, 0, 5, 9));
  const { app } = createTestApp(book.lectern, {
    env,
    history: new MemoryHistoryStore(clock.date),
    deps: { clock: clock.date },
  });
  const session = async (id: string) => {
    const response = await app.request(`/sessions/${id}`);
    expect(response.status).toBe(200);
    return S2SessionSchema.parse(await response.json());
  };
  const ask = async (query: string, sessionId: string) =>
    ChatResponseSchema.parse(
      await (await postJson(app, "/chat", { query, session_id: sessionId })).json(),
    );
  return { app, clock, session, ask };
}

describe("seed S2: conversation states", () => {
  it("moves NEW → ACTIVE → INACTIVE after 30 idle minutes → ACTIVE → ENDED", async () => {
    const { app, clock, session, ask } = appOnClock();
    const opened = await app.request("/sessions", { method: "POST" });
    expect(opened.status).toBe(201);
    const created = S2SessionSchema.parse(await opened.json());
    expect(created).toMatchObject({ state: "NEW", message_count: 0 });
    const id = created.session_id;

    clock.advance(MINUTE);
    await ask("What is a ROS 2 node?", id);
    const active = await session(id);
    expect(active).toMatchObject({ state: "ACTIVE", message_count: 2 });
    expect(active.created_at).toBe(created.created_at);
    expect(active.last_activity_at).toBe(clock.date().toISOString());

    clock.advance(30 * MINUTE - 1);
    expect((await session(id)).state).toBe("ACTIVE");
    clock.advance(1);
    expect((await session(id)).state).toBe("INACTIVE");

    await ask("And what is a topic?", id);
    expect(await session(id)).toMatchObject({ state: "ACTIVE", message_count: 4 });

    const ended = await app.request(`/sessions/${id}/end`, { method: "POST" });
    expect(S2SessionSchema.parse(await ended.json()).state).toBe("ENDED");
    clock.advance(90 * MINUTE);
    expect((await session(id)).state).toBe("ENDED");

    // Ended is not deleted: every message stays readable until retention.
    const messages = S2MessagesResponseSchema.parse(
      await (await app.request(`/sessions/${id}/messages`)).json(),
    );
    expect(messages.messages.map((message) => message.sender_type)).toEqual([
      "user",
      "agent",
      "user",
      "agent",
    ]);
    expect(messages.messages[0]?.content).toBe("What is a ROS 2 node?");
    expect(messages.messages.every((message) => message.conversation_id === id)).toBe(true);
  });

  it("takes the idle time from HISTORY_INACTIVE_MINUTES; a first message makes a session", async () => {
    const { clock, session, ask } = appOnClock({ HISTORY_INACTIVE_MINUTES: "5" });
    const id = "3c9d2e1f-0a4b-4c5d-8e6f-7a8b9c0d1e2f";
    await ask("What is a launch file?", id);
    expect((await session(id)).state).toBe("ACTIVE");
    clock.advance(5 * MINUTE);
    expect((await session(id)).state).toBe("INACTIVE");
  });

  it("answers 404 for an unknown session and 400 for a malformed id", async () => {
    const { app } = appOnClock();
    const unknown = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
    await expectError(await app.request(`/sessions/${unknown}`), 404, "SESSION_NOT_FOUND");
    await expectError(
      await app.request(`/sessions/${unknown}/end`, { method: "POST" }),
      404,
      "SESSION_NOT_FOUND",
    );
    await expectError(await app.request("/sessions/nope/messages"), 400, "INVALID_SESSION_ID");
  });

  it("takes no new message once ENDED, on every chat route", async () => {
    const { app, ask } = appOnClock();
    const id = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    await ask("What is a ROS 2 node?", id);
    await app.request(`/sessions/${id}/end`, { method: "POST" });
    await expectError(
      await postJson(app, "/chat", { query: "And a topic?", session_id: id }),
      409,
      "SESSION_ENDED",
    );
    await expectError(
      await postJson(app, "/chat/stream", { query: "And a topic?", session_id: id }),
      409,
      "SESSION_ENDED",
    );
    const s3 = await postJson(app, "/api/chat", { message: "And a topic?", session_id: id });
    expect(s3.status).toBe(409);
    // Nothing was added to the ended conversation.
    const messages = S2MessagesResponseSchema.parse(
      await (await app.request(`/sessions/${id}/messages`)).json(),
    );
    expect(messages.messages).toHaveLength(2);
  });
});

describe("seed S2: states kept in the database", () => {
  it("a NEW and an ENDED session read the same after a restart", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-s2-"));
    const open = async () => {
      const db = await openPglite(dataDir);
      await migrate(db);
      const { app } = createTestApp(book.lectern, { history: new SqlHistoryStore(db) });
      return { app, db };
    };
    try {
      const first = await open();
      const fresh = S2SessionSchema.parse(
        await (await first.app.request("/sessions", { method: "POST" })).json(),
      );
      const spoken = S2SessionSchema.parse(
        await (await first.app.request("/sessions", { method: "POST" })).json(),
      );
      await postJson(first.app, "/chat", {
        query: "What is a ROS 2 node?",
        session_id: spoken.session_id,
      });
      await first.app.request(`/sessions/${spoken.session_id}/end`, { method: "POST" });
      await first.db.close();

      const second = await open();
      const state = async (id: string) =>
        S2SessionSchema.parse(await (await second.app.request(`/sessions/${id}`)).json());
      expect(await state(fresh.session_id)).toMatchObject({ state: "NEW", message_count: 0 });
      expect(await state(spoken.session_id)).toMatchObject({ state: "ENDED", message_count: 2 });
      await expectError(
        await postJson(second.app, "/chat", {
          query: "And a topic?",
          session_id: spoken.session_id,
        }),
        409,
        "SESSION_ENDED",
      );
      await second.db.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
