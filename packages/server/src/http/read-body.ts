import type { Context } from "hono";
import { createError } from "../errors.ts";

/**
 * The request body's bytes. A client that goes away while sending it (a closed tab, a dropped
 * connection) is not a server failure: it becomes CLIENT_CLOSED_REQUEST, answered to no one and
 * logged without a stack, instead of an INTERNAL_ERROR.
 */
export async function readBody(context: Context): Promise<Uint8Array> {
  try {
    return new Uint8Array(await context.req.arrayBuffer());
  } catch (error) {
    if (context.req.raw.signal.aborted || isDisconnect(error)) {
      throw createError("CLIENT_CLOSED_REQUEST", "The client closed the connection while sending.");
    }
    throw error;
  }
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
