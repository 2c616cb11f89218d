import type { IncomingMessage } from "node:http";
import { createError, isLecternError } from "@lectern/engine/errors";
import { keptWith } from "@lectern/engine/util/bounded-cache";
import type { Context } from "hono";

/**
 * The request body's bytes, at most `maxBytes` of them. A declared Content-Length over the limit is
 * refused before a byte is read; any other body is counted as it arrives and reading stops at the
 * limit, so a large or endless chunked body costs the server no more than the limit. Either way the
 * answer is 413 PAYLOAD_TOO_LARGE, sent with `Connection: close` so the rest of the body is never
 * read.
 *
 * A client that goes away while sending (a closed tab, a dropped connection) is not a server
 * failure: it becomes CLIENT_CLOSED_REQUEST, answered to no one and logged without a stack, instead
 * of an INTERNAL_ERROR.
 *
 * The body is read once per request: a second read (a route that looks at the body before handing
 * it to another) gets the same bytes, or the same error.
 */
export function readBody(context: Context, maxBytes: number): Promise<Uint8Array> {
  return keptWith(bodies, context.req.raw, () => readLimited(context, maxBytes));
}

const bodies = new WeakMap<Request, Promise<Uint8Array>>();

async function readLimited(context: Context, maxBytes: number): Promise<Uint8Array> {
  const declared = context.req.header("content-length");
  if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    throw tooLarge(context, maxBytes);
  }
  // Served by Node: read the request itself, without making a web stream of it.
  const incoming = nodeRequestOf(context);
  if (incoming) return readIncoming(incoming, context, maxBytes);
  const stream = context.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      // Not cancelled: cancelling would destroy the socket before the 413 is written.
      if (total > maxBytes) throw tooLarge(context, maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    if (isLecternError(error)) throw error;
    if (context.req.raw.signal.aborted || isDisconnect(error)) {
      throw closedWhileSending();
    }
    throw error;
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The Node request behind the context when @hono/node-server serves it, else undefined. */
export function nodeRequestOf(context: Context): IncomingMessage | undefined {
  return (context.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

function readIncoming(
  incoming: IncomingMessage,
  context: Context,
  maxBytes: number,
): Promise<Uint8Array> {
  if (incoming.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error?: unknown) => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      // Not destroyed: that would reset the connection before the 413 is written.
      if (total > maxBytes) {
        incoming.pause();
        finish(tooLarge(context, maxBytes));
      } else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (error: unknown) => finish(isDisconnect(error) ? closedWhileSending() : error);
    const onClose = () => {
      if (!incoming.complete) finish(closedWhileSending());
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

function closedWhileSending() {
  return createError("CLIENT_CLOSED_REQUEST", "The client closed the connection while sending.");
}

function tooLarge(context: Context, maxBytes: number) {
  // The unread rest of the body is not waited for: the connection closes after the answer.
  context.header("Connection", "close");
  return createError("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBytes} bytes.`, {
    details: { max_bytes: maxBytes },
  });
}

function isDisconnect(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (
    code === "ECONNRESET" ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    message === "aborted" ||
    message === "Client connection prematurely closed."
  );
}
