import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, in a temporary directory on a free port, so a test may
 * stop it abruptly (`pg_ctl stop -m immediate`) without touching the shared server. Needs the
 * server binaries (`initdb`, `pg_ctl`); PostgreSQL refuses to run as root, so under root the
 * commands run as the `postgres` user.
 */
export interface ThrowawayPostgres {
  url: string;
  start(): Promise<void>;
  /** `immediate` kills every backend at once, as a crash or a power cut would. */
  stop(mode: "fast" | "immediate"): Promise<void>;
  remove(): Promise<void>;
}

/** The directory holding initdb and pg_ctl, or undefined when the server is not installed. */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((left, right) => Number(right) - Number(left));
  return versions
    .map((version) => path.join(root, version, "bin"))
    .find((dir) => existsSync(path.join(dir, "initdb")));
}

export async function startThrowawayPostgres(binaries: string): Promise<ThrowawayPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), "lectern-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const command = (name: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", path.join(binaries, name), ...args])
      : run(path.join(binaries, name), args);
  const dataDir = path.join(dir, "data");
  await command("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const cluster: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await command("pg_ctl", [
        "-D",
        dataDir,
        "-o",
        options,
        "-l",
        path.join(dir, "log"),
        "-w",
        "start",
      ]);
    },
    async stop(mode) {
      await command("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "stop"]);
    },
    async remove() {
      await cluster.stop("immediate").catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
