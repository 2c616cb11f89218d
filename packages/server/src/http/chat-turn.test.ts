import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestSignals } from "./chat-turn.ts";
import { signalLink } from "./client-link.ts";
import { cutOffController, NEVER_CUT_OFF, onCutOff } from "./middleware/shutdown.ts";

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
      const signals = requestSignals(1_000, [signalLink(client.signal)], cutOff.signal);
      row.act({ client, cutOff });
      expect(signals.signal.aborted).toBe(row.signal);
      expect(signals.deadlinePassed()).toBe(row.deadline);
      expect(signals.timedOut()).toBe(row.timedOut);
      if (row.timedOut) expect((signals.signal.reason as Error).name).toBe("TimeoutError");
    });

  it("fires nothing once disposed: the timer is cleared and the listeners removed", () => {
    vi.useFakeTimers();
    const client = new AbortController();
    const cutOff = new AbortController();
    const signals = requestSignals(1_000, [signalLink(client.signal)], cutOff.signal);
    signals.dispose();
    vi.advanceTimersByTime(5_000);
    client.abort();
    cutOff.abort();
    expect(signals.signal.aborted).toBe(false);
    expect(signals.deadlinePassed()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts aborted when the client or the shutdown already is", () => {
    const gone = new AbortController();
    gone.abort();
    expect(requestSignals(1_000, [signalLink(gone.signal)]).signal.aborted).toBe(true);
    const stopping = new AbortController();
    stopping.abort();
    const signals = requestSignals(1_000, [], stopping.signal);
    expect(signals.deadlinePassed()).toBe(true);
    expect(signals.signal.aborted).toBe(true);
    signals.dispose();
  });
});

/** An answer timed against its request's deadline. */
describe("requestSignals(…).within", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const isTimeout = (error: unknown) => (error as { code?: string }).code === "TIMEOUT";

  it("gives the work's result, or its error, while there is time", async () => {
    const signals = requestSignals(60_000, []);
    await expect(signals.within(Promise.resolve("answer"))).resolves.toBe("answer");
    const failed = signals.within(Promise.reject(new Error("no book")));
    await expect(failed).rejects.toThrow("no book");
    signals.dispose();
  });

  it("answers TIMEOUT when the time limit passes while the work runs", async () => {
    vi.useFakeTimers();
    const signals = requestSignals(1_000, []);
    const answer = signals.within(new Promise<string>(() => {}));
    vi.advanceTimersByTime(1_000);
    await expect(answer).rejects.toSatisfy(isTimeout);
    expect(signals.signal.aborted).toBe(true);
  });

  it("answers TIMEOUT when the shutdown cuts the work off", async () => {
    const cutOff = cutOffController();
    const signals = requestSignals(60_000, [], cutOff.signal);
    const answer = signals.within(new Promise<string>(() => {}));
    cutOff.abort();
    await expect(answer).rejects.toSatisfy(isTimeout);
    signals.dispose();
  });

  it("answers TIMEOUT for work that held the thread past the limit", async () => {
    const signals = requestSignals(5, []);
    const held = performance.now();
    while (performance.now() - held < 10) {
      // The timer cannot fire while the thread is held: only the clock read at the end tells.
    }
    await expect(signals.within(Promise.resolve("late"))).rejects.toSatisfy(isTimeout);
    signals.dispose();
  });

  it("waits for the work when the client goes away: that is no timeout", async () => {
    const client = new AbortController();
    const signals = requestSignals(60_000, [signalLink(client.signal)]);
    let finish: (value: string) => void = () => {};
    const answer = signals.within(new Promise<string>((resolve) => (finish = resolve)));
    client.abort();
    expect(signals.signal.aborted).toBe(true);
    expect(signals.deadlinePassed()).toBe(false);
    finish("stopped early");
    await expect(answer).resolves.toBe("stopped early");
    signals.dispose();
  });

  it("answers TIMEOUT at once once the time is up", async () => {
    const stopping = new AbortController();
    stopping.abort();
    const signals = requestSignals(60_000, [], stopping.signal);
    await expect(signals.within(Promise.resolve("too late"))).rejects.toSatisfy(isTimeout);
  });
});

describe("the cut-off every request in flight listens to", () => {
  it("tells each request still listening once, through one listener on the signal", () => {
    const cutOff = cutOffController();
    const told: string[] = [];
    const stopFirst = onCutOff(cutOff.signal, () => told.push("first"));
    onCutOff(cutOff.signal, () => told.push("second"));
    onCutOff(cutOff.signal, () => told.push("third"));
    expect(getEventListeners(cutOff.signal, "abort")).toHaveLength(1);
    stopFirst();
    cutOff.abort();
    cutOff.abort();
    expect(told).toEqual(["second", "third"]);
    onCutOff(cutOff.signal, () => told.push("after"));
    expect(told).toEqual(["second", "third", "after"]);
  });

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
