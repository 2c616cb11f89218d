import { parseBookJson } from "../search/book-json.ts";
import { type Engine, type EngineSettings, openEngine } from "./engine.ts";

export {
  type Engine,
  type EngineAnswer,
  type EngineQuestion,
  openEngine,
  SnapshotMismatchError,
} from "./engine.ts";
export { type StaticReply, type StaticRequest, staticRoutes } from "./static-routes.ts";

/**
 * A static build's manifest (`lectern build-static`): where the book and its BM25 index are,
 * relative to the manifest, named by the index version so a host may cache them for good; the
 * manifest itself is read fresh, so a new build is seen at once.
 */
export interface StaticManifest {
  format: typeof STATIC_FORMAT;
  indexVersion: number;
  title: string;
  /** The book's pages and chunks (`BookFile`), relative to the manifest. */
  book: string;
  /** The BM25 snapshot, relative to the manifest. */
  index: string;
  settings: EngineSettings;
}

/** Raised when the files a static build wrote change shape. */
export const STATIC_FORMAT = 1;

/** Raised when a static book cannot be loaded: a file missing, unreadable or of another build. */
export class StaticBookError extends Error {
  constructor(
    readonly code: "STATIC_BOOK_UNREACHABLE" | "STATIC_BOOK_INVALID",
    message: string,
  ) {
    super(message);
  }
}

/**
 * The engine over a static build, from its manifest's URL: the manifest, then the book and its
 * index, fetched once. Runs wherever `fetch` does (a browser, a Web Worker, Node).
 */
export async function openStaticBook(
  manifestUrl: string | URL,
  fetcher: typeof fetch = globalThis.fetch,
): Promise<Engine & { manifest: StaticManifest }> {
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const base = new URL(manifestUrl, page);
  const manifest = await fetchText(fetcher, base, "no-cache").then((text) =>
    manifestOf(text, base),
  );
  const [bookText, index] = await Promise.all([
    fetchText(fetcher, new URL(manifest.book, base), "default"),
    fetchText(fetcher, new URL(manifest.index, base), "default"),
  ]);
  const book = parseBookJson(bookText);
  if (!book)
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${manifest.book} is not a book this engine reads: rebuild with this Lectern's build-static.`,
    );
  if (book.indexVersion !== manifest.indexVersion)
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${manifest.book} holds index version ${book.indexVersion}, the manifest ${manifest.indexVersion}: the files are of two builds.`,
    );
  const engine = await openEngine({ book, index, settings: manifest.settings });
  return Object.assign(engine, { manifest });
}

async function fetchText(
  fetcher: typeof fetch,
  url: URL,
  cache: "no-cache" | "default",
): Promise<string> {
  let response: Response;
  try {
    response = await fetcher(url, { cache } as Parameters<typeof fetch>[1]);
  } catch (error) {
    throw new StaticBookError(
      "STATIC_BOOK_UNREACHABLE",
      `Could not fetch ${url.href}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!response.ok)
    throw new StaticBookError(
      "STATIC_BOOK_UNREACHABLE",
      `Could not fetch ${url.href}: HTTP ${response.status}.`,
    );
  return response.text();
}

function manifestOf(text: string, url: URL): StaticManifest {
  let manifest: Partial<StaticManifest>;
  try {
    manifest = JSON.parse(text) as Partial<StaticManifest>;
  } catch {
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${url.href} is not a Lectern manifest (not JSON).`,
    );
  }
  if (manifest.format !== STATIC_FORMAT || !manifest.book || !manifest.index || !manifest.settings)
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${url.href} is not a Lectern manifest of format ${STATIC_FORMAT}: rebuild with this Lectern's build-static.`,
    );
  return manifest as StaticManifest;
}
