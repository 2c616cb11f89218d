import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { connect } from "node:net";

/**
 * `lectern serve` as a process of its own, as a service manager runs it: started with a command
 * line, reached over its port, stopped with a signal.
 */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code, or "timeout" when the process is still running after `ms`. */
  exited(ms: number): Promise<number | null | "timeout">;
}

export async function startServeProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; startTimeoutMs?: number } = {},
): Promise<ServeProcess> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const exit = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`lectern serve did not start:\n${output.slice(-4000)}`)),
      options.startTimeoutMs ?? 90_000,
    );
    const check = () => {
      const match = /answering at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", check);
    exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`lectern serve exited with ${code}:\n${output.slice(-4000)}`));
    });
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    output: () => output,
    exited: (ms) =>
      Promise.race([
        exit,
        new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref()),
      ]),
  };
}

/** True when something accepts connections on 127.0.0.1:port. */
export function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The ids of running processes whose command line contains `text` (Linux /proc). */
export async function processesMentioning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine.replaceAll("\0", " ").includes(text)) found.push(Number(entry));
  }
  return found;
}
