import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatResponseSchema, ConversationHistoryResponseSchema } from "../src/http/wire.ts";
import { runCli, SAMPLE_DOCS, SOURCE_CLI } from "./cli.ts";
import { type ServeProcess, startServeProcess } from "./serve-process.ts";

/**
 * The embedded database of a data directory has one owner process. An ingest started against the
 * data directory of a running `lectern serve` is refused before it opens anything, naming the
 * server; after the server is killed (kill -9, its lock left behind) a new server takes the lock
 * over, and every answer the first one confirmed is still in the history.
 */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-owner-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const ENV = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  LOG_LEVEL: "warn",
  RATE_LIMIT_ENABLED: "false",
};

function serve(dataDir: string): Promise<ServeProcess> {
  return startServeProcess(
    process.execPath,
    [...SOURCE_CLI, "serve", "--docs", SAMPLE_DOCS, "--data-dir", dataDir, "--port", "0"],
    { env: ENV, startTimeoutMs: 180_000 },
  );
}

const QUESTIONS = [
  "What is a node?",
  "How do topics work?",
  "What does a PID controller do?",
  "What is odometry?",
  "What is a publisher?",
  "How does a robot know where it is?",
];

describe("a second process on the data directory of a running server", () => {
  it("is refused naming the server (an ask answers from the book's files), and a server restarted after a kill -9 keeps every confirmed answer", async () => {
    const dataDir = path.join(workDir, "data");
    let server: ServeProcess | undefined = await serve(dataDir);
    try {
      const running = server;
      // Two conversations, each answer confirmed (200 with its message id) before the next.
      const sessions = [randomUUID(), randomUUID()];
      const confirmed = new Map<string, string[]>(sessions.map((id) => [id, []]));
      for (const [index, query] of QUESTIONS.entries()) {
        const sessionId = sessions[index % sessions.length] ?? "";
        const response = await fetch(`${running.url}/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query, session_id: sessionId }),
        });
        expect(response.status).toBe(200);
        const body = ChatResponseSchema.parse(await response.json());
        expect(body.message_id).toEqual(expect.any(String));
        confirmed.get(sessionId)?.push(body.message_id ?? "");
      }

      const ingest = await runCli(["ingest", "--docs", SAMPLE_DOCS, "--data-dir", dataDir], {
        env: { LOG_LEVEL: "warn" },
      });
      expect(ingest.code, ingest.stderr).toBe(1);
      expect(ingest.stderr).toContain("error [DATA_DIR_IN_USE]");
      expect(ingest.stderr).toContain(`pid ${running.child.pid} (lectern serve`);
      expect(ingest.stderr).toContain(`answering at ${running.url}`);
      expect(ingest.stderr).not.toMatch(/Ingesting|chunks/);
      // A command that only answers reads the book's files and leaves the database to the server.
      const ask = await runCli(["ask", "What is a node?", "--data-dir", dataDir, "--json"], {
        env: { LOG_LEVEL: "warn" },
      });
      expect(ask.code, ask.stderr).toBe(0);
      const viaServer = ChatResponseSchema.parse(
        await (
          await fetch(`${running.url}/chat`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: "What is a node?" }),
          })
        ).json(),
      );
      expect((JSON.parse(ask.stdout) as { answer: string }).answer).toBe(viaServer.answer);
      // The server is untouched by the refused process and still answers.
      const health = await fetch(`${running.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "What is a node?" }),
      });
      expect(health.status).toBe(200);

      running.child.kill("SIGKILL");
      expect(await running.exited(30_000)).not.toBe("timeout");
      server = await serve(dataDir);
      expect(server.output()).toContain(`of pid ${running.child.pid} (lectern serve`);
      for (const [sessionId, messageIds] of confirmed) {
        const history = ConversationHistoryResponseSchema.parse(
          await (await fetch(`${server.url}/history/${sessionId}`)).json(),
        );
        expect(history.entries.map((entry) => entry.message_id)).toEqual(messageIds);
      }
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill("SIGTERM");
        await server.exited(30_000);
      }
    }
  }, 420_000);
});
