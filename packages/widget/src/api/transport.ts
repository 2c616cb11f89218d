/**
 * Where the widget's requests go: the Lectern server at `apiUrl`, or, for a book built with
 * `lectern build-static` (the `staticBook` option), the engine in a Web Worker of this page, which
 * answers the same routes with the same bodies from the static files. The worker script is the
 * one the build put beside the manifest (`engine/lectern-worker.js`), started on the first request
 * that needs it: the widget's own script stays small, and a page whose reader never asks loads
 * nothing of the engine.
 */

/** How `resolveOptions` marks a static book's manifest URL in place of an API URL. */
export const STATIC_BOOK = "lectern-static:";

interface StaticReply {
  status: number;
  contentType: string;
  body: string;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, (reply: StaticReply) => void>();

/** `fetch(apiUrl + path)`, or the static book's worker when `apiUrl` names one. */
export function apiFetch(apiUrl: string, path: string, init: RequestInit = {}): Promise<Response> {
  if (!apiUrl.startsWith(STATIC_BOOK)) return fetch(`${apiUrl}${path}`, init);
  const manifest = apiUrl.slice(STATIC_BOOK.length);
  return askWorker(manifest, path, init);
}

function askWorker(manifest: string, path: string, init: RequestInit): Promise<Response> {
  const signal = init.signal;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<Response>((resolve, reject) => {
    const id = nextId++;
    const onAbort = () => {
      pending.delete(id);
      reject(abortReason(signal as AbortSignal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    pending.set(id, (reply) => {
      signal?.removeEventListener("abort", onAbort);
      const nullBody = reply.status === 204 || reply.status === 304;
      resolve(
        new Response(nullBody ? null : reply.body, {
          status: reply.status,
          headers: { "Content-Type": reply.contentType },
        }),
      );
    });
    try {
      engineWorker(manifest).postMessage({
        id,
        manifest,
        request: { method: init.method ?? "GET", path, body: init.body },
      });
    } catch (error) {
      pending.delete(id);
      reject(error);
    }
  });
}

function engineWorker(manifest: string): Worker {
  if (worker) return worker;
  worker = new Worker(new URL("engine/lectern-worker.js", manifest), { type: "module" });
  worker.onmessage = ({ data }: MessageEvent<{ id: number; reply: StaticReply }>) => {
    pending.get(data.id)?.(data.reply);
    pending.delete(data.id);
  };
  // A worker that cannot start (its script missing) fails every request waiting on it.
  worker.onerror = (event) => {
    event.preventDefault();
    const reply = {
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({
        error_code: "STATIC_BOOK_UNREACHABLE",
        message: "The book's engine could not be loaded.",
        request_id: "static",
      }),
    };
    for (const answer of pending.values()) answer(reply);
    pending.clear();
    worker = null;
  };
  return worker;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("Aborted", "AbortError");
}
