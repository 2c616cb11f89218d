import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";

/**
 * What tells an answer that its client went away. Under @hono/node-server the request's own
 * `AbortSignal` is made when first read: an `AbortController` and an event listener a request,
 * which cost more than the rest of the request's bookkeeping together. The Node response says the
 * same with its `close` event (the adapter aborts that signal from it, in the same way), so a
 * request served by Node is watched there, and the signal is read only where the request came
 * another way (`app.request` in tests, another runtime).
 */
export interface ClientLink {
  /** Calls `onGone` once, when the client goes away (at once if it has); returns what stops it. */
  watch(onGone: (reason: unknown) => void): () => void;
}

/** The client of the request in `context`: its Node response's `close`, or its signal. */
export function clientOf(context: Context): ClientLink {
  const bindings = context.env as Partial<NodeBindings> | undefined;
  const { incoming, outgoing } = bindings ?? {};
  if (incoming && outgoing && typeof outgoing.once === "function") {
    return connectionLink(incoming, outgoing);
  }
  return signalLink(context.req.raw.signal);
}

/** A client told by an `AbortSignal` (a stream's own, or a request's). */
export function signalLink(signal: AbortSignal): ClientLink {
  return {
    watch(onGone) {
      if (signal.aborted) {
        onGone(signal.reason);
        return ignore;
      }
      const listener = () => onGone(signal.reason);
      signal.addEventListener("abort", listener, { once: true });
      return () => signal.removeEventListener("abort", listener);
    },
  };
}

interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * The client of a Node request: gone when its response closes before it was written whole, or
 * when the request errored (the socket reset), the adapter's own test for aborting the signal.
 */
function connectionLink(incoming: IncomingMessage, outgoing: ServerResponse): ClientLink {
  const reason = () => incoming.errored ?? new DOMException(CLOSED_EARLY, "AbortError");
  const gone = () => incoming.errored != null || !outgoing.writableFinished;
  return {
    watch(onGone) {
      if (outgoing.closed) {
        if (gone()) onGone(reason());
        return ignore;
      }
      const listener = () => {
        if (gone()) onGone(reason());
      };
      outgoing.once("close", listener);
      return () => outgoing.removeListener("close", listener);
    },
  };
}

const CLOSED_EARLY = "The client closed the connection before the response was written.";

function ignore(): void {}
