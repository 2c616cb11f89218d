import { timingSafeEqual } from "node:crypto";
import type { Handler } from "hono";
import { createError } from "../../errors.ts";
import { storableJson } from "../../util/storable-text.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { invalidSession, isUuidV4 } from "../request.ts";
import { FeedbackRequestSchema } from "../wire.ts";

/** POST /feedback: a reader's thumbs up or down (and comment) on an answer; a new vote replaces it. */
export function postFeedback(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const contentType = context.req.header("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw createError("UNSUPPORTED_MEDIA_TYPE");
    const text = await context.req.text();
    if (text.length > 16_384)
      throw createError("PAYLOAD_TOO_LARGE", "Feedback is limited to 16 KiB.");
    let json: unknown;
    try {
      // The comment and the message id are stored: made storable like every request's text.
      json = storableJson(JSON.parse(text));
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
    const store = feedbackStore(deps);
    await store.save({
      sessionId: parsed.data.session_id.toLowerCase(),
      messageId: parsed.data.message_id,
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
    const token = context.req.header("authorization")?.replace(/^Bearer\s+/i, "");
    if (!adminToken || !token || !sameSecret(token, adminToken)) {
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
      const cell = (value: string | null) => `"${(value ?? "").replace(/"/g, '""')}"`;
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

/** Compares secrets in constant time. */
function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}
