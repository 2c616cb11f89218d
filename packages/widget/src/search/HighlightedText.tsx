import type { ReactNode } from "react";

/**
 * Plain text with `[start, end)` character ranges drawn as `<mark>`. Every piece goes through
 * React as text: a snippet's markup is shown as written, never parsed as HTML.
 */
export function HighlightedText({ text, ranges }: { text: string; ranges: [number, number][] }) {
  const pieces: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    // Overlapping, reversed or out-of-range ranges are clipped rather than trusted.
    const from = Math.max(start, at);
    const to = Math.min(end, text.length);
    if (to <= from) continue;
    if (from > at) pieces.push(text.slice(at, from));
    pieces.push(<mark key={from}>{text.slice(from, to)}</mark>);
    at = to;
  }
  pieces.push(text.slice(at));
  return <>{pieces}</>;
}
