/**
 * Keeps an answer's [n] markers honest: markers that point to no source are removed, also while
 * the answer streams (a marker split across pieces is held back until it is complete).
 */

// A marker follows a space, punctuation or another marker: `a[0]` is code, not a citation.
const MARKER = /(?<![\w)])\[(\d+(?:\s*,\s*\d+)*)\]/g;

export class CitationFilter {
  private pending = "";
  private readonly cited = new Set<number>();
  private text = "";

  constructor(private readonly sourceCount: number) {}

  /** Feeds a piece of the answer; returns what can be shown now. */
  push(piece: string): string {
    this.pending += piece;
    // Hold back an unfinished "[12" at the end; everything before it is safe to clean.
    const open = this.pending.lastIndexOf("[");
    let ready = this.pending;
    let rest = "";
    if (open >= 0 && !this.pending.slice(open).includes("]") && this.pending.length - open <= 12) {
      ready = this.pending.slice(0, open);
      rest = this.pending.slice(open);
    }
    this.pending = rest;
    return this.emit(ready);
  }

  /** Flushes what was held back. */
  finish(): string {
    const last = this.emit(this.pending);
    this.pending = "";
    return last;
  }

  /** 1-based numbers of the sources the answer cites. */
  citedNumbers(): number[] {
    return [...this.cited].sort((left, right) => left - right);
  }

  get answer(): string {
    return this.text;
  }

  private emit(text: string): string {
    // The character already shown decides whether a "[" at the start opens a marker.
    const before = this.text.slice(-1);
    const cleaned = (before + text)
      .replace(MARKER, (_, list: string) => {
        const valid = list
          .split(",")
          .map((number) => Number(number.trim()))
          .filter((number) => number >= 1 && number <= this.sourceCount);
        for (const number of valid) this.cited.add(number);
        return valid.map((number) => `[${number}]`).join("");
      })
      .slice(before.length);
    this.text += cleaned;
    return cleaned;
  }
}

/** Cleans a whole answer at once. */
export function cleanCitations(
  answer: string,
  sourceCount: number,
): { text: string; cited: number[] } {
  const filter = new CitationFilter(sourceCount);
  filter.push(answer);
  filter.finish();
  return { text: filter.answer, cited: filter.citedNumbers() };
}

/** Fenced code blocks and inline code spans, which hold brackets that are not citations. */
const CODE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`/g;

/**
 * The answer's [n] markers for another list of the same sources (a seed's, filtered or
 * reordered): `place` gives the 1-based place of source n in that list, or undefined when the
 * list leaves it out, and its marker goes. Code is left as written.
 */
export function renumberCitations(
  answer: string,
  place: (citation: number) => number | undefined,
): string {
  const renumber = (text: string) =>
    text.replace(new RegExp(` ?${MARKER.source}`, "g"), (marker, list: string) => {
      const places = [
        ...new Set(
          list
            .split(",")
            .map((number) => place(Number(number.trim())))
            .filter((found): found is number => found !== undefined),
        ),
      ];
      if (places.length === 0) return "";
      return `${marker.startsWith(" ") ? " " : ""}${places.map((found) => `[${found}]`).join("")}`;
    });
  let result = "";
  let last = 0;
  for (const code of answer.matchAll(CODE)) {
    result += renumber(answer.slice(last, code.index)) + code[0];
    last = code.index + code[0].length;
  }
  return result + renumber(answer.slice(last));
}
