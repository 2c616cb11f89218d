import { createError } from "@lectern/engine/errors";
import { cutText } from "@lectern/engine/util/cut-text";
import type { Context, Handler } from "hono";
import { escapeHtml } from "../../ingest/render-html.ts";
import type { SharedAnswer, ShareStore } from "../../store/share-store.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { readBody } from "../read-body.ts";
import { invalidSession, isUuidV4 } from "../request.ts";
import { prefersHtml } from "../site.ts";

/**
 * Sharing an answer (off unless SHARE_ENABLED): POST /share copies one exchange of a session under
 * an unguessable id; GET /share/{id} shows it read-only with its citations; DELETE /share/{id}
 * removes it when sent with the session id that created it (X-Session-Id).
 */

const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;

/** The largest share request: a session id and a message id. */
export const SHARE_MAX_BYTES = 4 * 1024; // 4 KiB

export function postShare(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const store = shareStoreOf(deps);
    const contentType = context.req.header("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw createError("UNSUPPORTED_MEDIA_TYPE");
    const text = new TextDecoder().decode(await readBody(context, SHARE_MAX_BYTES));
    let body: { session_id?: unknown; message_id?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw createError("INVALID_JSON");
    }
    if (typeof body !== "object" || body === null) throw createError("INVALID_JSON");
    const sessionId = typeof body.session_id === "string" ? body.session_id : "";
    if (!isUuidV4(sessionId)) throw invalidSession();
    const messageId = typeof body.message_id === "string" ? body.message_id : "";
    if (messageId === "" || messageId.length > 200) {
      throw createError("VALIDATION_ERROR", 'Invalid field "message_id".', {
        details: { field: "message_id" },
      });
    }
    await deps.shareRateLimit(context, sessionId.toLowerCase());
    const history = await deps.history.getHistory(
      sessionId.toLowerCase(),
      deps.config.limits.historyMaxLimit,
    );
    const entry = history?.entries.find((candidate) => candidate.messageId === messageId);
    if (!entry) {
      throw createError(
        "MESSAGE_NOT_FOUND",
        "This conversation has no answer with that message_id.",
      );
    }
    const shared = await store.create({
      sessionId: sessionId.toLowerCase(),
      messageId,
      query: entry.query,
      response: entry.response,
      sources: entry.sources,
    });
    return context.json({ share_id: shared.id, url: `/share/${shared.id}` }, 201);
  };
}

export function getShare(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const shared = await findShare(deps, context);
    if (!prefersHtml(context)) {
      return context.json({
        share_id: shared.id,
        query: shared.query,
        answer: shared.response,
        sources: shared.sources,
        created_at: shared.createdAt.toISOString(),
      });
    }
    context.header("Cache-Control", "private, no-store");
    context.header("Referrer-Policy", "no-referrer");
    return context.html(sharePage(shared));
  };
}

export function deleteShare(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const store = shareStoreOf(deps);
    const id = context.req.param("share_id") ?? "";
    const sessionId = context.req.header("x-session-id") ?? "";
    if (!isUuidV4(sessionId)) throw invalidSession();
    if (!SHARE_ID.test(id) || !(await store.delete(id, sessionId.toLowerCase()))) {
      throw createError("SHARE_NOT_FOUND");
    }
    return context.json({ share_id: id, deleted: true });
  };
}

function shareStoreOf(deps: RouteDeps): ShareStore {
  if (!deps.config.shareEnabled) throw createError("SHARING_DISABLED");
  if (!deps.shares) {
    throw createError("SERVICE_UNAVAILABLE", "Shared answers are not stored on this server.");
  }
  return deps.shares;
}

async function findShare(deps: RouteDeps, context: Context<AppEnv>): Promise<SharedAnswer> {
  const id = context.req.param("share_id") ?? "";
  // With sharing off, links answer as if they never existed.
  const shared =
    deps.config.shareEnabled && deps.shares && SHARE_ID.test(id)
      ? await deps.shares.get(id)
      : undefined;
  if (!shared) throw createError("SHARE_NOT_FOUND");
  return shared;
}

interface ShownSource {
  citation_number?: number;
  source_url?: string;
  title?: string;
  section?: string;
}

/** The exchange as a page: the question, the answer with its [n] markers linked, the sources. */
export function sharePage(shared: SharedAnswer): string {
  const sources = shared.sources.filter(
    (source): source is ShownSource => typeof source === "object" && source !== null,
  );
  const linked = (text: string) =>
    escapeHtml(text).replace(/\[(\d{1,2})\]/g, (marker, number: string) =>
      sources.some((source) => String(source.citation_number) === number)
        ? `<a href="#source-${number}">${marker}</a>`
        : marker,
    );
  const paragraphs = shared.response
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) =>
      /^```/.test(paragraph)
        ? `<pre><code>${escapeHtml(paragraph.replace(/^```[^\n]*\n?|\n?```$/g, ""))}</code></pre>`
        : `<p>${linked(paragraph)}</p>`,
    )
    .join("\n");
  const list = sources
    .map((source, index) => {
      const number = source.citation_number ?? index + 1;
      const label = [source.title, source.section].filter(Boolean).join(" › ") || "Source";
      const href = safeHref(source.source_url);
      const name = escapeHtml(label);
      return `<li id="source-${number}" value="${number}">${href ? `<a href="${escapeHtml(href)}">${name}</a>` : name}</li>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(cutText(shared.query, 80))} · Shared answer</title>
</head>
<body>
<main>
<p>A shared answer, ${escapeHtml(shared.createdAt.toISOString().slice(0, 10))}</p>
<h1>${escapeHtml(shared.query)}</h1>
${paragraphs}
${list ? `<h2>Sources</h2>\n<ol>\n${list}\n</ol>` : ""}
<p><a href="/">Open the book</a></p>
</main>
</body>
</html>`;
}

/** A link target that is a path on this site or an http(s) URL; anything else is dropped. */
function safeHref(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  return /^https?:\/\//i.test(url) ? url : undefined;
}
