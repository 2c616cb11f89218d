import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * A static web server over a built site, as a docs host serves it: `index.html` for folders,
 * content types by extension, ETag and Last-Modified with 304 for conditional requests. It
 * records every request (path, status, User-Agent) for the tests to count.
 */
export interface StaticSite {
  url: string;
  requests: { path: string; status: number; userAgent: string }[];
  /** Answers `path` with a handler instead of a file (redirects, robots.txt, broken pages). */
  route(pathname: string, answer: (request: IncomingMessage) => RouteAnswer): void;
  close(): Promise<void>;
}

export interface RouteAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".xml": "application/xml",
  ".txt": "text/plain",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** `basePath` serves the site below a path, as a host serves a site built with a base URL. */
export async function serveStatic(root: string, { basePath = "/" } = {}): Promise<StaticSite> {
  const routes = new Map<string, (request: IncomingMessage) => RouteAnswer>();
  const requests: StaticSite["requests"] = [];
  const server: Server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://site").pathname);
    const send = (answer: RouteAnswer) => {
      requests.push({
        path: pathname,
        status: answer.status,
        userAgent: String(request.headers["user-agent"] ?? ""),
      });
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body);
    };
    const route = routes.get(pathname);
    if (route) send(route(request));
    else if (!pathname.startsWith(basePath)) send({ status: 404 });
    else fileAnswer(root, pathname, basePath, request).then(send, () => send({ status: 500 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    route: (pathname, answer) => routes.set(pathname, answer),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function fileAnswer(
  root: string,
  pathname: string,
  basePath: string,
  request: IncomingMessage,
): Promise<RouteAnswer> {
  let file = path.join(root, pathname.slice(basePath.length));
  if (!file.startsWith(root)) return { status: 403 };
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) {
    if (!pathname.endsWith("/")) return { status: 301, headers: { location: `${pathname}/` } };
    file = path.join(file, "index.html");
  }
  const body = await readFile(file).catch(() => undefined);
  if (!body) return { status: 404, headers: { "content-type": "text/html" }, body: "Not found" };
  const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
  const headers = {
    "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
    etag,
  };
  if (request.headers["if-none-match"] === etag) return { status: 304, headers };
  return { status: 200, headers, body };
}
