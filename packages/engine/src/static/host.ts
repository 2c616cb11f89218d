import type { EngineHost } from "../engine/engine.ts";

/**
 * The clock and the random ids of a static book, from where it runs (a browser, a Web Worker,
 * Node): the one module of the engine package that reads a clock or draws random numbers. The
 * engine reads neither (it is given `now`, see EngineHost); the static routes stand in for the
 * server and make what it makes: a request's, a session's and an answer's random ids, the time a
 * rating is posted.
 */
export interface StaticHost extends EngineHost {
  /** Milliseconds from any origin, for the stage timings of an answer's metadata. */
  now: () => number;
  /** The current date: a rating's `rated_at`. */
  date: () => Date;
  /** A random version 4 UUID: request, session and message ids. */
  uuid: () => string;
}

/** The host's own clock and random numbers (Web Crypto), as the static build's bundles use them. */
export const runtimeHost: StaticHost = {
  now: () => performance.now(),
  date: () => new Date(),
  uuid,
};

/** A version 4 UUID, as the server makes session and request ids. */
function uuid(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
