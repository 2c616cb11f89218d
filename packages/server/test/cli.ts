import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
export const CLI_ENTRY = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
/**
 * Node arguments that load TypeScript through tsx in the same process. The `tsx` command would run
 * a second process and kill it when it is slow to acknowledge a signal on a busy machine.
 */
export const TSX_LOADER = ["--import", pathToFileURL(require.resolve("tsx")).href];
/** Node arguments that run the CLI from its TypeScript sources (workspace packages from theirs). */
export const SOURCE_CLI = [...TSX_LOADER, "--conditions=lectern-source", CLI_ENTRY];
/** The published entry point: bin/lectern.js running the compiled CLI (`npm run build`). */
export const LECTERN_BIN = fileURLToPath(new URL("../bin/lectern.js", import.meta.url));
export const SAMPLE_DOCS = fileURLToPath(
  new URL("../../../examples/robotics-primer/docs", import.meta.url),
);
export const SAMPLE_QUESTIONS = fileURLToPath(
  new URL("../../../examples/robotics-primer/questions.jsonl", import.meta.url),
);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `lectern` CLI in a child process, as a user would. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SOURCE_CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
    });
    child.stderr.on("data", (data: Buffer) => {
      stderr += data.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}
