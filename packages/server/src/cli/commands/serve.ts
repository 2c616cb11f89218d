import type { Config } from "../../config/config.ts";
import { startServer } from "../../http/server.ts";
import { scanDocs } from "../../ingest/files.ts";
import { openLectern } from "../../lectern.ts";
import { runIngest } from "./run-ingest.ts";

/**
 * `lectern serve [--docs <dir>] [--strict]` and `lectern start`: ingests the docs when given, then answers
 * over HTTP until SIGINT or SIGTERM, then shuts down gracefully: the port closes at once,
 * requests in flight finish, the database closes, and the process ends.
 */
export async function serveCommand(
  config: Config,
  docsDir: string | undefined,
  { strict = false }: { strict?: boolean } = {},
): Promise<number> {
  if (docsDir) await scanDocs(docsDir);
  const lectern = await openLectern(config, { workload: "serve" });
  try {
    if (docsDir) {
      process.stdout.write(`Ingesting ${docsDir}\n`);
      // Pages that fail are reported and the good ones served, unless --strict asks otherwise.
      if ((await runIngest(lectern, docsDir, { json: false, strict })) !== 0 && strict) {
        await lectern.close();
        return 1;
      }
    } else if (lectern.served.terms.size === 0) {
      process.stderr.write(
        "warning: nothing has been ingested yet; run lectern ingest --docs <dir> or pass --docs.\n",
      );
    }
  } catch (error) {
    await lectern.close();
    throw error;
  }
  const server = await startServer(config, { lectern });
  process.stdout.write(
    `Lectern is answering at ${server.url} (try: curl -s ${server.url}/chat -H 'content-type: application/json' -d '{"query":"How do topics work?"}')\n`,
  );
  const signal = await nextSignal();
  process.stdout.write(`${signal}: shutting down (finishing requests in flight)\n`);
  // A second signal while requests finish stops at once.
  const stopNow = () => process.exit(1);
  process.once("SIGINT", stopNow);
  process.once("SIGTERM", stopNow);
  await server.close(); // closes the port, waits for requests up to LECTERN_SHUTDOWN_TIMEOUT_MS
  await lectern.close();
  process.stdout.write("Lectern shut down\n");
  return 0;
}

/** Resolves with the first SIGINT or SIGTERM; from then on they no longer end the process. */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
    const handler = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, handler);
      resolve(signal);
    };
    for (const name of signals) process.on(name, handler);
  });
}
