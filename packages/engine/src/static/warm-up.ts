import type { Engine } from "../engine/engine.ts";
import type { StaticRequest } from "./static-routes.ts";

/**
 * A cold engine's first answer is mostly its own code compiled and run for the first time, not
 * the book's work. A reader who opens the panel reads its starter questions and types for some
 * seconds before asking; meanwhile the engine answers the book's first starter question for no
 * one, so that the reader's question runs code already compiled (and, in a sharded book, finds
 * that question's shards loaded). Only a book first opened for the panel (`GET /suggestions`)
 * is warmed, once: a question that comes first warms the engine by being answered, and the
 * search box's searches as the reader types would wait behind the warming.
 *
 * Returns what to call with each request after answering it; its promise settles when the
 * warming is done (or was not needed). The warming's answer goes nowhere and its failure too.
 */
export function warmUpOnOpen(
  engine: Pick<Engine, "synopsis" | "ask">,
): (request: StaticRequest) => Promise<void> {
  let seen = false;
  return async (request) => {
    if (seen) return;
    seen = true;
    const starter = engine.synopsis?.starters[0];
    if (request.method !== "GET" || !request.path.startsWith("/suggestions")) return;
    if (starter === undefined) return;
    await engine.ask({ query: starter }).then(
      () => undefined,
      () => undefined,
    );
  };
}
