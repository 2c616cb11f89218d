import type { Context } from "hono";
import type { Config } from "../config/config.ts";

/**
 * The origin a response's page links are made absolute against when no LECTERN_BASE_URL is set
 * (ingest then stores them as paths, `/docs/…`): the page that asked, when it is one of the
 * CORS_ORIGINS (a docs site embedding the widget serves the pages itself); otherwise the origin the
 * request was sent to, as the proxy forwarded it when TRUST_PROXY is on. Undefined when nothing
 * usable is known.
 */
export function publicOrigin(
  context: Context,
  config: Pick<Config, "corsOrigins"> & { rateLimit: { trustProxy: boolean } },
): string | undefined {
  const asked = context.req.header("origin");
  if (asked && config.corsOrigins.includes(asked)) return asked;
  let url: URL;
  try {
    url = new URL(context.req.url);
  } catch {
    return undefined;
  }
  if (url.origin === "null") return undefined;
  let scheme = url.protocol.slice(0, -1);
  let host = url.host;
  if (config.rateLimit.trustProxy) {
    const proto = firstValue(context.req.header("x-forwarded-proto"));
    const forwarded = firstValue(context.req.header("x-forwarded-host"));
    if (proto === "http" || proto === "https") scheme = proto;
    if (forwarded && HOST.test(forwarded)) host = forwarded;
  }
  return `${scheme}://${host}`;
}

/** A host name or IP address, with an optional port: nothing that could add a path. */
const HOST = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/;

/** A site path (`/docs/x#y`) joined to `origin`; full URLs, empty strings and others unchanged. */
export function absoluteUrl(url: string, origin: string | undefined): string {
  if (!origin || !url.startsWith("/") || url.startsWith("//")) return url;
  return `${origin}${url}`;
}

function firstValue(header: string | undefined): string | undefined {
  return header?.split(",")[0]?.trim().toLowerCase() || undefined;
}
