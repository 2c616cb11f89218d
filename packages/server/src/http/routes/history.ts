import { createError } from "@lectern/engine/errors";
import type { Context, Handler } from "hono";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { publicOrigin, withAbsoluteSources } from "../public-origin.ts";
import { invalidSession, isUuidV4 } from "../request.ts";

/** GET /history/{session_id}: a session's exchanges, oldest first, the last `limit` of them. */
export function getHistory(deps: RouteDeps): Handler<AppEnv> {
  const maxLimit = deps.config.limits.historyMaxLimit;
  return async (context) => {
    const sessionId = sessionIdOf(context);
    await deps.historyRateLimit(context, sessionId);
    const limitText = context.req.query("limit");
    const limit = limitText === undefined ? Math.min(50, maxLimit) : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
      throw createError("VALIDATION_ERROR", `limit must be an integer from 1 to ${maxLimit}.`, {
        details: { field: "limit" },
      });
    }
    const history = await deps.history.getHistory(sessionId, limit);
    if (!history) throw sessionNotFound();
    const origin = publicOrigin(context, deps.config);
    return context.json({
      session_id: sessionId,
      entries: history.entries.map((entry) => ({
        timestamp: entry.timestamp.toISOString(),
        query: entry.query,
        response: entry.response,
        sources: withAbsoluteSources(entry.sources, origin),
        selected_text: entry.selectedText,
        message_id: entry.messageId,
        request_id: entry.requestId,
        metadata: entry.metadata,
      })),
      total_entries: history.total,
    });
  };
}

/** DELETE /history/{session_id}: the session and everything in it. */
export function deleteHistory(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const sessionId = sessionIdOf(context);
    await deps.historyRateLimit(context, sessionId);
    const deleted = await deps.history.deleteSession(sessionId);
    if (!deleted) throw sessionNotFound();
    return context.json({ session_id: sessionId, deleted: true });
  };
}

/** The path's session id, lower-cased; 422 INVALID_SESSION_ID unless it is a UUID v4. */
function sessionIdOf(context: Context<AppEnv>): string {
  const sessionId = context.req.param("session_id") ?? "";
  if (!isUuidV4(sessionId)) throw invalidSession();
  return sessionId.toLowerCase();
}

function sessionNotFound() {
  return createError("SESSION_NOT_FOUND", "No conversation with this session id.");
}
