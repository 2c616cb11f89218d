import { type ChildProcess, spawn } from "node:child_process";
import { CLI_ENTRY, TSX_LOADER } from "./cli.ts";

/** `lectern serve` in a child process: whether the process survives is what some tests check. */
export interface ServerProcess {
  url: string;
  /** True while the process has neither exited nor been killed. */
  alive(): boolean;
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** Rejects, with what the process wrote to stderr, if it exits before `work` settles. */
  whileAlive<T>(work: Promise<T>): Promise<T>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

export async function startServerProcess(
  args: string[],
  env: Record<string, string>,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...TSX_LOADER, CLI_ENTRY, "serve", ...args],
    {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      stdout += data.toString();
      const match = /answering at (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) =>
      reject(new Error(`lectern serve exited (${code}) before listening:\n${stderr}`)),
    );
  });
  return {
    url,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    whileAlive: (work) =>
      Promise.race([
        work,
        exited.then(() => {
          throw new Error(`lectern serve exited:\n${stderr}`);
        }),
      ]),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
