import { STATUS_CODES } from "node:http";
import { ERROR_CODES, type ErrorCode } from "@lectern/engine/errors";
import { errorBody } from "./middleware/errors.ts";
import { METHOD_ORDER } from "./route-spec.ts";

/**
 * Replies written straight to the socket, for requests that never reach the app: a CONNECT
 * (Node hands its socket over as for a proxy), and a request Node's parser cannot read (a bad
 * request line, headers over the size limit, a request that did not arrive in time). Without
 * these Node closes a CONNECT's socket with no reply and answers the rest with a bare status
 * line. Each carries X-Request-Id and the error body, and closes the connection: the parser
 * cannot read on after them.
 */
export function socketErrorReply(
  code: ErrorCode,
  requestId: string,
  options: { message?: string; headers?: Record<string, string> } = {},
): string {
  const { status } = ERROR_CODES[code];
  const body = JSON.stringify(
    errorBody(code, options.message ?? ERROR_CODES[code].message, requestId),
  );
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    "X-Request-Id": requestId,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    Connection: "close",
    ...options.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${head.join("")}\r\n${body}`;
}

/** The reply to a CONNECT: this server is not a proxy. */
export function connectReply(requestId: string): string {
  return socketErrorReply("METHOD_NOT_ALLOWED", requestId, {
    message: "CONNECT is not allowed: this server is not a proxy.",
    headers: { Allow: [...METHOD_ORDER, "OPTIONS"].join(", ") },
  });
}

/** The code of a request Node's parser gave up on, by the parser's error code. */
export function clientErrorCode(parserCode: string | undefined): ErrorCode {
  switch (parserCode) {
    case "HPE_HEADER_OVERFLOW":
      return "HEADERS_TOO_LARGE";
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return "PAYLOAD_TOO_LARGE";
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return "REQUEST_TIMEOUT";
    default:
      return "BAD_REQUEST";
  }
}
