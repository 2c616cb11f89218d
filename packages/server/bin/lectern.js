#!/usr/bin/env node
// The `lectern` command: the compiled CLI (dist/), run in this process so that signals such as
// SIGTERM from a service manager reach the server itself. A checkout builds dist/ with
// `npm run build`; development runs the TypeScript sources with `npm run lectern`.
let cli;
try {
  cli = await import("../dist/cli/main.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist"))
    throw error;
  process.stderr.write(
    "error: Lectern's compiled code (dist/) is missing. In a checkout of the repository run: npm run build\n",
  );
  process.exit(1);
}
await cli.run(process.argv.slice(2));
