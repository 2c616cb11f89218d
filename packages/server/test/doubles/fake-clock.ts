/**
 * A clock that moves only when a test moves it, for code that takes `now: () => number`
 * (milliseconds) or `() => Date`: tests advance time instead of sleeping.
 */
export interface FakeClock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** The current time as a Date, as `new Date()`. */
  date(): Date;
  advance(milliseconds: number): void;
  set(milliseconds: number): void;
}

export function createFakeClock(start = Date.UTC(2025, 0, 1)): FakeClock {
  let current = start;
  return {
    now: () => current,
    date: () => new Date(current),
    advance(milliseconds) {
      current += milliseconds;
    },
    set(milliseconds) {
      current = milliseconds;
    },
  };
}
