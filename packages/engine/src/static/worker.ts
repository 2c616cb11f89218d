import { openStaticBook } from "./static-book.ts";
import { type StaticReply, type StaticRequest, staticRoutes } from "./static-routes.ts";

/**
 * The engine in a Web Worker: the widget's static transport posts `{ id, manifest, request }` and
 * gets `{ id, reply }` back. The book is fetched on the first request and kept for the worker's
 * life; a failure to load it answers that request (and the next ones retry).
 */

interface WorkerRequest {
  id: number;
  manifest: string;
  request: StaticRequest;
}

type Routes = ReturnType<typeof staticRoutes>;

const scope = globalThis as unknown as {
  onmessage: ((event: { data: WorkerRequest }) => void) | null;
  postMessage(message: { id: number; reply: StaticReply }): void;
};
const books = new Map<string, Promise<Routes>>();

function routesOf(manifest: string): Promise<Routes> {
  let routes = books.get(manifest);
  if (!routes) {
    routes = openStaticBook(manifest).then((engine) => {
      const { historyWindow, feedbackUrl } = engine.manifest.settings;
      return staticRoutes(engine, historyWindow ?? 5, feedbackUrl ? { feedbackUrl } : {});
    });
    routes.catch(() => books.delete(manifest));
    books.set(manifest, routes);
  }
  return routes;
}

scope.onmessage = async ({ data }) => {
  let reply: StaticReply;
  try {
    reply = await (await routesOf(data.manifest))(data.request);
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
};
