import { createError } from "@lectern/engine/errors";
import type { Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";

/** GET /llms.txt: the book for language models (llmstxt.org), linking each page's Markdown. */
export function getLlmsTxt(deps: RouteDeps): Handler<AppEnv> {
  return (context) => {
    if (!deps.site) throw createError("NOT_FOUND", "No endpoint GET /llms.txt.");
    return deps.site.llmsTxt(context);
  };
}

/** GET /llms-full.txt: every page of the book as Markdown. */
export function getLlmsFullTxt(deps: RouteDeps): Handler<AppEnv> {
  return (context) => {
    if (!deps.site) throw createError("NOT_FOUND", "No endpoint GET /llms-full.txt.");
    return deps.site.llmsFullTxt(context);
  };
}
