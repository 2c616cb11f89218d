import { randomUUID } from "node:crypto";
import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import { warmWordClasses } from "@lectern/engine/answer/word-classes";
import type { AnswerSynthesizer } from "@lectern/engine/pipeline/answer-synthesizer";
import type { Logger } from "pino";
import type { Config } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { createSafeLogger } from "../util/safe-log.ts";
import { composeApp } from "./compose.ts";
import { cutOffController } from "./middleware/shutdown.ts";
import { isUuidV4 } from "./request.ts";
import { clientErrorCode, connectReply, socketErrorReply } from "./socket-replies.ts";

export { createHistoryStore, VERSION } from "./compose.ts";

export interface RunningServer {
  url: string;
  port: number;
  lectern: Lectern;
  history: HistoryStore;
  /** Stops accepting, lets in-flight requests and streams finish (up to the timeout), closes the database. */
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return createSafeLogger(config.logLevel);
}

/** Opens the book and starts the HTTP server on config.host:config.port. */
export async function startServer(
  config: Config,
  options: { lectern?: Lectern; logger?: Logger; synthesizer?: AnswerSynthesizer } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const lectern = options.lectern ?? (await openLectern(config, { workload: "serve" }));
  let shuttingDown = false;
  // Aborted at the shutdown timeout: answers still running say so before their sockets close.
  const cutOff = cutOffController();
  const {
    app,
    history,
    questionLogStore,
    ready,
    close: closeApp,
  } = composeApp(lectern, config, {
    logger,
    synthesizer: options.synthesizer,
    siteAndFeedback: true,
    isShuttingDown: () => shuttingDown,
    shutdownCutOff: cutOff.signal,
  });

  const retentionMs = config.history.retentionDays * 86_400_000;
  const purge = async () => {
    try {
      const removed = await history.purgeInactiveSince(new Date(Date.now() - retentionMs));
      if (removed > 0) logger.info({ removed }, "purged inactive sessions");
    } catch (error) {
      logger.warn({ err: error }, "purging old sessions failed; will retry in an hour");
    }
    if (!questionLogStore) return;
    try {
      const cutoff = new Date(Date.now() - config.insights.retentionDays * 86_400_000);
      const removed = await questionLogStore.purgeOlderThan(cutoff);
      if (removed > 0) logger.info({ removed }, "purged old questions from the question log");
    } catch (error) {
      logger.warn({ err: error }, "purging the question log failed; will retry in an hour");
    }
  };
  await ready;
  await purge();
  const purgeTimer = setInterval(purge, 3_600_000);
  purgeTimer.unref();

  // An ingest by another process (same PostgreSQL database) stores a new index version: load it.
  let refreshing = false;
  const refreshTimer = setInterval(async () => {
    if (refreshing) return;
    refreshing = true;
    try {
      if (await lectern.refresh()) {
        logger.info({ chunks: lectern.served.terms.size }, "loaded a new version of the index");
      }
    } catch (error) {
      logger.warn({ err: error }, "checking for a new index version failed; will retry");
    } finally {
      refreshing = false;
    }
  }, config.indexRefreshMs);
  refreshTimer.unref();

  // An HTTP/1.1 server: serve() makes one unless given another createServer.
  const server = serve({
    fetch: app.fetch,
    hostname: config.host,
    port: config.port,
    serverOptions: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.bodyTimeoutMs,
      // Node checks the timeouts every 30 s by default, which would let a slow body stay longer.
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, config.headersTimeoutMs / 2)),
    },
  }) as HttpServer;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Unhandled, a CONNECT has its socket destroyed without a word.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    socket.end(connectReply(requestIdOf(request)));
  });
  // A request Node cannot parse, or that did not arrive in time: Node's own reply is a bare
  // status line, without the error body or X-Request-Id every other response has.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset, or a reply already begun: there is no one to answer, or it is too late to.
    if (error.code === "ECONNRESET" || !socket.writable || (socket as Socket).bytesWritten > 0) {
      socket.destroy();
      return;
    }
    const code = clientErrorCode(error.code);
    const requestId = randomUUID();
    logger.debug({ requestId, code, parserCode: error.code }, "request Node could not read");
    socket.on("error", () => socket.destroy());
    socket.end(socketErrorReply(code, requestId));
  });
  // Connections accepted so far: shutdown accepts until a turn of the event loop adds none.
  let accepted = 0;
  server.on("connection", () => {
    accepted += 1;
  });
  // The responses not yet finished, so that shutdown can ask each to close its connection.
  const unfinished = new Set<ServerResponse>();
  server.on("request", (_request, response: ServerResponse) => {
    if (shuttingDown) closeAfter(response);
    unfinished.add(response);
    response.once("close", () => unfinished.delete(response));
  });
  // Set once the port is closed and the last requests read: from then on a connection with no
  // request in flight is one a client keeps open for later, and is closed.
  let drained = false;
  // A response sent while the server stops closes its connection; one whose headers already
  // promised to keep it (a stream) has its connection closed once it is complete.
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) {
      response.setHeader("Connection", "close");
      return;
    }
    response.once("finish", () =>
      setImmediate(() => {
        if (drained) server.closeIdleConnections();
      }),
    );
  };
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info(
    { url, chunks: lectern.served.terms.size, history: history.kind },
    "Lectern is listening",
  );
  // A process refused the data directory can then say where its owner answers.
  await lectern.dataDirLock
    ?.update({ url })
    .catch((error: unknown) => logger.warn({ err: error }, "could not record the URL in the lock"));
  // The first refusal would otherwise wait for the word list that names its unknown words.
  warmWordClasses().catch((error: unknown) =>
    logger.warn({ err: error }, "The word-class list did not load"),
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    lectern,
    history,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        clearInterval(purgeTimer);
        clearInterval(refreshTimer);
        for (const response of unfinished) closeAfter(response);
        const timedOut = new Promise<"timeout">((resolve) =>
          setTimeout(() => resolve("timeout"), config.shutdownTimeoutMs).unref(),
        );
        let timeIsUp = false;
        void timedOut.then(() => {
          timeIsUp = true;
        });
        // Closing the port resets the connections the kernel has completed but Node has not yet
        // accepted, and Node accepts one per turn of the event loop: keep accepting (each request
        // then gets a 503) until a turn or two find no connection waiting.
        for (let quietTurns = 0; quietTurns < 2 && !timeIsUp; ) {
          const before = accepted;
          await eventLoopTurns(1);
          quietTurns = accepted === before ? quietTurns + 1 : 0;
        }
        // net's close: http's would also close idle connections, the ones not yet read among them.
        const closed = new Promise<void>((resolve) =>
          NetServer.prototype.close.call(server, () => resolve()),
        );
        // A connection accepted but not yet read looks idle: let the loop read the last requests.
        await eventLoopTurns(2);
        // Keep-alive connections with no request in flight would hold the server open.
        drained = true;
        server.closeIdleConnections();
        if ((await Promise.race([closed, timedOut])) === "timeout") {
          logger.warn("shutdown timeout: ending the answers still running");
          cutOff.abort();
          // A moment for each answer to send its error, then every connection left is closed.
          const told = new Promise<void>((resolve) =>
            setTimeout(resolve, CUT_OFF_GRACE_MS).unref(),
          );
          await Promise.race([closed, told]);
          server.closeAllConnections();
          await closed;
        }
        await closeApp();
        if (!options.lectern) await lectern.close();
        logger.info("Lectern stopped");
      })();
      return closing;
    },
  };
}

/** How long answers cut off at the shutdown timeout get to send their error event. */
const CUT_OFF_GRACE_MS = 1_000; // 1 s

/** Resolves after `turns` passes of the event loop, each of which polls for I/O. */
async function eventLoopTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The caller's X-Request-Id when it is a UUID v4 (as the app takes it), otherwise a new one. */
function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  return typeof incoming === "string" && isUuidV4(incoming) ? incoming : randomUUID();
}
