import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | undefined | null = null;

/**
 * A full garbage collection, for an ingest between batches of pages: V8 otherwise lets a run's
 * promoted garbage (parse trees, analysed text) pile up to well over the live heap before it
 * collects, and that slack was most of the ingest's peak RSS above the embedded database.
 * Node hands out `gc` only under --expose-gc, which `lectern` is not started with; like Jest's
 * leak detector, this turns the flag on just long enough to take `gc` from a new context. Does
 * nothing when that is not possible.
 */
export function collectGarbage(): void {
  if (collect === null) collect = findCollector();
  collect?.();
}

function findCollector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === "function") return exposed as () => void;
  try {
    setFlagsFromString("--expose-gc");
    const found: unknown = runInNewContext("gc");
    return typeof found === "function" ? (found as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}
