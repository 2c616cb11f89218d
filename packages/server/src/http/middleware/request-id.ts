import type { MiddlewareHandler } from "hono";
import { requestId } from "hono/request-id";
import type { AppEnv } from "../env.ts";
import { isUuidV4 } from "../request.ts";

/**
 * Gives every request an id: the caller's X-Request-Id when it is a UUID v4 (so a client can
 * follow its request through the logs), otherwise a new one. The response carries it back.
 */
export function requestIds(newId: () => string): MiddlewareHandler<AppEnv>[] {
  return [
    // Hono's middleware would accept any short token; only a UUID v4 is taken from the caller.
    requestId({
      headerName: "",
      generator: (context) => {
        const incoming = context.req.header("x-request-id");
        return incoming && isUuidV4(incoming) ? incoming : newId();
      },
    }),
    async (context, next) => {
      await next();
      // On the response's own headers: `context.header` would rebuild the finished response.
      context.res.headers.set("X-Request-Id", context.get("requestId"));
    },
  ];
}
