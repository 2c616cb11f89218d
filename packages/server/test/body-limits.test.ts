import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { type RunningServer, startServer } from "../src/http/server.ts";
import { openSampleBook } from "./http-fixture.ts";

/**
 * Bodies over a route's limit, over a real socket: refused at the limit, not after the whole body
 * has been read. A declared oversize Content-Length is answered at once, a chunked body that keeps
 * coming is answered while the client is still sending, with the server's 30 s body timeout left as
 * it is in production.
 */

let book: Awaited<ReturnType<typeof openSampleBook>>;
let server: RunningServer;

beforeAll(async () => {
  book = await openSampleBook();
  const config = loadConfig({
    env: { PORT: "0", LOG_LEVEL: "silent", RATE_LIMIT_ENABLED: "false", SHARE_ENABLED: "true" },
    overrides: { dataDir: book.lectern.config.dataDir },
  });
  server = await startServer(config, { lectern: book.lectern });
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

/** The response's status line and body, once the server has sent a whole response. */
function firstResponse(socket: Socket): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const headEnd = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (headEnd >= 0 && length && text.length >= headEnd + 4 + Number(length)) {
        resolve({ status: Number(text.slice(9, 12)), text });
      }
    });
    socket.on("close", () => reject(new Error(`closed without a whole response: ${text}`)));
    // Far shorter than the server's 30 s body timeout: an answer only that timeout gives fails.
    setTimeout(() => reject(new Error("no response within 5 s")), 5_000).unref();
  });
}

/** Writes one chunk of a chunked body; false once the server has closed the connection. */
function writeChunk(socket: Socket, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed || !socket.writable) return resolve(false);
    socket.write(`${chunk.byteLength.toString(16)}\r\n`);
    socket.write(chunk);
    socket.write("\r\n", (error) => resolve(!error));
  });
}

const TOTAL = 20 * 1024 * 1024; // 20 MiB, far over every route's limit
const CHUNK = Buffer.alloc(64 * 1024, "a");

/**
 * Streams a chunked JSON body of TOTAL bytes to `path`, stopping once a response has arrived; the
 * response and how many bytes had been sent by then.
 */
async function streamOversizeBody(path: string) {
  const socket = await open();
  socket.on("error", () => {});
  const response = firstResponse(socket);
  let answered = false;
  response.then(
    () => {
      answered = true;
    },
    () => {},
  );
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  let sent = 0;
  if (await writeChunk(socket, Buffer.from('{"query": "'))) {
    while (sent < TOTAL && !answered) {
      if (!(await writeChunk(socket, CHUNK))) break;
      sent += CHUNK.byteLength;
    }
    // A server that reads the whole body answers only now.
    if (!answered && (await writeChunk(socket, Buffer.from('"}')))) socket.write("0\r\n\r\n");
  }
  const result = await response;
  socket.destroy();
  return { ...result, sent };
}

/** A request that declares a body of `length` bytes and sends none of it. */
async function declareOversizeBody(path: string, length: number) {
  const socket = await open();
  socket.on("error", () => {});
  const response = firstResponse(socket);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
  );
  const result = await response;
  socket.destroy();
  return result;
}

describe("request bodies over the limit", () => {
  it.each(["/chat", "/feedback"])(
    "answers a chunked %s body that keeps coming with 413 while the client is still sending",
    async (path) => {
      const { status, text, sent } = await streamOversizeBody(path);
      expect(status).toBe(413);
      // Answered after about the limit, not after the whole body.
      expect(sent).toBeLessThan(TOTAL / 4);
      expect(text).toContain('"error_code":"PAYLOAD_TOO_LARGE"');
      // And the rest of the body is not read.
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
    },
  );

  it.each(["/feedback", "/share", "/chat", "/mcp"])(
    "answers %s with 413 at once when the declared Content-Length is over the limit",
    async (path) => {
      const { status, text } = await declareOversizeBody(path, 1_000_000_000);
      expect(status).toBe(413);
      expect(text).toContain('"error_code":"PAYLOAD_TOO_LARGE"');
    },
  );
});
