import { cp, mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_CLI } from "./cli.ts";
import { type FakeModelServer, startFakeModelServer } from "./doubles/fake-model-server.ts";
import { openSampleBook } from "./http-fixture.ts";
import { type ServeProcess, startServeProcess } from "./serve-process.ts";

/**
 * SIGTERM while readers' questions are on the wire: each one that reached the server is answered,
 * or refused with a whole 503 the reader can retry; none has its connection reset. A stream still
 * running when the shutdown timeout ends is told so with an `error` event.
 */

let bookDir: string;
let workDir: string;
let fake: FakeModelServer;
beforeAll(async () => {
  const book = await openSampleBook();
  await book.lectern.close();
  bookDir = book.dataDir;
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-shutdown-in-flight-"));
  fake = await startFakeModelServer();
}, 120_000);
afterAll(async () => {
  await fake?.close();
  if (bookDir) await rm(bookDir, { recursive: true, force: true });
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function serve(name: string, env: Record<string, string>): Promise<ServeProcess> {
  const dataDir = path.join(workDir, name);
  await cp(bookDir, dataDir, { recursive: true });
  return startServeProcess(
    process.execPath,
    [...SOURCE_CLI, "serve", "--data-dir", dataDir, "--port", "0"],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        LOG_LEVEL: "warn",
        RATE_LIMIT_ENABLED: "false",
        ...env,
      },
    },
  );
}

interface RawOutcome {
  /** The bytes received before the server closed the connection. */
  received: string;
  /** The socket error, e.g. ECONNRESET; undefined when the connection ended cleanly. */
  error: string | undefined;
}

/** Opens a connection and sends one request; `sent` resolves once the request is on the wire. */
function sendRaw(
  port: number,
  request: string,
): { sent: Promise<void>; done: Promise<RawOutcome> } {
  const socket = connect({ host: "127.0.0.1", port });
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    received += chunk;
  });
  const sent = new Promise<void>((resolve, reject) => {
    socket.once("connect", () => socket.write(request, () => resolve()));
    socket.once("error", reject);
  });
  const done = new Promise<RawOutcome>((resolve) => {
    let error: string | undefined;
    socket.on("error", (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
    socket.once("close", () => resolve({ received, error }));
  });
  return { sent: sent.catch(() => {}), done };
}

function chatRequest(question: string): string {
  const body = JSON.stringify({ query: question });
  return (
    "POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Splits one HTTP/1.1 response; `complete` says whether its whole body arrived. */
function parseResponse(raw: string): {
  status: number;
  headers: Map<string, string>;
  body: string;
  complete: boolean;
} {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return { status: 0, headers: new Map(), body: "", complete: false };
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = raw.slice(end + 4);
  const length = headers.get("content-length");
  if (length !== undefined) {
    const body = Buffer.from(rest).subarray(0, Number(length)).toString();
    return {
      status: Number(statusLine.split(" ")[1]),
      headers,
      body,
      complete: Buffer.byteLength(rest) >= Number(length),
    };
  }
  // Chunked: the body is whole once the last, empty chunk has arrived.
  let body = "";
  let cursor = rest;
  let complete = false;
  while (cursor.length > 0) {
    const lineEnd = cursor.indexOf("\r\n");
    if (lineEnd < 0) break;
    const size = Number.parseInt(cursor.slice(0, lineEnd), 16);
    if (size === 0) {
      complete = true;
      break;
    }
    body += cursor.slice(lineEnd + 2, lineEnd + 2 + size);
    cursor = cursor.slice(lineEnd + 2 + size + 2);
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body, complete };
}

const QUESTIONS = [
  "How do topics work?",
  "What is a robot?",
  "What does a sensor measure?",
  "How do motors move a robot?",
  "What is odometry?",
];

describe("SIGTERM with questions on the wire", () => {
  it("answers or cleanly refuses every chat sent just before the signal", async () => {
    const server = await serve("burst", {});
    try {
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      const chats = Array.from({ length: 20 }, (_, index) =>
        sendRaw(server.port, chatRequest(QUESTIONS[index % QUESTIONS.length] ?? "")),
      );
      await Promise.all(chats.map((chat) => chat.sent));
      server.child.kill("SIGTERM");
      const outcomes = await Promise.all(chats.map((chat) => chat.done));
      expect(await server.exited(30_000), server.output()).toBe(0);
      const summary = outcomes.map(({ received, error }) => {
        const response = parseResponse(received);
        return { status: response.status, complete: response.complete, error };
      });
      for (const [index, { received, error }] of outcomes.entries()) {
        const response = parseResponse(received);
        expect(error, `chat ${index}: ${JSON.stringify(summary)}`).toBeUndefined();
        expect(response.complete, `chat ${index}: ${received.slice(0, 300)}`).toBe(true);
        expect([200, 503], `chat ${index}: ${received.slice(0, 300)}`).toContain(response.status);
        const body = JSON.parse(response.body) as Record<string, unknown>;
        if (response.status === 200) {
          expect(typeof body.answer).toBe("string");
        } else {
          expect(body).toMatchObject({
            error_code: "SERVICE_UNAVAILABLE",
            request_id: response.headers.get("x-request-id"),
          });
          expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(response.headers.get("connection")).toBe("close");
        }
      }
    } finally {
      server.child.kill("SIGKILL");
    }
  }, 120_000);

  // Lectern's own stream and S4's (`response_format: "stream"` on `/chat`), each in its own words.
  it.each([
    {
      route: "/chat/stream",
      body: { query: "How do topics work?" },
      errorCode: (data: ErrorEventData) => data.error?.error_code,
    },
    {
      route: "/chat (S4 stream)",
      body: { query_text: "How do topics work?", response_format: "stream" },
      errorCode: (data: ErrorEventData) => data.error_code,
    },
  ])(
    "ends $route still running at the shutdown timeout with an error event",
    async ({ route, body, errorCode }) => {
      const server = await serve("stream", {
        LECTERN_SHUTDOWN_TIMEOUT_MS: "500",
        LLM_PROVIDER: "openai-compatible",
        LLM_BASE_URL: fake.baseUrl,
        LLM_MODEL: "local-model",
        LLM_MAX_RETRIES: "0",
        LLM_FOLLOW_UPS: "false",
        LLM_IDLE_TIMEOUT_MS: "60000",
        LLM_TIMEOUT_MS: "60000",
        LECTERN_REQUEST_TIMEOUT_MS: "60000",
      });
      try {
        // The model sends two chunks of its answer and then nothing, until it is hung up on.
        fake.enqueue({ stallAfterChunks: 2 });
        const response = await fetch(`${server.url}${route.split(" ")[0]}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        let signalled = false;
        const events = await rawEvents(response, (event) => {
          if (event.name === "delta" && !signalled) {
            signalled = true;
            server.child.kill("SIGTERM");
          }
        });
        expect(signalled).toBe(true);
        const last = events.at(-1);
        expect(last?.name).toBe("error");
        expect(errorCode(last?.data ?? {})).toBe("SERVICE_UNAVAILABLE");
        expect(await server.exited(30_000), server.output()).toBe(0);
      } finally {
        server.child.kill("SIGKILL");
        fake.clearQueue();
      }
    },
    120_000,
  );
});

interface ErrorEventData {
  error?: { error_code?: string };
  error_code?: string;
}

/** The events of a Server-Sent Events response, each with its JSON data, in any route's words. */
async function rawEvents(
  response: Response,
  onEvent: (event: { name: string }) => void,
): Promise<{ name: string; data: ErrorEventData }[]> {
  const events: { name: string; data: ErrorEventData }[] = [];
  const parser = createParser({
    onEvent(message) {
      const event = { name: message.event ?? "message", data: JSON.parse(message.data) };
      events.push(event);
      onEvent(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  return events;
}
