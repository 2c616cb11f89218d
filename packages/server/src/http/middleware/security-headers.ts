import type { MiddlewareHandler } from "hono";

/**
 * Security headers on every response. HTML pages (the demo site) get a Content-Security-Policy
 * that allows their own origin and their inline style and script by hash only; everything else
 * (JSON, the widget script, event streams) gets a policy that allows nothing, since none of it is
 * meant to render. `frameAncestors` (config `frameAncestors`) names who may frame the pages:
 * nobody by default.
 */

export interface InlineSources {
  /** CSP hash sources (`'sha256-…'`) of the page's inline scripts and styles. */
  scripts: readonly string[];
  styles: readonly string[];
}

export function frameAncestorsSource(frameAncestors: readonly string[]): string {
  return frameAncestors.length === 0 ? "'none'" : frameAncestors.join(" ");
}

export function pagePolicy(frameAncestors: readonly string[], inline: InlineSources): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inline.scripts.join(" ")}`.trim(),
    `style-src 'self' ${inline.styles.join(" ")}`.trim(),
    // The widget calls this server's API; pages link images of their own origin only.
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestorsSource(frameAncestors)}`,
  ].join("; ");
}

/** X-Frame-Options for browsers without frame-ancestors; it cannot name other origins. */
function frameOptions(frameAncestors: readonly string[]): string | undefined {
  if (frameAncestors.length === 0) return "DENY";
  if (frameAncestors.length === 1 && frameAncestors[0] === "'self'") return "SAMEORIGIN";
  return undefined;
}

export function securityHeaders(
  frameAncestors: readonly string[],
  inline: InlineSources,
): MiddlewareHandler {
  const forPages = pagePolicy(frameAncestors, inline);
  const forOthers = `default-src 'none'; frame-ancestors ${frameAncestorsSource(frameAncestors)}`;
  const frame = frameOptions(frameAncestors);
  return async (context, next) => {
    await next();
    // Set on the response's own headers, as hono's secure-headers middleware does: `context.header`
    // on a finished response rebuilds it around its body as a stream, for every header, which
    // the Node server then has to read back chunk by chunk.
    const headers = context.res.headers;
    const isHtml = headers.get("content-type")?.startsWith("text/html") ?? false;
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
    // A page with inline sources of its own (the admin page) sets its own policy; all else gets these.
    if (!(isHtml && headers.has("Content-Security-Policy"))) {
      headers.set("Content-Security-Policy", isHtml ? forPages : forOthers);
    }
    if (frame) headers.set("X-Frame-Options", frame);
  };
}
