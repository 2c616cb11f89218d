import { vi } from "vitest";

export interface FetchCall {
  url: string;
  method: string;
  body: unknown;
  signal: AbortSignal | null;
}

type Handler = (call: FetchCall) => Response | Promise<Response>;

/** Replaces global fetch with `handler`; every call is recorded with its parsed JSON body. */
export function installFetch(handler: Handler): FetchCall[] {
  const calls: FetchCall[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const call: FetchCall = {
        url: String(input),
        method: init.method ?? "GET",
        body: typeof init.body === "string" ? JSON.parse(init.body) : null,
        signal: init.signal ?? null,
      };
      calls.push(call);
      return handler(call);
    }),
  );
  return calls;
}

const encoder = new TextEncoder();

/** A complete event stream, one chunk per event. */
export function sseResponse(events: string[]): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const event of events) controller.enqueue(encoder.encode(event));
        controller.close();
      },
    }),
    { status: 200, headers: { "Content-Type": "text/event-stream" } },
  );
}

export interface ControlledStream {
  response: Response;
  push(text: string): void;
  close(): void;
  /** Whether the client cancelled the body (Stop, timeout, clear). */
  readonly cancelled: boolean;
}

/** A stream the test writes to piece by piece; it never ends unless closed. */
export function controlledSseResponse(): ControlledStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
    cancel() {
      cancelled = true;
    },
  });
  return {
    response: new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } }),
    push: (text) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    get cancelled() {
      return cancelled;
    },
  };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}
