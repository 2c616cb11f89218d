/**
 * One HTTP GET of a crawl: redirects followed by hand so that each hop is checked against the
 * site's scope and robots.txt, conditional headers from the previous crawl, the body read up to a
 * size limit and decoded by its declared charset.
 */
import { createError } from "@lectern/engine/errors";

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface FetchSettings {
  userAgent: string;
  /** Larger bodies are not read (the page is skipped with CRAWL_PAGE_TOO_LARGE). */
  maxBytes: number;
  timeoutMs: number;
  /** May the crawl follow a redirect to this URL (same site, allowed by robots.txt)? */
  mayVisit(url: URL): boolean;
  /** Claims a redirect's target for this request; false when the crawl has it already. */
  claim(url: URL): boolean;
  /** The validators stored for a URL by the previous crawl, sent as conditional headers. */
  validatorsOf(url: string): Validators | undefined;
}

export type FetchOutcome =
  | ({
      kind: "page";
      url: string;
      status: number;
      contentType: string;
      body: Uint8Array;
    } & Validators)
  | { kind: "not-modified"; url: string }
  | { kind: "too-large"; url: string; size: number }
  | { kind: "failed"; url: string; status: number }
  | { kind: "outside"; url: string; target: string }
  | { kind: "known"; url: string; target: string };

/** At most this many redirects for one URL, as browsers allow about 20. */
const MAX_REDIRECTS = 10;

/**
 * GETs `start`, following redirects while they stay within what `mayVisit` allows. Throws
 * CRAWL_REDIRECT_LOOP when the redirects come back to a URL already seen (or never end), and
 * lets network errors (the server cannot be reached) through.
 */
export async function fetchPage(start: string, settings: FetchSettings): Promise<FetchOutcome> {
  const hops = new Set<string>();
  let url = start;
  while (true) {
    if (hops.has(url) || hops.size > MAX_REDIRECTS) {
      throw createError(
        "CRAWL_REDIRECT_LOOP",
        `${start}: redirects loop (${[...hops, url].join(" → ")}).`,
        {
          details: { url: start },
        },
      );
    }
    hops.add(url);
    const response = await fetch(url, {
      redirect: "manual",
      headers: requestHeaders(settings, settings.validatorsOf(url)),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      await response.body?.cancel();
      const target = new URL(location, url);
      target.hash = "";
      if (!settings.mayVisit(target)) return { kind: "outside", url, target: target.href };
      if (!hops.has(target.href) && !settings.claim(target)) {
        return { kind: "known", url, target: target.href };
      }
      url = target.href;
      continue;
    }
    return outcomeOf(url, response, settings.maxBytes);
  }
}

function requestHeaders(settings: FetchSettings, validators: Validators | undefined) {
  const headers: Record<string, string> = {
    "user-agent": settings.userAgent,
    accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
  };
  if (validators?.etag) headers["if-none-match"] = validators.etag;
  if (validators?.lastModified) headers["if-modified-since"] = validators.lastModified;
  return headers;
}

async function outcomeOf(url: string, response: Response, maxBytes: number): Promise<FetchOutcome> {
  if (response.status === 304) {
    await response.body?.cancel();
    return { kind: "not-modified", url };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { kind: "failed", url, status: response.status };
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { kind: "too-large", url, size: declared };
  }
  const body = await readCapped(response, maxBytes);
  if (body === undefined) return { kind: "too-large", url, size: maxBytes + 1 };
  const etag = response.headers.get("etag");
  const lastModified = response.headers.get("last-modified");
  return {
    kind: "page",
    url,
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body,
    ...(etag ? { etag } : {}),
    ...(lastModified ? { lastModified } : {}),
  };
}

/** The body, or undefined as soon as it grows past `maxBytes` (the rest is not downloaded). */
async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!response.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += part.length;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(part);
  }
  return Buffer.concat(parts);
}

/** Is this a media type the crawl reads as a page? */
export function isHtml(contentType: string): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

/**
 * The page's text, decoded by the charset its Content-Type declares, else its `<meta charset>`,
 * else UTF-8; undefined when the charset is one TextDecoder does not know.
 */
export function decodeHtml(
  body: Uint8Array,
  contentType: string,
): { text: string } | { charset: string } {
  const head = Buffer.from(body.subarray(0, 2048)).toString("latin1");
  const charset =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    "utf-8";
  try {
    // The constructor refuses a label it does not know; decoding itself never throws.
    return { text: new TextDecoder(charset).decode(body) };
  } catch {
    return { charset };
  }
}
