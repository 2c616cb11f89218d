import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestSchema, requirePostgres } from "../../test/postgres.ts";
import { FeedbackStore } from "./feedback-store.ts";
import { migrate } from "./migrations.ts";
import { openPglite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";
import { type QuestionLogEntry, QuestionLogStore } from "./question-log-store.ts";
import type { SqlClient } from "./sql-client.ts";

/** The question log on both SQL backends: batches, feedback joined, collections apart, retention. */

const backends: {
  name: string;
  literalBatches?: boolean;
  open: () => Promise<{ db: SqlClient; close: () => Promise<void> }>;
}[] = [
  {
    name: "pglite",
    async open() {
      const db = await openPglite();
      await migrate(db);
      return { db, close: () => db.close() };
    },
  },
  {
    // PGlite writes a batch as one text of statements by default; the parameter path too.
    name: "pglite, with parameters",
    literalBatches: false,
    async open() {
      const db = await openPglite();
      await migrate(db);
      return { db, close: () => db.close() };
    },
  },
  {
    name: "postgres",
    async open() {
      const schema = await createTestSchema();
      const db = await openPostgres(schema.url);
      await migrate(db);
      return {
        db,
        async close() {
          await db.close();
          await schema.drop();
        },
      };
    },
  },
];

function entry(overrides: Partial<QuestionLogEntry> = {}): QuestionLogEntry {
  return {
    sessionId: randomUUID(),
    messageId: randomUUID(),
    askedAt: new Date("2026-03-02T10:00:00Z"),
    question: "How do topics work?",
    selectedText: null,
    mode: "retrieval_only",
    lowConfidence: false,
    topScore: 0.82,
    unknownWords: [],
    cited: [
      {
        url: "/docs/ros2/topics#qos",
        filePath: "02-ros2-fundamentals/02-topics-and-messages.mdx",
        title: "Topics and Messages",
        section: "QoS",
        chunkId: "c1",
        contentHash: "h1",
      },
    ],
    version: null,
    locale: null,
    ...overrides,
  };
}

const postgresReady = await requirePostgres();

for (const backend of backends) {
  const run = backend.name === "postgres" && !postgresReady ? describe.skip : describe;
  // Skipped only outside CI when no PostgreSQL is reachable (requirePostgres throws under CI).
  run(`question log on ${backend.name}`, () => {
    let db: SqlClient;
    let close: () => Promise<void>;
    let store: QuestionLogStore;

    beforeAll(async () => {
      ({ db, close } = await backend.open());
      store = new QuestionLogStore(db, "default", {
        ...(backend.literalBatches === undefined ? {} : { literalBatches: backend.literalBatches }),
      });
    });
    afterAll(async () => close?.());
    beforeEach(async () => {
      await db.query("DELETE FROM question_log");
      await db.query("DELETE FROM feedback");
    });

    it("stores a batch in one call and reads it back, oldest first", async () => {
      const first = entry({ askedAt: new Date("2026-03-02T09:00:00Z"), unknownWords: ["droid"] });
      const second = entry({
        question: "Why is [email] refused? It's \\ 'quoted' 🤖",
        mode: "no_results",
        topScore: null,
        cited: [],
        messageId: null,
        selectedText: "A selection",
      });
      await store.saveMany([second, first]);
      const read = await store.since(new Date("2026-03-01T00:00:00Z"));
      expect(read).toEqual([
        { ...first, rating: null, comment: null },
        { ...second, rating: null, comment: null },
      ]);
    });

    it("keeps the docs version and locale a question was answered in", async () => {
      await store.saveMany([
        entry({ version: "29.7", locale: "fr" }),
        entry({ question: "plain" }),
      ]);
      const read = await store.since(new Date(0));
      expect(read.map((question) => [question.version, question.locale])).toEqual([
        ["29.7", "fr"],
        [null, null],
      ]);
    });

    it("stores half of an emoji in its JSON columns as U+FFFD instead of failing the batch", async () => {
      const cut = entry({
        unknownWords: ["robot\ud83e"],
        cited: [
          { ...(entry().cited[0] as QuestionLogEntry["cited"][number]), title: "\udd16 arms" },
        ],
      });
      await store.saveMany([cut]);
      const [read] = await store.since(new Date(0));
      expect(read?.unknownWords).toEqual(["robot\ufffd"]);
      expect(read?.cited[0]?.title).toBe("\ufffd arms");
    });

    it("joins the reader's vote and comment on the answer", async () => {
      const rated = entry();
      await store.saveMany([rated, entry()]);
      await new FeedbackStore(db).save({
        sessionId: rated.sessionId,
        messageId: rated.messageId ?? "",
        rating: "down",
        comment: "It cites the wrong page",
      });
      const read = await store.since(new Date(0));
      expect(read.map((question) => [question.rating, question.comment])).toEqual([
        ["down", "It cites the wrong page"],
        [null, null],
      ]);
    });

    it("reads one collection's questions from a given time on", async () => {
      await store.saveMany([
        entry({ askedAt: new Date("2026-02-01T00:00:00Z"), question: "old" }),
        entry({ question: "recent" }),
      ]);
      await new QuestionLogStore(db, "other-book").saveMany([entry({ question: "elsewhere" })]);
      const read = await store.since(new Date("2026-03-01T00:00:00Z"));
      expect(read.map((question) => question.question)).toEqual(["recent"]);
    });

    it("purges questions older than the retention cutoff", async () => {
      await store.saveMany([
        entry({ askedAt: new Date("2026-01-01T00:00:00Z"), question: "old" }),
        entry({ askedAt: new Date("2026-03-01T00:00:00Z"), question: "kept" }),
      ]);
      expect(await store.purgeOlderThan(new Date("2026-02-01T00:00:00Z"))).toBe(1);
      expect((await store.since(new Date(0))).map((question) => question.question)).toEqual([
        "kept",
      ]);
      expect(await store.purgeOlderThan(new Date("2026-02-01T00:00:00Z"))).toBe(0);
    });
  });
}
