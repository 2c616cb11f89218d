import { createError } from "@lectern/engine/errors";
import type { Handler } from "hono";
import { parseDuration } from "../../insights/report.ts";
import { ADMIN_STYLE_SOURCE, adminPage } from "../admin-page.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { pagePolicy } from "../middleware/security-headers.ts";
import { bearerToken, sameSecret } from "../secret.ts";

/** The period shown when none is asked for. */
export const DEFAULT_PERIOD = "7d";

/**
 * GET /admin: the authors' insights, as a page, or as JSON with `format=json`. Only with
 * LECTERN_ADMIN_TOKEN set (otherwise, and with INSIGHTS=off, there is no such page: 404), and only
 * for a request carrying that token, as a bearer token or as the password of HTTP Basic
 * authentication (any user name), which is what a browser asks for after the 401. Wrong tokens are
 * limited per client (`deps.adminAuth`).
 */
export function getAdmin(deps: RouteDeps): Handler<AppEnv> {
  const { adminToken } = deps.config;
  return async (context) => {
    if (!adminToken) {
      throw createError(
        "NOT_FOUND",
        "The admin page is off: set LECTERN_ADMIN_TOKEN to turn it on.",
      );
    }
    if (
      !(await deps.adminAuth(context, (authorization) => authorized(authorization, adminToken)))
    ) {
      context.header("WWW-Authenticate", 'Basic realm="Lectern admin", charset="UTF-8"');
      throw createError("UNAUTHORIZED");
    }
    if (!deps.insights) {
      throw createError("NOT_FOUND", "The question log is off on this server (INSIGHTS=off).");
    }
    const since = context.req.query("since") ?? DEFAULT_PERIOD;
    const format = context.req.query("format");
    if (format !== undefined && format !== "json" && format !== "html") {
      throw createError("VALIDATION_ERROR", 'Invalid field "format": use json or html.', {
        details: { field: "format" },
      });
    }
    const until = new Date(deps.clock?.() ?? Date.now());
    const report = await deps.insights({
      since: new Date(until.getTime() - parseDuration(since)),
      until,
    });
    context.header("Cache-Control", "no-store");
    if (format === "json") return context.json(report);
    // The page's one inline style, and nothing else, is allowed (its own policy, not the book's).
    context.header(
      "Content-Security-Policy",
      pagePolicy(deps.config.frameAncestors, { scripts: [], styles: [ADMIN_STYLE_SOURCE] }),
    );
    return context.html(adminPage(report, { title: report.title ?? "The book", since }));
  };
}

/** A bearer token, or HTTP Basic credentials whose password is the token. */
function authorized(header: string, adminToken: string): boolean {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const password = decoded.slice(decoded.indexOf(":") + 1);
    return decoded.includes(":") && sameSecret(password, adminToken);
  }
  const token = bearerToken(header);
  return token !== undefined && sameSecret(token, adminToken);
}
