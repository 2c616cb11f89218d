import type { Context } from "hono";

/**
 * The origin a response's page links are made absolute against when no LECTERN_BASE_URL is set
 * (ingest then stores them as paths, `/docs/…`). A browser names the page that asks in `Origin`,
 * and can only read the answer when that page is the server's own (then `Origin` is the public
 * origin, whatever proxies lie between) or one of CORS_ORIGINS (a docs site that embeds the
 * widget and serves the pages): either way the page's origin is where the links lead. Without
 * `Origin` (a client that is no browser page) it is the origin the request was sent to, as the
 * proxy forwarded it when TRUST_PROXY is on. Undefined when nothing usable is known.
 */
export function publicOrigin(
  context: Context,
  config: { rateLimit: { trustProxy: boolean } },
): string | undefined {
  const asked = context.req.header("origin");
  if (asked && ORIGIN.test(asked)) return asked;
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

/** A serialised http(s) origin: scheme, host and port, nothing else ("null" is none). */
const ORIGIN = /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i;

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

/** Sources with their `source_url` made absolute against `origin` (`absoluteUrl`). */
export function withAbsoluteSources<T>(sources: T[], origin: string | undefined): T[] {
  if (!origin) return sources;
  return sources.map((source) => {
    const url = (source as { source_url?: unknown } | null)?.source_url;
    if (typeof url !== "string") return source;
    const absolute = absoluteUrl(url, origin);
    return absolute === url ? source : { ...source, source_url: absolute };
  });
}
