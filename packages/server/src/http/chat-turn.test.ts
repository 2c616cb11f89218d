import { afterEach, describe, expect, it, vi } from "vitest";
import { requestSignals } from "./chat-turn.ts";
import { cutOffController, NEVER_CUT_OFF } from "./middleware/shutdown.ts";

/** The signals of one answer: what stops the work and what the timeout is read from. */
describe("requestSignals", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases: {
    name: string;
    act: (parts: { client: AbortController; cutOff: AbortController }) => void;
    signal: boolean;
    deadline: boolean;
    timedOut: boolean;
  }[] = [
    {
      name: "nothing happened yet",
      act: () => {},
      signal: false,
      deadline: false,
      timedOut: false,
    },
    {
      name: "the time limit passed",
      act: () => vi.advanceTimersByTime(1_000),
      signal: true,
      deadline: true,
      timedOut: true,
    },
    {
      name: "the client went away",
      act: ({ client }) => client.abort(),
      signal: true,
      deadline: false,
      timedOut: false,
    },
    {
      name: "the server's shutdown cut the answer off",
      act: ({ cutOff }) => cutOff.abort(),
      signal: true,
      deadline: true,
      timedOut: false,
    },
  ];

  for (const row of cases)
    it(row.name, () => {
      vi.useFakeTimers();
      const client = new AbortController();
      const cutOff = new AbortController();
      const signals = requestSignals(1_000, [client.signal], cutOff.signal);
      row.act({ client, cutOff });
      expect(signals.signal.aborted).toBe(row.signal);
      expect(signals.deadline.aborted).toBe(row.deadline);
      expect(signals.timedOut()).toBe(row.timedOut);
      if (row.timedOut) expect((signals.deadline.reason as Error).name).toBe("TimeoutError");
    });

  it("fires nothing once disposed: the timer is cleared and the listeners removed", () => {
    vi.useFakeTimers();
    const client = new AbortController();
    const cutOff = new AbortController();
    const signals = requestSignals(1_000, [client.signal], cutOff.signal);
    signals.dispose();
    vi.advanceTimersByTime(5_000);
    client.abort();
    cutOff.abort();
    expect(signals.signal.aborted).toBe(false);
    expect(signals.deadline.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts aborted when the client or the shutdown already is", () => {
    const gone = new AbortController();
    gone.abort();
    expect(requestSignals(1_000, [gone.signal]).signal.aborted).toBe(true);
    const stopping = new AbortController();
    stopping.abort();
    const signals = requestSignals(1_000, [], stopping.signal);
    expect(signals.deadline.aborted).toBe(true);
    signals.dispose();
  });
});

describe("the cut-off every request in flight listens to", () => {
  it.each([
    ["the server's", () => cutOffController().signal],
    ["an app never shut down", () => NEVER_CUT_OFF],
  ])("takes %s many requests at once without a listener-leak warning", async (_name, make) => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const cutOff = make();
      const inFlight = Array.from({ length: 50 }, () => requestSignals(60_000, [], cutOff));
      // Node reports a warning on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      for (const signals of inFlight) signals.dispose();
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
