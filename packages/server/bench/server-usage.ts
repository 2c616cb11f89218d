import { readdir, readFile } from "node:fs/promises";
import type { GcTotals } from "./gc-probe.ts";

/**
 * Where a benchmarked server's time went during one measured row, from Linux's /proc: its CPU,
 * its main thread's time running and waiting for a core, its garbage-collection pauses (written
 * by gc-probe.ts), the CPU of this process (autocannon, the load generator) and of everything
 * else on the machine. All undefined off Linux, except the load generator's.
 */

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

export interface UsageSample {
  atMs: number;
  /** CPU seconds of the server process and its descendants (tsx runs the CLI in a child). */
  serverCpuSeconds: number | undefined;
  /** The server's main thread (the process that answers, not tsx's launcher): ns on a core, ns runnable but waiting. */
  mainThread: { runNs: number; waitNs: number } | undefined;
  gc: GcTotals | undefined;
  benchCpuMicros: number;
  /** The whole machine, in ticks: busy (user, nice, system, irq, softirq) and stolen by the host. */
  machine: { busyTicks: number; stealTicks: number } | undefined;
}

export interface RowUsage {
  /** Main-thread GC pauses as a share of the row's wall time. */
  gcPauseShare: number | undefined;
  /** The part of it in full (mark-compact) and incremental-marking pauses. */
  gcMajorShare: number | undefined;
  /** Collections per second. */
  gcPerSecond: number | undefined;
  /** The server's main thread: share of the wall time on a core, and runnable but waiting for one. */
  mainThreadRunShare: number | undefined;
  mainThreadWaitShare: number | undefined;
  /** Cores used by the server's other threads (V8's helpers: concurrent marking, compilers; libuv). */
  serverOtherThreadsCores: number | undefined;
  /** Cores used by the load generator (this process). */
  loadGeneratorCores: number;
  /** Cores used by everything else on the machine (the idle servers, other work), and stolen by the host. */
  restOfMachineCores: number | undefined;
  stolenCores: number | undefined;
}

interface ProcessStat {
  parent: number;
  seconds: number;
}

async function processStats(): Promise<Map<number, ProcessStat>> {
  const stats = new Map<number, ProcessStat>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (!stat) continue;
    // Fields after the command name (which may hold spaces): ppid is the 2nd, utime and stime
    // the 12th and 13th, in clock ticks.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    stats.set(Number(entry), {
      parent: Number(fields[1]),
      seconds: (Number(fields[11]) + Number(fields[12])) / TICKS,
    });
  }
  return stats;
}

/** The process and its descendants, parents before children. */
function family(pid: number, stats: Map<number, ProcessStat>): number[] {
  const members = [pid];
  for (let index = 0; index < members.length; index++) {
    for (const [id, stat] of stats) {
      if (stat.parent === members[index] && !members.includes(id)) members.push(id);
    }
  }
  return members;
}

async function schedstat(pid: number): Promise<{ runNs: number; waitNs: number } | undefined> {
  const text = await readFile(`/proc/${pid}/schedstat`, "utf8").catch(() => "");
  const [run, wait] = text.trim().split(" ").map(Number);
  return run === undefined || wait === undefined || Number.isNaN(wait)
    ? undefined
    : { runNs: run, waitNs: wait };
}

async function machineTicks(): Promise<UsageSample["machine"]> {
  const text = await readFile("/proc/stat", "utf8").catch(() => "");
  const line = text.split("\n").find((row) => row.startsWith("cpu "));
  if (!line) return undefined;
  // user nice system idle iowait irq softirq steal …
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return {
    busyTicks: (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0),
    stealTicks: steal ?? 0,
  };
}

async function readGcFile(file: string): Promise<GcTotals | undefined> {
  const text = await readFile(file, "utf8").catch(() => "");
  try {
    return text ? (JSON.parse(text) as GcTotals) : undefined;
  } catch {
    return undefined; // read while being written
  }
}

/** Asks the server's probe (gc-probe.ts) for its totals now, and waits up to 2 s for them. */
export async function readGcTotals(
  file: string | undefined,
  serverPid: number | undefined,
): Promise<GcTotals | undefined> {
  if (!file) return undefined;
  const previous = await readGcFile(file);
  if (serverPid === undefined || previous === undefined) return previous;
  try {
    process.kill(serverPid, "SIGUSR2");
  } catch {
    return previous;
  }
  for (let waited = 0; waited < 2_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const current = await readGcFile(file);
    if (current && current.written > previous.written) return current;
  }
  return undefined;
}

export async function sampleUsage(
  serverPid: number | undefined,
  gcFile: string | undefined,
): Promise<UsageSample> {
  const cpu = process.cpuUsage();
  const stats = serverPid === undefined ? undefined : await processStats().catch(() => undefined);
  const members = serverPid !== undefined && stats?.has(serverPid) ? family(serverPid, stats) : [];
  // The answering process is the launcher's child when there is one (tsx), else the process.
  const server = members[1] ?? members[0];
  return {
    atMs: performance.now(),
    serverCpuSeconds: members.length
      ? members.reduce((total, id) => total + (stats?.get(id)?.seconds ?? 0), 0)
      : undefined,
    mainThread: server === undefined ? undefined : await schedstat(server),
    gc: await readGcTotals(gcFile, server),
    benchCpuMicros: cpu.user + cpu.system,
    machine: await machineTicks(),
  };
}

function difference<T>(before: T | undefined, after: T | undefined, pick: (value: T) => number) {
  return before === undefined || after === undefined ? undefined : pick(after) - pick(before);
}

export function rowUsage(before: UsageSample, after: UsageSample): RowUsage {
  const wallSeconds = (after.atMs - before.atMs) / 1000;
  const share = (seconds: number | undefined) =>
    seconds === undefined ? undefined : seconds / wallSeconds;
  const gcMs = difference(
    before.gc,
    after.gc,
    (gc) => gc.minorMs + gc.majorMs + gc.incrementalMs + gc.weakMs,
  );
  const majorMs = difference(before.gc, after.gc, (gc) => gc.majorMs + gc.incrementalMs);
  const runNs = difference(before.mainThread, after.mainThread, (thread) => thread.runNs);
  const waitNs = difference(before.mainThread, after.mainThread, (thread) => thread.waitNs);
  const serverSeconds = difference(
    before.serverCpuSeconds,
    after.serverCpuSeconds,
    (seconds) => seconds,
  );
  const loadGeneratorSeconds = (after.benchCpuMicros - before.benchCpuMicros) / 1e6;
  const busySeconds = difference(before.machine, after.machine, (ticks) => ticks.busyTicks / TICKS);
  return {
    gcPauseShare: share(gcMs === undefined ? undefined : gcMs / 1000),
    gcMajorShare: share(majorMs === undefined ? undefined : majorMs / 1000),
    gcPerSecond: share(difference(before.gc, after.gc, (gc) => gc.collections)),
    mainThreadRunShare: share(runNs === undefined ? undefined : runNs / 1e9),
    mainThreadWaitShare: share(waitNs === undefined ? undefined : waitNs / 1e9),
    serverOtherThreadsCores:
      serverSeconds === undefined || runNs === undefined
        ? undefined
        : share(Math.max(0, serverSeconds - runNs / 1e9)),
    loadGeneratorCores: loadGeneratorSeconds / wallSeconds,
    restOfMachineCores:
      busySeconds === undefined || serverSeconds === undefined
        ? undefined
        : share(Math.max(0, busySeconds - serverSeconds - loadGeneratorSeconds)),
    stolenCores: share(
      difference(before.machine, after.machine, (ticks) => ticks.stealTicks / TICKS),
    ),
  };
}
