import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Logger } from "pino";
import { warmWordClasses } from "../answer/word-classes.ts";
import type { Config } from "../config/config.ts";
import { type Lectern, openLectern } from "../lectern.ts";
import type { AnswerSynthesizer } from "../pipeline/answer-synthesizer.ts";
import type { HistoryStore } from "../store/history-store.ts";
import { createSafeLogger } from "../util/safe-log.ts";
import { composeApp } from "./compose.ts";

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
        logger.info({ chunks: lectern.terms.size }, "loaded a new version of the index");
      }
    } catch (error) {
      logger.warn({ err: error }, "checking for a new index version failed; will retry");
    } finally {
      refreshing = false;
    }
  }, config.indexRefreshMs);
  refreshTimer.unref();

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
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ url, chunks: lectern.terms.size, history: history.kind }, "Lectern is listening");
  // A process refused the data directory can then say where its owner answers.
  await lectern.dataDirLock
    ?.update({ url })
    .catch((error: unknown) => logger.warn({ err: error }, "could not record the URL in the lock"));
  // The first weak answer would otherwise wait for the part-of-speech tagger to load.
  warmWordClasses().catch((error: unknown) =>
    logger.warn({ err: error }, "The part-of-speech tagger did not load"),
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
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Idle keep-alive connections would hold the server open; busy ones finish first.
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        const timedOut = new Promise<"timeout">((resolve) =>
          setTimeout(() => resolve("timeout"), config.shutdownTimeoutMs).unref(),
        );
        if ((await Promise.race([closed, timedOut])) === "timeout") {
          logger.warn("shutdown timeout: closing remaining connections");
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
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
