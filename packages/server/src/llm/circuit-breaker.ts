/**
 * Stops calling a failing model: after `failureThreshold` consecutive failures the circuit opens
 * and calls are refused (answers degrade at once) until `cooldownMs` has passed; then one probe is
 * let through, and its success closes the circuit again. Every call that `tryAcquire` let through
 * ends in exactly one of `recordSuccess`, `recordFailure` or `recordCancelled`.
 */
export type CircuitState = "closed" | "open" | "half-open";

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private current: CircuitState = "closed";

  constructor(
    private readonly options: { failureThreshold: number; cooldownMs: number; now?: () => number },
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  get state(): CircuitState {
    if (this.current === "open" && this.now() - this.openedAt >= this.options.cooldownMs)
      return "half-open";
    return this.current;
  }

  /** Whether a call may go ahead now; in half-open state only one probe at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === "closed") return true;
    if (state === "half-open" && !this.probing) {
      this.probing = true;
      this.current = "half-open";
      return true;
    }
    return false;
  }

  recordSuccess(): void {
    this.failures = 0;
    this.probing = false;
    this.current = "closed";
  }

  /**
   * The call was cancelled by its caller (the client left, the request timed out): that says
   * nothing about the model, so nothing is counted, and a probe gives its turn back so that the
   * next call probes instead.
   */
  recordCancelled(): void {
    this.probing = false;
  }

  recordFailure(): void {
    this.probing = false;
    this.failures++;
    if (this.current === "half-open" || this.failures >= this.options.failureThreshold) {
      this.current = "open";
      this.openedAt = this.now();
    }
  }
}
