import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Running npm (and what it installed) from tests, as a user would in a project of their own. */

export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The packages published from this repository, by workspace name. */
export const PUBLISHED_PACKAGES = [
  "@lectern/protocol",
  "@lectern/engine",
  "@lectern/widget",
  "@lectern/server",
  "docusaurus-plugin-lectern",
] as const;

export interface Run {
  code: number | null;
  /** stdout alone, and stdout and stderr as they came. */
  stdout: string;
  output: string;
}

/**
 * npm run from `npm test` passes its own settings down (`npm_config_local_prefix`, the package
 * being tested, …); a project of the user's must see only the user's configuration (registry,
 * cache).
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (
      lower.startsWith("npm_package_") ||
      lower.startsWith("npm_lifecycle_") ||
      lower.startsWith("npm_config_workspace") ||
      lower.startsWith("lectern_") ||
      [
        "npm_config_local_prefix",
        "npm_command",
        "npm_config_call",
        "init_cwd",
        "node_env",
        "node_options",
      ].includes(lower)
    ) {
      continue;
    }
    env[key] = value;
  }
  return { ...env, ...extra };
}

export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = childEnv(),
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, output }));
  });
}

/** Runs a command that must succeed; its output (stdout and stderr as they came). */
export async function runOk(
  command: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  return (await succeed(command, args, cwd, env)).output;
}

/** Runs a command that must succeed; its stdout alone. */
export async function stdoutOf(
  command: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  return (await succeed(command, args, cwd, env)).stdout;
}

async function succeed(
  command: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<Run> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${result.code}:\n${result.output.slice(-6000)}`,
    );
  }
  return result;
}

/** The JSON of a command whose output may start with warnings (npm mixes them in). */
export function jsonPart(output: string): string {
  const start = output.search(/^[[{]/m);
  return start >= 0 ? output.slice(start) : output;
}

export interface PackedPackage {
  name: string;
  filename: string;
  files: { path: string }[];
}

/**
 * `npm pack` of the published packages into `destination`. Their `prepack` scripts (the build)
 * are not run: `npm test` has built dist/ before the tests, and a rebuild here would rewrite
 * files other tests are reading.
 */
export async function packPublishedPackages(destination: string): Promise<PackedPackage[]> {
  const workspaces = PUBLISHED_PACKAGES.flatMap((name) => ["--workspace", name]);
  const output = await stdoutOf(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", destination, ...workspaces],
    REPO_ROOT,
  );
  return JSON.parse(jsonPart(output)) as PackedPackage[];
}
