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
  const { incoming, outgoing } = (context.env ?? {}) as Partial<NodeBindings>;
  if (incoming && outgoing) return new ConnectionLink(incoming, outgoing);
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
class ConnectionLink implements ClientLink {
  constructor(
    private readonly incoming: IncomingMessage,
    private readonly outgoing: ServerResponse,
  ) {}

  watch(onGone: (reason: unknown) => void): () => void {
    if (this.outgoing.closed) {
      this.tellIfGone(onGone);
      return ignore;
    }
    const listener = () => this.tellIfGone(onGone);
    this.outgoing.once("close", listener);
    return () => this.outgoing.removeListener("close", listener);
  }

  private tellIfGone(onGone: (reason: unknown) => void): void {
    const { errored } = this.incoming;
    if (errored) onGone(errored);
    else if (!this.outgoing.writableFinished) onGone(new DOMException(CLOSED_EARLY, "AbortError"));
  }
}

const CLOSED_EARLY = "The client closed the connection before the response was written.";

function ignore(): void {}
