import { writeFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";

/**
 * Loaded into a benchmarked server (`node --import`): adds up the main thread's garbage-collection
 * pauses by kind and writes the totals to `BENCH_GC_FILE`, so the bench can read them before and
 * after each measured row without a route in the server for it. Written when the bench asks
 * (SIGUSR2), between rows: written on a 100 ms timer, the synchronous writes took 3–4 % of a
 * loaded server's main thread on this machine's file system.
 */

export interface GcTotals {
  /** Pauses of the young generation (scavenges), in ms. */
  minorMs: number;
  /** Full mark-compact pauses, in ms. */
  majorMs: number;
  /** Steps of incremental marking run on the main thread, in ms. */
  incrementalMs: number;
  /** Weak-callback processing, in ms. */
  weakMs: number;
  collections: number;
  /** How many times the totals were written: the bench waits for the count to move. */
  written: number;
}

const file = process.env.BENCH_GC_FILE;
if (file) {
  const totals: GcTotals = {
    minorMs: 0,
    majorMs: 0,
    incrementalMs: 0,
    weakMs: 0,
    collections: 0,
    written: 0,
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) totals.minorMs += entry.duration;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) totals.majorMs += entry.duration;
      else if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL)
        totals.incrementalMs += entry.duration;
      else totals.weakMs += entry.duration;
      totals.collections++;
    }
  }).observe({ entryTypes: ["gc"] });
  const write = () => {
    totals.written++;
    writeFileSync(file, JSON.stringify(totals));
  };
  write();
  process.on("SIGUSR2", write);
}
