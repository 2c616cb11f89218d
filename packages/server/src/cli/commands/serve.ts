import type { Config } from "../../config/config.ts";
import { startServer } from "../../http/server.ts";
import { scanDocs } from "../../ingest/files.ts";
import { openLectern } from "../../lectern.ts";
import { runIngest } from "./ingest.ts";

/**
 * `lectern serve [--docs <dir>] [--strict]` and `lectern start`: ingests the docs when given, then
 * answers over HTTP until SIGINT or SIGTERM.
 */
export async function serveCommand(
  config: Config,
  docsDir: string | undefined,
  { strict = false }: { strict?: boolean } = {},
): Promise<number> {
  if (docsDir) await scanDocs(docsDir);
  const lectern = await openLectern(config);
  try {
    if (docsDir) {
      process.stdout.write(`Ingesting ${docsDir}\n`);
      // Pages that fail are reported and the good ones served, unless --strict asks otherwise.
      if ((await runIngest(lectern, docsDir, { json: false, strict })) !== 0 && strict) {
        await lectern.close();
        return 1;
      }
    } else if (lectern.index.size === 0) {
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
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stdout.write("Shutting down…\n");
      server
        .close()
        .then(() => lectern.close())
        .then(resolve, resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}
