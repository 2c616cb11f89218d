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

/** From this many letters, a letter added or left out at a term's end may be a typo. */
export const LONG_TERM = 7;

/** Each letter's neighbours on a QWERTY keyboard (same row and the rows above and below). */
const KEYBOARD_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
const NEIGHBOURS: Map<string, Set<string>> = (() => {
  const position = new Map<string, [number, number]>();
  KEYBOARD_ROWS.forEach((row, r) => {
    [...row].forEach((key, c) => {
      position.set(key, [r, c]);
    });
  });
  const neighbours = new Map<string, Set<string>>();
  for (const [key, [r, c]] of position) {
    const near = new Set<string>();
    for (const [other, [r2, c2]] of position) {
      // Rows are staggered by about half a key, so a key touches c and c+1 of the row above
      // and c-1 and c of the row below.
      const touches =
        (r2 === r && Math.abs(c2 - c) === 1) ||
        (r2 === r - 1 && (c2 === c || c2 === c + 1)) ||
        (r2 === r + 1 && (c2 === c - 1 || c2 === c));
      if (touches && other !== key) near.add(other);
    }
    neighbours.set(key, near);
  }
  return neighbours;
})();

function baseLetter(letter: string): string {
  return letter.normalize("NFD").replace(/\p{M}/gu, "");
}

/** Whether typing `intended` could have produced `typed` by hitting a neighbouring key. */
export function isNeighbourKey(typed: string, intended: string): boolean {
  if (typed === intended) return true;
  if (baseLetter(typed) === baseLetter(intended)) return true;
  return NEIGHBOURS.get(typed)?.has(intended) ?? false;
}

/**
 * The number of keyboard slips that turn `word` (a word of the book) into `typed`, or `max + 1`
 * when no sequence of at most `max` slips does. A slip is a neighbouring key hit instead of the
 * right one, two adjacent letters swapped, a letter left out or one typed twice or added. A far-
 * away letter is not a slip ("solder" is not a typo of "solver", nor "stock" of "stack"). Nor,
 * below LONG_TERM letters, is a letter added or left out at the very end: terms are stems, and
 * short stems that differ at the end are different words ("proxi" and "proxim", "castl" and
 * "cast"); a long one is more likely a typo the stemmer kept ("kinematc" for "kinemat").
 */
export function slipDistance(typed: string, word: string, max: number): number {
  if (Math.abs(typed.length - word.length) > max) return max + 1;
  const endEdits = Math.min(typed.length, word.length) >= LONG_TERM;
  const outside = max + 1;
  const rowsCount = typed.length + 1;
  const columns = word.length + 1;
  const cell = new Uint16Array(rowsCount * columns).fill(outside);
  const at = (row: number, column: number) => cell[row * columns + column] ?? outside;
  cell[0] = 0;
  const lastTyped = typed.length;
  const lastWord = word.length;
  for (let row = 0; row <= lastTyped; row++) {
    for (let column = 0; column <= lastWord; column++) {
      if (row === 0 && column === 0) continue;
      let value = outside;
      // A letter typed that the word does not have (not as the term's last letter).
      if (row > 0 && (row < lastTyped || endEdits))
        value = Math.min(value, at(row - 1, column) + 1);
      // A letter of the word left out (not the word's last letter).
      if (column > 0 && (column < lastWord || endEdits))
        value = Math.min(value, at(row, column - 1) + 1);
      if (row > 0 && column > 0) {
        const typedLetter = typed[row - 1] as string;
        const wordLetter = word[column - 1] as string;
        if (typedLetter === wordLetter) value = Math.min(value, at(row - 1, column - 1));
        else if (isNeighbourKey(typedLetter, wordLetter))
          value = Math.min(value, at(row - 1, column - 1) + 1);
        if (
          row > 1 &&
          column > 1 &&
          typedLetter === word[column - 2] &&
          typed[row - 2] === wordLetter
        ) {
          value = Math.min(value, at(row - 2, column - 2) + 1);
        }
      }
      cell[row * columns + column] = Math.min(value, outside);
    }
  }
  return at(lastTyped, lastWord);
}
