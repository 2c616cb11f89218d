import type { ChildProcess } from "node:child_process";

/**
 * The URL a benchmarked server prints once it listens ("answering at http://…", as `lectern
 * serve` says it); rejects when the process exits first.
 */
export function answeringAt(child: ChildProcess, what = "server"): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /answering at (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}
