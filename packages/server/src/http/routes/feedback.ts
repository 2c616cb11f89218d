import { createError } from "@lectern/engine/errors";
import type { Handler } from "hono";
import { parseStorableJson } from "../../util/storable-text.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { readBody } from "../read-body.ts";
import { invalidSession, isUuidV4 } from "../request.ts";
import { bearerToken, sameSecret } from "../secret.ts";
import { FeedbackRequestSchema } from "../wire.ts";

/** The largest feedback body: a vote and a comment. */
export const FEEDBACK_MAX_BYTES = 16 * 1024; // 16 KiB

/** POST /feedback: a reader's thumbs up or down (and comment) on an answer; a new vote replaces it. */
export function postFeedback(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const contentType = context.req.header("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw createError("UNSUPPORTED_MEDIA_TYPE");
    const text = new TextDecoder().decode(await readBody(context, FEEDBACK_MAX_BYTES));
    let json: unknown;
    try {
      // The comment and the message id are stored: made storable like every request's text.
      json = parseStorableJson(text);
    } catch {
      throw createError("INVALID_JSON");
    }
    const parsed = FeedbackRequestSchema.safeParse(json);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join(".") || "body";
      if (field === "session_id") throw invalidSession();
      throw createError("VALIDATION_ERROR", `Invalid field "${field}".`, { details: { field } });
    }
    if (!isUuidV4(parsed.data.session_id)) throw invalidSession();
    const sessionId = parsed.data.session_id.toLowerCase();
    const store = feedbackStore(deps);
    await deps.feedbackRateLimit(context, sessionId);
    // A vote names an answer this server gave in this session; anything else is refused, so the
    // table holds only votes on real answers.
    if (!(await deps.history.hasMessage(sessionId, parsed.data.message_id))) {
      throw createError("MESSAGE_NOT_FOUND", undefined, { details: { field: "message_id" } });
    }
    await store.save({
      sessionId,
      messageId: parsed.data.message_id.toLowerCase(),
      rating: parsed.data.rating,
      comment: parsed.data.comment?.trim() || null,
    });
    return context.json({ stored: true }, 201);
  };
}

/** GET /feedback: every vote as JSON, or CSV with `?format=csv`; needs the admin token. */
export function exportFeedback(deps: RouteDeps): Handler<AppEnv> {
  const { adminToken } = deps.config;
  return async (context) => {
    const valid =
      adminToken !== undefined &&
      (await deps.adminAuth(context, (authorization) => {
        const token = bearerToken(authorization);
        return token !== undefined && sameSecret(token, adminToken);
      }));
    if (!valid) {
      throw createError(
        "UNAUTHORIZED",
        adminToken
          ? "A valid admin token is required."
          : "Set LECTERN_ADMIN_TOKEN to export feedback.",
      );
    }
    const store = feedbackStore(deps);
    const entries = (await store.all()).map((entry) => ({
      session_id: entry.sessionId,
      message_id: entry.messageId,
      rating: entry.rating,
      comment: entry.comment,
      created_at: entry.createdAt.toISOString(),
    }));
    if (context.req.query("format") === "csv") {
      const cell = (value: string | null) =>
        `"${spreadsheetText(value ?? "").replace(/"/g, '""')}"`;
      const lines = [
        "session_id,message_id,rating,comment,created_at",
        ...entries.map((entry) =>
          [entry.session_id, entry.message_id, entry.rating, entry.comment, entry.created_at]
            .map(cell)
            .join(","),
        ),
      ];
      return context.body(`${lines.join("\n")}\n`, 200, {
        "content-type": "text/csv; charset=utf-8",
      });
    }
    return context.json({ entries, total: entries.length });
  };
}

function feedbackStore(deps: RouteDeps) {
  if (!deps.feedback)
    throw createError("SERVICE_UNAVAILABLE", "Feedback is not stored on this server.");
  return deps.feedback;
}

/**
 * A cell a spreadsheet shows as text: one that starts like a formula (=, +, -, @, or a tab or
 * carriage return before one) gets a leading apostrophe, so `=HYPERLINK(…)` in a reader's comment
 * is never run when the export is opened.
 */
function spreadsheetText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
