type Immediate = (callback: () => void) => unknown;

/**
 * Runs `callback` once pending I/O has had its turn: with `setImmediate` where there is one
 * (Node), a zero timeout elsewhere (browsers, Web Workers).
 */
export function nextTurn(callback: () => void): void {
  const immediate = (globalThis as { setImmediate?: Immediate }).setImmediate;
  if (immediate) immediate(callback);
  else setTimeout(callback, 0);
}
