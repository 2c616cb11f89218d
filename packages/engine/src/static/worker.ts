import { openStaticBook } from "./static-book.ts";
import { type StaticReply, type StaticRequest, staticRoutes } from "./static-routes.ts";
import { warmUpOnOpen } from "./warm-up.ts";

/**
 * The engine in a Web Worker: the widget's static transport posts `{ id, manifest, request }` and
 * gets `{ id, reply }` back. The book is fetched on the first request and kept for the worker's
 * life; a failure to load it answers that request (and the next ones retry). A book opened for
 * the panel is then warmed for the reader's first question (warm-up.ts).
 */

interface WorkerRequest {
  id: number;
  manifest: string;
  request: StaticRequest;
}

interface OpenBook {
  routes: ReturnType<typeof staticRoutes>;
  /** Called with each request once it is answered. */
  warm: ReturnType<typeof warmUpOnOpen>;
}

const scope = globalThis as unknown as {
  onmessage: ((event: { data: WorkerRequest }) => void) | null;
  postMessage(message: { id: number; reply: StaticReply }): void;
};
const books = new Map<string, Promise<OpenBook>>();

function bookOf(manifest: string): Promise<OpenBook> {
  let book = books.get(manifest);
  if (!book) {
    book = openStaticBook(manifest).then((engine) => {
      const { historyWindow, feedbackUrl } = engine.manifest.settings;
      return {
        routes: staticRoutes(engine, historyWindow ?? 5, feedbackUrl ? { feedbackUrl } : {}),
        warm: warmUpOnOpen(engine),
      };
    });
    book.catch(() => books.delete(manifest));
    books.set(manifest, book);
  }
  return book;
}

scope.onmessage = async ({ data }) => {
  let reply: StaticReply;
  let book: OpenBook | undefined;
  try {
    book = await bookOf(data.manifest);
    reply = await book.routes(data.request);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "STATIC_BOOK_UNREACHABLE";
    reply = {
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({
        error_code: code,
        message: error instanceof Error ? error.message : String(error),
        request_id: `static-${data.id}`,
      }),
    };
  }
  scope.postMessage({ id: data.id, reply });
  void book?.warm(data.request);
};
