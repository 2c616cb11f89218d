/**
 * A deterministic synthetic documentation corpus for benchmarks: Docusaurus-style pages with
 * frontmatter, nested headings, prose, code blocks, tables and admonitions. The vocabulary has a
 * Zipf-like shape, like real prose: a few very common words and a long tail.
 */
import { seededRandom } from "@lectern/engine/search/test-builders";

/** A seeded generator (mulberry32): the same seed, the same corpus. */
export const createRandom: (seed: number) => () => number = seededRandom;

const COMMON =
  `the a of to and in is for that with on as by this it be are from or an at can which you your each when
all more one its use used using has have not will into their also than other how then only two these new may
first most over between where both through such each after while before under same some many`.split(
    /\s+/,
  );

const SYLLABLES = [
  "ro",
  "bo",
  "ki",
  "ne",
  "ma",
  "ti",
  "cs",
  "lu",
  "ra",
  "so",
  "ve",
  "on",
  "tra",
  "ns",
  "fo",
  "rm",
  "ac",
  "tu",
  "at",
  "or",
  "se",
  "n",
  "sor",
  "plan",
  "ner",
  "gri",
  "pper",
  "joi",
  "nt",
  "li",
  "dar",
];

export function makeVocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = "";
    for (let index = 0; index < length; index++)
      word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

export class TextGenerator {
  private readonly vocabulary: string[];

  constructor(
    private readonly random: () => number,
    vocabularySize = 20_000,
  ) {
    this.vocabulary = makeVocabulary(vocabularySize, random);
  }

  /**
   * A topic word drawn from a Zipf distribution with exponent 0.45, the shape measured on the
   * sample book's chunks (after stopwords): its most common term is in ~57 % of chunks, ~26 terms
   * in over 20 %, ~130 in over 10 %. Inverse CDF of p(r) ∝ r^-0.45: r = N · u^(1/0.55).
   */
  word(): string {
    const rank = Math.floor(this.vocabulary.length * this.random() ** (1 / 0.55));
    return this.vocabulary[Math.min(rank, this.vocabulary.length - 1)] ?? "robot";
  }

  sentence(words = 8 + Math.floor(this.random() * 14)): string {
    const parts: string[] = [];
    for (let index = 0; index < words; index++) {
      parts.push(
        this.random() < 0.45
          ? (COMMON[Math.floor(this.random() * COMMON.length)] ?? "the")
          : this.word(),
      );
    }
    const text = parts.join(" ");
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }

  paragraph(sentences = 3 + Math.floor(this.random() * 4)): string {
    return Array.from({ length: sentences }, () => this.sentence()).join(" ");
  }

  page(index: number): { path: string; content: string } {
    const title = `${this.word()} ${this.word()}`;
    const lines = [
      "---",
      `title: ${title}`,
      `sidebar_position: ${index}`,
      `tags: [${this.word()}, ${this.word()}]`,
      "---",
      "",
      this.paragraph(),
      "",
    ];
    const sections = 3 + Math.floor(this.random() * 3);
    for (let section = 0; section < sections; section++) {
      lines.push(
        `## ${this.word()} ${this.word()}${section === 0 ? ` {#custom-${index}}` : ""}`,
        "",
        this.paragraph(),
        "",
      );
      if (this.random() < 0.5) lines.push(":::tip", this.sentence(), ":::", "");
      if (this.random() < 0.4) {
        lines.push(
          "```python",
          `def ${this.word()}_${this.word()}(node):`,
          `    return node.${this.word()}()`,
          "```",
          "",
        );
      }
      if (this.random() < 0.3)
        lines.push("| a | b |", "|---|---|", `| ${this.word()} | ${this.word()} |`, "");
      lines.push(`### ${this.word()}`, "", this.paragraph(), "", this.paragraph(), "");
    }
    const folder = `${String(Math.floor(index / 50)).padStart(2, "0")}-part`;
    return {
      path: `${folder}/${String(index).padStart(4, "0")}-page.md`,
      content: lines.join("\n"),
    };
  }
}

/**
 * A reader's typo of `word`: one substitution, deletion, insertion or swap of neighbours, never
 * in the first letter (the retriever assumes a typo keeps it).
 */
export function typoOf(word: string, random: () => number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const position = 1 + Math.floor(random() * (word.length - 1));
  const letter = letters[Math.floor(random() * letters.length)] ?? "e";
  switch (Math.floor(random() * 4)) {
    case 0:
      return `${word.slice(0, position)}${letter}${word.slice(position + 1)}`;
    case 1:
      return `${word.slice(0, position)}${word.slice(position + 1)}`;
    case 2:
      return `${word.slice(0, position)}${letter}${word.slice(position)}`;
    default:
      return position < word.length - 1
        ? `${word.slice(0, position)}${word[position + 1]}${word[position]}${word.slice(position + 2)}`
        : `${word.slice(0, position)}${letter}`;
  }
}

/** English-looking syllables none of the corpus words are made of. */
const FOREIGN_SYLLABLES = [
  "wal",
  "ther",
  "quin",
  "pho",
  "gle",
  "dry",
  "zem",
  "hux",
  "mor",
  "ble",
  "fen",
  "wick",
  "tor",
  "sham",
  "yel",
  "lop",
  "bur",
  "cand",
  "sey",
  "gum",
];

/** A word a reader might use that the generated corpus never does (5 letters or more). */
export function foreignWord(random: () => number): string {
  let word = "";
  while (word.length < 5)
    word += FOREIGN_SYLLABLES[Math.floor(random() * FOREIGN_SYLLABLES.length)];
  return word;
}
