import { createError } from "@lectern/engine/errors";
import type { Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { openApiDocument } from "../openapi.ts";
import { prefersHtml } from "../site.ts";

/** GET /: the book's front page for browsers (demo site); for API clients, what this server serves. */
export function getRoot(deps: RouteDeps): Handler<AppEnv> {
  const endpoints = deps.routes.map((route) => ({
    method: route.method,
    path: route.path,
    description: route.summary,
  }));
  return async (context) => {
    // The same URL answers HTML or JSON by Accept: caches must keep them apart.
    context.header("Vary", "Accept", { append: true });
    if (deps.site && prefersHtml(context)) {
      const page = await deps.site.page(context);
      if (page) return page;
    }
    return context.json({
      name: "Lectern",
      description: "Answers questions about a documentation book, with citations to its sections.",
      version: deps.version,
      endpoints,
      openapi: "/openapi.json",
    });
  };
}

/** GET /openapi.json: the route table as OpenAPI 3.1, built on first request. */
export function getOpenApi(deps: RouteDeps): Handler<AppEnv> {
  let document: ReturnType<typeof openApiDocument> | undefined;
  return (context) => {
    document ??= openApiDocument(deps.routes, deps.version);
    return context.json(document);
  };
}

/** GET /lectern.js: the widget script of the demo site. */
export function getWidgetScript(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    if (!deps.site) throw createError("NOT_FOUND", "No endpoint GET /lectern.js.");
    return deps.site.widget(context);
  };
}
