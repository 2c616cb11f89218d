import { connect, type Socket } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type RunningServer, startServer } from "../src/http/server.ts";
import { createSafeLogger } from "../src/util/safe-log.ts";
import { openSampleBook } from "./http-fixture.ts";

/** Clients that send slowly, stop half-way or ask to close: none holds or breaks the server. */

let book: Awaited<ReturnType<typeof openSampleBook>>;
let server: RunningServer;
const logLines: string[] = [];

beforeAll(async () => {
  book = await openSampleBook();
  const config = loadConfig({
    env: {
      PORT: "0",
      LOG_LEVEL: "debug",
      RATE_LIMIT_ENABLED: "false",
      LECTERN_HEADERS_TIMEOUT_MS: "100",
      LECTERN_BODY_TIMEOUT_MS: "200",
    },
    overrides: { dataDir: book.lectern.config.dataDir },
  });
  const logger = createSafeLogger(
    "debug",
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  server = await startServer(config, { lectern: book.lectern, logger });
});
afterAll(async () => {
  await server?.close();
  await book?.cleanup();
});

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Everything the server sends until it closes the connection. */
function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.once("close", () => resolve(text));
  });
}

/** The status, headers and body of a whole response with a Content-Length. */
function parseReply(text: string): { status: number; headers: Map<string, string>; body: string } {
  const end = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = text.slice(0, Math.max(0, end)).split("\r\n");
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  const body = text.slice(end + 4);
  expect(Buffer.byteLength(body), text).toBe(Number(headers.get("content-length")));
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

function expectErrorReply(
  reply: ReturnType<typeof parseReply>,
  status: number,
  code: string,
): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get("connection")).toBe("close");
  expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(reply.body)).toEqual({
    error_code: code,
    message: expect.any(String),
    request_id: reply.headers.get("x-request-id"),
  });
}

const head = (path: string, length: number, extra = "") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe("clients that misbehave", () => {
  it("answers 408 and closes a connection whose body does not arrive in time", async () => {
    const socket = await open();
    const answer = readUntilClosed(socket);
    socket.write(`${head("/chat", 100)}{"query": "wh`);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expectErrorReply(parseReply(text), 408, "REQUEST_TIMEOUT");
  });

  it.each([
    ["a request line that is not HTTP", "NOT-HTTP\r\n\r\n", 400, "BAD_REQUEST"],
    [
      "headers over Node's 16 KiB limit",
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${"x".repeat(20_000)}\r\n\r\n`,
      431,
      "HEADERS_TOO_LARGE",
    ],
  ])("answers %s in the error shape, with X-Request-Id", async (_, request, status, code) => {
    const socket = await open();
    const answer = readUntilClosed(socket);
    socket.write(request);
    expectErrorReply(parseReply(await answer), status, code);
  });

  it("logs a body the client abandoned as the client's doing, without an error or a stack", async () => {
    const socket = await open();
    socket.write(`${head("/chat", 200)}{"query": "What is a topic`);
    // The client goes away half-way through its body (TCP delivers what was written first).
    socket.end();
    await expect
      .poll(() => logLines.join(""), { timeout: 10_000 })
      .toContain("CLIENT_CLOSED_REQUEST");
    const log = logLines.join("");
    expect(log).not.toContain('"level":50');
    expect(log).not.toMatch(/INTERNAL_ERROR|\n\s+at /);
  });

  it("closes an event stream's connection when the client sent Connection: close", async () => {
    const socket = await open();
    const answer = readUntilClosed(socket);
    const body = JSON.stringify({ query: "What is a topic?" });
    socket.write(
      `${head("/chat/stream", Buffer.byteLength(body), "Connection: close\r\n")}${body}`,
    );
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toContain("event: done");
  });

  it("answers CONNECT with 405 METHOD_NOT_ALLOWED in the error shape instead of dropping it", async () => {
    const socket = await open();
    const answer = readUntilClosed(socket);
    const requestId = crypto.randomUUID();
    socket.write(
      `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: ${requestId}\r\n\r\n`,
    );
    const reply = parseReply(await answer);
    expect(reply.status).toBe(405);
    expect(reply.headers.get("x-request-id")).toBe(requestId);
    expect(reply.headers.get("allow")).toContain("GET");
    expect(reply.headers.get("connection")).toBe("close");
    expect(JSON.parse(reply.body)).toMatchObject({
      error_code: "METHOD_NOT_ALLOWED",
      request_id: requestId,
    });
  });

  it("lists the allowed methods in Allow when asked with OPTIONS", async () => {
    const chat = await fetch(`${server.url}/chat`, { method: "OPTIONS" });
    expect(chat.status).toBe(204);
    expect(chat.headers.get("allow")).toBe("POST, OPTIONS");
    const history = await fetch(`${server.url}/history/${crypto.randomUUID()}`, {
      method: "OPTIONS",
    });
    expect(history.headers.get("allow")).toBe("GET, DELETE, OPTIONS");
  });
});
