import {
  type Engine,
  type EngineHost,
  type EngineSettings,
  openShardedEngine,
} from "../engine/engine.ts";
import { type CoreFile, ShardedBook } from "../engine/sharded-book.ts";
import { runtimeHost } from "./host.ts";

export {
  type Engine,
  type EngineAnswer,
  type EngineQuestion,
  openEngine,
  SnapshotMismatchError,
} from "../engine/engine.ts";
export { runtimeHost, type StaticHost } from "./host.ts";
export { type StaticReply, type StaticRequest, staticRoutes } from "./static-routes.ts";
export { warmUpOnOpen } from "./warm-up.ts";

/**
 * A static build's manifest (`lectern build-static`): where the book's core file is, relative to
 * the manifest, in a folder named by the index version so a host may cache the book's files for
 * good; the manifest itself is read fresh, so a new build is seen at once. The core names the
 * book's shards, relative to itself (see sharded-book.ts).
 */
export interface StaticManifest {
  format: typeof STATIC_FORMAT;
  indexVersion: number;
  title: string;
  /** The book's core file (`CoreFile`), relative to the manifest. */
  core: string;
  /**
   * Shards fetched with the core, relative to it: all of a small book's (see
   * `shardsWithCore`), so that its first question needs no other fetch; none of a large one's.
   */
  withCore?: string[];
  settings: EngineSettings;
}

/** Changes when the files a static build writes change shape (1: one book file and one index). */
export const STATIC_FORMAT = 2;

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
 * The engine over a static build, from its manifest's URL: the manifest, then the book's core;
 * each question then fetches the shards it reads (in parallel, kept for the engine's life). Runs
 * wherever `fetch` does (a browser, a Web Worker, Node).
 */
export async function openStaticBook(
  manifestUrl: string | URL,
  fetcher: typeof fetch = globalThis.fetch,
  host: EngineHost = runtimeHost,
): Promise<Engine & { manifest: StaticManifest }> {
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const base = new URL(manifestUrl, page);
  const manifest = await fetchText(fetcher, base, "no-cache").then((text) =>
    manifestOf(text, base),
  );
  const coreUrl = new URL(manifest.core, base);
  const coreFetched = fetchText(fetcher, coreUrl, "default");
  // Asked for just after the core (the core first: it is what every question waits for), not
  // once it has come: a round trip less before a small book's first answer.
  const withCore = Promise.all(
    (manifest.withCore ?? []).map((name) => fetchText(fetcher, new URL(name, coreUrl), "default")),
  );
  // Awaited once the core is read: a core of another build is the error to tell first.
  withCore.catch(() => undefined);
  const coreText = await coreFetched;
  const core = parsed(coreText, manifest.core) as CoreFile;
  if (core?.indexVersion !== manifest.indexVersion)
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${manifest.core} holds index version ${core?.indexVersion}, the manifest ${manifest.indexVersion}: the files are of two builds.`,
    );
  let sharded: ShardedBook;
  try {
    sharded = new ShardedBook(core, { invalid });
  } catch {
    throw invalid(manifest.core);
  }
  const held = await withCore;
  (manifest.withCore ?? []).forEach((name, at) => {
    sharded.hold(name, () => parsed(held[at] as string, name));
  });
  const load = async (names: string[]) => {
    const texts = await Promise.all(
      names.map((name) => fetchText(fetcher, new URL(name, coreUrl), "default")),
    );
    names.forEach((name, at) => {
      try {
        sharded.add(name, parsed(texts[at] as string, name));
      } catch {
        throw invalid(name);
      }
    });
  };
  const engine = await openShardedEngine(sharded, manifest.settings, load, host);
  return Object.assign(engine, { manifest });
}

function parsed(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(name);
  }
}

function invalid(name: string): StaticBookError {
  return new StaticBookError(
    "STATIC_BOOK_INVALID",
    `${name} is not a book file this engine reads: rebuild with this Lectern's build-static.`,
  );
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
  const { withCore } = manifest;
  const names = withCore === undefined || (Array.isArray(withCore) && withCore.every(isShardName));
  if (manifest.format !== STATIC_FORMAT || !manifest.core || !manifest.settings || !names)
    throw new StaticBookError(
      "STATIC_BOOK_INVALID",
      `${url.href} is not a Lectern manifest of format ${STATIC_FORMAT}: rebuild with this Lectern's build-static.`,
    );
  return manifest as StaticManifest;
}

/** A shard's name as a core names it (`pages-3.json`, `terms-0.json`): no path, no URL. */
function isShardName(name: unknown): boolean {
  return typeof name === "string" && /^(?:pages|terms)-\d+\.json$/.test(name);
}
