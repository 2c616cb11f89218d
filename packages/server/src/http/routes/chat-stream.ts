import type { Handler } from "hono";
import { streamSSE } from "hono/streaming";
import { isDisconnect } from "../../pipeline/error-classification.ts";
import { startChat, streamSignals, streamTurn, toChatResponse } from "../chat-turn.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { stoppingError } from "../middleware/shutdown.ts";
import { publicOrigin, withAbsoluteSources } from "../public-origin.ts";

/**
 * POST /chat/stream: Server-Sent Events `delta`… then `sources`, then `done` once the exchange is
 * stored; a failure after the stream has begun is an `error` event, and so is the server's shutdown
 * timeout cutting the answer off.
 */
export function postChatStream(deps: RouteDeps): Handler<AppEnv> {
  const { logger } = deps;
  return async (context) => {
    const { started, requestId, request, release } = await startChat(context, deps);
    const input = await deps.chat.withHistory(request).catch((error: unknown) => {
      release();
      throw error;
    });
    const signals = streamSignals(deps, context);
    const { abort, cutOff, signal, failure, dispose } = signals;
    const response = streamSSE(context, async (stream) => {
      stream.onAbort(() => abort.abort());
      try {
        const outcome = await streamTurn(deps, input, stream, signals);
        if (cutOff.aborted) throw stoppingError();
        if (!outcome) return;
        const response = toChatResponse(deps, input, outcome, started);
        await stream.writeSSE({
          event: "sources",
          data: JSON.stringify({
            sources: withAbsoluteSources(response.sources, publicOrigin(context, deps.config)),
            metadata: response.metadata,
            session_id: response.session_id,
            confidence: response.confidence,
            answer: response.answer,
            fallback_message: response.fallback_message,
            ...(response.suggestions ? { suggestions: response.suggestions } : {}),
          }),
        });
        // The exchange is stored only once the whole answer has been produced and sent.
        if (cutOff.aborted) throw stoppingError();
        if (signal.aborted) return;
        await deps.chat.saveExchange(input, response);
        await stream.writeSSE({
          event: "done",
          data: JSON.stringify({ done: true, message_id: response.message_id }),
        });
        logger.info(
          { requestId, mode: outcome.mode, stream: true, states: outcome.states },
          "chat",
        );
      } catch (error) {
        // Once the events flow, a reset or broken pipe of no one else's is the reader's socket.
        if (abort.signal.aborted || context.req.raw.signal.aborted || isDisconnect(error)) {
          logger.info({ requestId }, "stream cancelled by the client");
          return;
        }
        const classified = failure(error);
        if (classified.status >= 500) logger.error({ err: error, requestId }, "stream failed");
        await stream.writeSSE({
          event: "error",
          data: JSON.stringify({
            error: {
              error_code: classified.errorCode,
              message: classified.userSafeMessage,
              request_id: requestId,
              retry_able: classified.retryable,
            },
          }),
        });
      } finally {
        dispose();
        release();
      }
    });
    // streamSSE always says keep-alive; a client that asked to close gets its socket closed.
    if (/\bclose\b/i.test(context.req.header("connection") ?? "")) {
      response.headers.set("Connection", "close");
    }
    return response;
  };
}
