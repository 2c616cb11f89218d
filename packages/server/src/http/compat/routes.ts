import { createError } from "@lectern/engine/errors";
import type { ChatInput } from "@lectern/engine/pipeline/types";
import type { Context, Handler } from "hono";
import { streamSSE } from "hono/streaming";
import type * as z from "zod/mini";
import { streamSignals, streamTurn, toChatResponse } from "../chat-turn.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from "../middleware/errors.ts";
import { stoppingError } from "../middleware/shutdown.ts";
import { publicOrigin } from "../public-origin.ts";
import { isUuidV4, readJsonObject } from "../request.ts";
import { getHealth } from "../routes/health.ts";
import { type SourceCitation, SourceCitationSchema } from "../wire.ts";
import { S0QueryRequestSchema, s0Input, toS0Error, toS0Response } from "./s0.ts";
import { type ConversationFacts, toS2Messages, toS2Session } from "./s2.ts";
import { S3ChatRequestSchema, s3Input, toS3Error, toS3Messages, toS3Response } from "./s3.ts";
import {
  isS4Body,
  S4ChatRequestSchema,
  s4Input,
  s4RetrievalFailed,
  toS4Error,
  toS4Response,
} from "./s4.ts";
import { issueField } from "./shape.ts";
import { answerTurn, seedErrorResponse, seedHandler } from "./turn.ts";

/**
 * The seeds' routes: each reads its seed's request, runs the one chat turn every route runs
 * (`answerTurn`), and answers in its seed's words. The route table lists them.
 */

/** The body checked against a seed's schema; a bad field is VALIDATION_ERROR naming it. */
async function readSeedBody<T>(
  context: Context<AppEnv>,
  deps: RouteDeps,
  schema: z.ZodMiniType<T>,
): Promise<T> {
  return parseSeedBody(await readJsonObject(context, deps.config), schema);
}

function parseSeedBody<T>(body: Record<string, unknown>, schema: z.ZodMiniType<T>): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issueField(issue);
  throw createError(
    "VALIDATION_ERROR",
    `Invalid field "${field}": ${issue?.message ?? "invalid"}.`,
    {
      details: { field },
    },
  );
}

/** A well-formed session id the seed requires to exist: 404 SESSION_NOT_FOUND otherwise. */
async function existingSession(deps: RouteDeps, sessionId: string): Promise<string> {
  const id = sessionId.toLowerCase();
  // With HISTORY=off nothing is kept, so no session can be known: every id is taken as given.
  if (deps.history.kind !== "off" && !(await deps.history.sessionExists(id))) {
    throw createError("SESSION_NOT_FOUND", "No conversation with this session id.");
  }
  return id;
}

/* Seed S0: POST /query. */

export function postS0Query(deps: RouteDeps): Handler<AppEnv> {
  return seedHandler(deps.logger, toS0Error, async (context) => {
    const started = deps.now();
    const body = await readSeedBody(context, deps, S0QueryRequestSchema);
    const input = s0Input(body, { requestId: context.get("requestId"), sessionId: deps.newId() });
    return context.json(toS0Response(await answerTurn(context, deps, input, started)));
  });
}

/* Seed S3: POST /api/chat, GET /api/sessions/{session_id}/history, GET /api/health. */

export function postS3Chat(deps: RouteDeps): Handler<AppEnv> {
  return seedHandler(deps.logger, toS3Error, async (context) => {
    const started = deps.now();
    const body = await readSeedBody(context, deps, S3ChatRequestSchema);
    const sessionId = body.session_id ? await existingSession(deps, body.session_id) : deps.newId();
    const input = s3Input(body, { requestId: context.get("requestId"), sessionId });
    const turn = await answerTurn(context, deps, input, started);
    return context.json(
      toS3Response(turn, new Date(), await citedPassages(deps, turn.response.sources)),
    );
  });
}

/** The whole text of each book passage an answer cites (when the book can give it). */
async function citedPassages(
  deps: RouteDeps,
  sources: readonly unknown[],
): Promise<(source: SourceCitation) => string | undefined> {
  const pages = sources.flatMap((source) => {
    const parsed = SourceCitationSchema.safeParse(source);
    return parsed.success ? [parsed.data.file_path] : [];
  });
  if (!deps.chunksOfPages || pages.length === 0) return () => undefined;
  const chunks = await deps.chunksOfPages([...new Set(pages)]);
  return (source) =>
    chunks.get(source.file_path)?.find((chunk) => chunk.chunkIndex === source.chunk_position)?.text;
}

export function getS3History(deps: RouteDeps): Handler<AppEnv> {
  return seedHandler(deps.logger, toS3Error, async (context) => {
    const sessionId = context.req.param("session_id") ?? "";
    if (!isUuidV4(sessionId)) {
      throw createError("VALIDATION_ERROR", "session_id must be a UUID v4.", {
        details: { field: "session_id" },
      });
    }
    const id = sessionId.toLowerCase();
    const limit = deps.config.limits.historyMaxLimit;
    const history = await deps.history.getHistory(id, limit);
    if (!history) throw createError("SESSION_NOT_FOUND", "Session not found.");
    const passage = await citedPassages(
      deps,
      history.entries.flatMap((entry) => entry.sources),
    );
    return context.json({
      session_id: id,
      messages: history.entries.flatMap((entry) => toS3Messages(id, entry, passage)),
    });
  });
}

export function getS3Health(deps: RouteDeps): Handler<AppEnv> {
  return getHealth(deps);
}

/* Seed S4: POST /chat with `query_text` or `response_format`. */

/**
 * POST /chat: a body in S4's words (`query_text`, `response_format`) is answered as S4; any other
 * body goes to Lectern's own handler unchanged, which also answers every unreadable body.
 */
export function chatOrS4(deps: RouteDeps, ownHandler: Handler<AppEnv>): Handler<AppEnv> {
  return async (context, next) => {
    const body = await readJsonObject(context, deps.config).catch(() => undefined);
    if (!body || !isS4Body(body)) return ownHandler(context, next);
    const sessionId = typeof body.session_id === "string" ? body.session_id : "";
    try {
      return await answerS4(context, deps, body);
    } catch (error) {
      return seedErrorResponse(context, deps.logger, error, (classified, retryAfter) =>
        toS4Error(classified, sessionId, retryAfter),
      );
    }
  };
}

async function answerS4(context: Context<AppEnv>, deps: RouteDeps, json: Record<string, unknown>) {
  const started = deps.now();
  const body = parseSeedBody(json, S4ChatRequestSchema);
  // S4's page makes the id and sends it with its first message: an id not seen before starts
  // the conversation under that id (an ended one is refused when its history is read).
  const sessionId = body.session_id?.toLowerCase() ?? deps.newId();
  const input = s4Input(body, { requestId: context.get("requestId"), sessionId });
  if (body.response_format === "stream") return streamS4(context, deps, input, started);
  const turn = await answerTurn(context, deps, input, started);
  if (turn.response.sources.length === 0) {
    const { status, body: failure } = s4RetrievalFailed(turn.response);
    return context.json(failure, status as 404);
  }
  return context.json(toS4Response(turn, deps.now() - started, publicOrigin(context, deps.config)));
}

/**
 * S4's `response_format: "stream"`: Server-Sent Events `delta` ({delta}) as the answer is
 * written, then `response` (the whole S4 ChatResponse) and `done`; a failure once the stream has
 * begun is an `error` event carrying S4's error body, and so is the server's shutdown timeout
 * cutting the answer off.
 */
async function streamS4(
  context: Context<AppEnv>,
  deps: RouteDeps,
  request: ChatInput,
  started: number,
) {
  const release = await deps.admission(context, request.sessionId);
  let input: ChatInput;
  try {
    input = await deps.chat.withHistory(request);
  } catch (error) {
    release();
    throw error;
  }
  const signals = streamSignals(deps, context);
  const { abort, cutOff, failure: endedBy, dispose } = signals;
  return streamSSE(context, async (stream) => {
    stream.onAbort(() => abort.abort());
    const sendError = (error: unknown) => {
      const classified = endedBy(error);
      const retryAfter = cutOff.aborted ? SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS : undefined;
      const failure = toS4Error(classified, request.sessionId, retryAfter);
      return stream.writeSSE({ event: "error", data: JSON.stringify(failure.body) });
    };
    try {
      const outcome = await streamTurn(deps, input, stream, signals);
      // Cut off at the shutdown timeout: the reader is told, and nothing half-done is stored.
      if (cutOff.aborted) throw stoppingError();
      if (!outcome) return;
      const response = toChatResponse(deps, input, outcome, started);
      await deps.chat.saveExchange(input, response);
      if (response.sources.length === 0) {
        const failure = s4RetrievalFailed(response);
        await stream.writeSSE({ event: "error", data: JSON.stringify(failure.body) });
        return;
      }
      const answer = toS4Response(
        { input, response },
        deps.now() - started,
        publicOrigin(context, deps.config),
      );
      await stream.writeSSE({ event: "response", data: JSON.stringify(answer) });
      await stream.writeSSE({ event: "done", data: JSON.stringify({ done: true }) });
      deps.logger.info({ requestId: input.requestId, stream: true, seed: "S4" }, "chat (compat)");
    } catch (error) {
      if (abort.signal.aborted || context.req.raw.signal.aborted) return;
      deps.logger.warn({ err: error, requestId: input.requestId }, "S4 stream failed");
      await sendError(error);
    } finally {
      dispose();
      release();
    }
  });
}

/* Seed S2: POST /sessions, GET /sessions/{session_id}, POST /sessions/{session_id}/end,
   GET /sessions/{session_id}/messages. */

const clockOf = (deps: RouteDeps) => deps.clock?.() ?? new Date();
const idleMsOf = (deps: RouteDeps) => deps.config.history.inactiveAfterMinutes * 60_000;

function pathSessionId(context: Context<AppEnv>): string {
  const sessionId = context.req.param("session_id") ?? "";
  if (!isUuidV4(sessionId)) {
    throw createError("INVALID_SESSION_ID", "session_id must be a UUID v4.", {
      details: { field: "session_id" },
    });
  }
  return sessionId.toLowerCase();
}

/**
 * The conversation's facts from the history store: when it was opened and ended (kept with the
 * session, so they survive a restart) and its exchanges (two messages each); 404 if unknown.
 */
async function conversationFacts(deps: RouteDeps, sessionId: string): Promise<ConversationFacts> {
  const state = await deps.history.sessionState(sessionId);
  if (!state) throw createError("SESSION_NOT_FOUND", "No conversation with this session id.");
  const latest = await deps.history.getHistory(sessionId, 1);
  const total = latest?.total ?? 0;
  const lastActivityAt = latest?.entries.at(-1)?.timestamp ?? state.createdAt;
  return {
    sessionId,
    createdAt: state.createdAt,
    lastActivityAt,
    messageCount: total * 2,
    endedAt: state.endedAt,
  };
}

export function postS2Session(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const sessionId = deps.newId();
    const state = await deps.history.openSession(sessionId);
    const facts = {
      sessionId,
      createdAt: state.createdAt,
      lastActivityAt: state.createdAt,
      messageCount: 0,
      endedAt: undefined,
    };
    return context.json(toS2Session(facts, clockOf(deps), idleMsOf(deps)), 201);
  };
}

export function getS2Session(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const facts = await conversationFacts(deps, pathSessionId(context));
    return context.json(toS2Session(facts, clockOf(deps), idleMsOf(deps)));
  };
}

export function postS2End(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const sessionId = pathSessionId(context);
    const facts = await conversationFacts(deps, sessionId);
    const ended = await deps.history.endSession(sessionId);
    const endedAt = ended?.endedAt ?? facts.endedAt ?? clockOf(deps);
    return context.json(toS2Session({ ...facts, endedAt }, clockOf(deps), idleMsOf(deps)));
  };
}

export function getS2Messages(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const sessionId = pathSessionId(context);
    const facts = await conversationFacts(deps, sessionId);
    const history = await deps.history.getHistory(sessionId, Math.max(1, facts.messageCount / 2));
    return context.json({
      session_id: sessionId,
      messages: (history?.entries ?? []).flatMap((entry) => toS2Messages(sessionId, entry)),
    });
  };
}
