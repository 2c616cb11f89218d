import type { Handler } from "hono";
import { requestSignals, startChat, toChatResponse } from "../chat-turn.ts";
import { clientOf } from "../client-link.ts";
import type { RouteDeps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { NEVER_CUT_OFF, stoppingError } from "../middleware/shutdown.ts";
import { publicOrigin, withAbsoluteSources } from "../public-origin.ts";

/** POST /chat: the whole answer as one JSON response. */
export function postChat(deps: RouteDeps): Handler<AppEnv> {
  return async (context) => {
    const { started, requestId, request, release } = await startChat(context, deps);
    const cutOff = deps.shutdownCutOff ?? NEVER_CUT_OFF;
    const { signal, within, dispose } = requestSignals(
      deps.config.requestTimeoutMs,
      [clientOf(context)],
      cutOff,
    );
    try {
      const { input, outcome } = await within(deps.chat.ask(request, { signal })).catch(
        (error: unknown) => {
          throw cutOff.aborted ? stoppingError() : error;
        },
      );
      const response = toChatResponse(deps, input, outcome, started);
      deps.metrics.observeAnswer(outcome);
      await deps.chat.saveExchange(input, response);
      deps.logger.info(
        {
          requestId,
          mode: outcome.mode,
          ms: response.metadata.query_time_ms,
          states: outcome.states,
        },
        "chat",
      );
      // Stored with the book's paths; sent with full URLs (S1's source_url), see publicOrigin.
      const origin = publicOrigin(context, deps.config);
      return context.json({ ...response, sources: withAbsoluteSources(response.sources, origin) });
    } finally {
      dispose();
      release();
    }
  };
}
