import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const tsxCli = require.resolve("tsx/cli");
export const CLI_ENTRY = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
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
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsxCli, CLI_ENTRY, ...args], {
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
