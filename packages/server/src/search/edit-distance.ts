/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), giving up with
 * `max + 1` as soon as every alignment exceeds `max`. Only cells within `max` of the diagonal are
 * computed, in three reused rows.
 */
export function editDistance(left: string, right: string, max: number): number {
  if (Math.abs(left.length - right.length) > max) return max + 1;
  const width = right.length + 1;
  const outside = max + 1;
  let beforePrevious: Uint16Array = rows.get(width, 0);
  let previous: Uint16Array = rows.get(width, 1);
  let current: Uint16Array = rows.get(width, 2);
  for (let column = 0; column < width; column++)
    previous[column] = column <= max ? column : outside;
  for (let row = 1; row <= left.length; row++) {
    const from = Math.max(1, row - max);
    const to = Math.min(right.length, row + max);
    current[0] = row <= max ? row : outside;
    if (from > 1) current[from - 1] = outside;
    let rowMin = current[0] ?? outside;
    for (let column = from; column <= to; column++) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let value = Math.min(
        (previous[column] ?? outside) + 1,
        (current[column - 1] ?? outside) + 1,
        (previous[column - 1] ?? outside) + cost,
      );
      if (
        row > 1 &&
        column > 1 &&
        left[row - 1] === right[column - 2] &&
        left[row - 2] === right[column - 1]
      ) {
        value = Math.min(value, (beforePrevious[column - 2] ?? outside) + 1);
      }
      current[column] = Math.min(value, outside);
      rowMin = Math.min(rowMin, value);
    }
    if (to < right.length) current[to + 1] = outside;
    if (rowMin > max) return outside;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
  }
  return Math.min(previous[right.length] ?? outside, outside);
}

/** Three rows of scratch space for editDistance, grown as needed and reused across calls. */
const rows = {
  buffers: [new Uint16Array(64), new Uint16Array(64), new Uint16Array(64)] as Uint16Array[],
  get(width: number, index: number): Uint16Array {
    let buffer = this.buffers[index] as Uint16Array;
    if (buffer.length < width) {
      buffer = new Uint16Array(width * 2);
      this.buffers[index] = buffer;
    }
    return buffer;
  },
};
