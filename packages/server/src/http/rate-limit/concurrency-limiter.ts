/**
 * Caps how many chats run at once in this process; beyond it requests are refused rather than
 * queued. Per instance by design: it protects this process's CPU and model connections.
 */
export class ConcurrencyLimiter {
  private active = 0;

  constructor(readonly max: number) {}

  get inFlight(): number {
    return this.active;
  }

  /** Returns a release function, or undefined when the cap is reached. */
  tryAcquire(): (() => void) | undefined {
    if (this.active >= this.max) return undefined;
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }
}
