import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../server/src/config/config.ts";
import { startServer } from "../../server/src/http/server.ts";

export interface BuiltSite {
  /** Where the built pages are served, e.g. http://127.0.0.1:4321 (the base URL follows). */
  siteOrigin: string;
  /** Sends a page's requests to the production API host to the local Lectern. */
  routeApi(page: Page): Promise<void>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
};

/**
 * A Docusaurus build served as a static host would serve it (below `baseUrl`, a page's URL
 * without its trailing slash), and Lectern over the index the build wrote (allowing the site's
 * origin); the built pages point at the production API host, which `routeApi` sends to the local
 * Lectern.
 */
export async function serveBuiltSite(options: {
  buildDir: string;
  baseUrl: string;
  dataDir: string;
  apiUrl: string;
}): Promise<BuiltSite> {
  const { buildDir, baseUrl, dataDir, apiUrl } = options;
  const files = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    const relative = pathname.startsWith(baseUrl)
      ? pathname.slice(baseUrl.length)
      : pathname.slice(1);
    let file = path.join(buildDir, relative);
    if (!path.extname(file)) file = path.join(file, "index.html");
    try {
      const body = await readFile(file);
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      response.writeHead(200, { "content-type": type }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  const siteOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  const config = loadConfig({
    env: { LOG_LEVEL: "silent", PORT: "0", CORS_ORIGINS: siteOrigin, RATE_LIMIT_ENABLED: "false" },
    overrides: { dataDir },
  });
  const lectern = await startServer(config);
  return {
    siteOrigin,
    routeApi: async (page) => {
      await page.route(`${apiUrl}/**`, async (route) => {
        const target = route.request().url().replace(apiUrl, lectern.url);
        route.fulfill({ response: await route.fetch({ url: target }) });
      });
    },
    close: async () => {
      await lectern.close();
      await new Promise((resolve) => files.close(resolve));
    },
  };
}
