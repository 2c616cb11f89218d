// Over 300 lines on purpose: the chunker's invariants, each checked on its own document.
import { chunkBlocks } from "@lectern/engine/book/chunk-blocks";
import { describe, expect, it } from "vitest";
import {
  buildSections,
  type ChunkDraft,
  type ChunkingOptions,
  chunkSections,
  estimateTokens,
  type Section,
} from "./chunk.ts";
import { type Block, parseMarkdown } from "./markdown.ts";

type HeadingBlock = Extract<Block, { kind: "heading" }>;

function heading(depth: number, text: string, explicitId?: string): HeadingBlock {
  return { kind: "heading", depth, text, ...(explicitId ? { explicitId } : {}), line: 1 };
}

function prose(text: string): Block {
  return { kind: "prose", text, line: 1 };
}

function tableBlock(text: string): Block {
  return { kind: "prose", text, line: 1, table: true };
}

function code(lang: string, source: string): Block {
  return { kind: "code", lang, code: source, line: 1 };
}

/** A predictable anchor: the explicit id, or the heading text in kebab case. */
function anchorOf(block: HeadingBlock): string {
  return block.explicitId ?? block.text.toLowerCase().replace(/\s+/g, "-");
}

/** Prose of about `tokens` tokens, in sentences tagged with `label`. */
function sentences(label: string, tokens: number): string {
  const parts: string[] = [];
  while (estimateTokens(parts.join(" ")) < tokens) {
    parts.push(`Sentence ${label} ${parts.length} covers gears and their teeth.`);
  }
  return parts.join(" ");
}

function section(blocks: Block[], headingText = "Section", anchor = "section"): Section {
  return { headingPath: ["Page", headingText], heading: headingText, anchor, blocks };
}

describe("estimateTokens", () => {
  it("counts about four characters per token, rounding up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("a")).toBe(1);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("x".repeat(400))).toBe(100);
  });
});

describe("buildSections", () => {
  it("treats the first h1 as the title, not as a section", () => {
    const sections = buildSections(
      [heading(1, "Launch files"), prose("Intro."), heading(2, "Usage"), prose("Use it.")],
      "Launch files",
      anchorOf,
    );
    expect(sections).toEqual([
      {
        headingPath: ["Launch files"],
        heading: "Launch files",
        anchor: undefined,
        blocks: [prose("Intro.")],
      },
      {
        headingPath: ["Launch files", "Usage"],
        heading: "Usage",
        anchor: "usage",
        blocks: [prose("Use it.")],
      },
    ]);
  });

  it("gives the text before the first heading the title and an undefined anchor", () => {
    const [first] = buildSections(
      [prose("Preamble."), heading(2, "Next"), prose("x")],
      "Doc",
      anchorOf,
    );
    expect(first).toEqual({
      headingPath: ["Doc"],
      heading: "Doc",
      anchor: undefined,
      blocks: [prose("Preamble.")],
    });
  });

  it("keeps an h1 that follows text as a section of its own", () => {
    const sections = buildSections(
      [prose("Preamble."), heading(1, "Late title"), prose("Body.")],
      "Doc",
      anchorOf,
    );
    expect(sections.map((entry) => entry.headingPath)).toEqual([["Doc"], ["Doc", "Late title"]]);
    expect(sections[1]?.anchor).toBe("late-title");
  });

  it("keeps a second h1 as a top-level section", () => {
    const sections = buildSections(
      [heading(1, "Title"), heading(2, "Two"), prose("b"), heading(1, "Again"), prose("c")],
      "Title",
      anchorOf,
    );
    expect(sections.map((entry) => entry.headingPath)).toEqual([
      ["Title", "Two"],
      ["Title", "Again"],
    ]);
  });

  it("builds heading paths that reset when going back up a level", () => {
    const blocks = [
      heading(2, "Install"),
      prose("1"),
      heading(3, "Linux"),
      prose("2"),
      heading(4, "Ubuntu"),
      prose("3"),
      heading(3, "macOS"),
      prose("4"),
      heading(2, "Configure"),
      prose("5"),
      heading(4, "Deep"),
      prose("6"),
      heading(3, "Middle"),
      prose("7"),
    ];
    const sections = buildSections(blocks, "Guide", anchorOf);
    expect(sections.map((entry) => [entry.headingPath, entry.blocks])).toEqual([
      [["Guide", "Install"], [prose("1")]],
      [["Guide", "Install", "Linux"], [prose("2")]],
      [["Guide", "Install", "Linux", "Ubuntu"], [prose("3")]],
      [["Guide", "Install", "macOS"], [prose("4")]],
      [["Guide", "Configure"], [prose("5")]],
      [["Guide", "Configure", "Deep"], [prose("6")]],
      [["Guide", "Configure", "Middle"], [prose("7")]],
    ]);
  });

  it("drops headings without content but keeps them in their children's path", () => {
    const sections = buildSections(
      [heading(2, "Parent"), heading(3, "Child"), prose("Body.")],
      "Doc",
      anchorOf,
    );
    expect(sections).toEqual([
      {
        headingPath: ["Doc", "Parent", "Child"],
        heading: "Child",
        anchor: "child",
        blocks: [prose("Body.")],
      },
    ]);
  });

  it("uses the anchor computed for each heading, including explicit ids", () => {
    const seen: string[] = [];
    const sections = buildSections(
      [
        heading(1, "Doc"),
        heading(2, "Topic", "custom-id"),
        prose("a"),
        heading(2, "Other"),
        prose("b"),
      ],
      "Doc",
      (block) => {
        seen.push(block.text);
        return anchorOf(block);
      },
    );
    expect(sections.map((entry) => entry.anchor)).toEqual(["custom-id", "other"]);
    // Every heading is shown to the slugger in order, the title too, as Docusaurus does.
    expect(seen).toEqual(["Doc", "Topic", "Other"]);
  });

  it("returns no sections for a document without content", () => {
    expect(buildSections([], "Empty", anchorOf)).toEqual([]);
    expect(buildSections([heading(1, "Empty"), heading(2, "Nothing")], "Empty", anchorOf)).toEqual(
      [],
    );
  });

  it("keeps code blocks in their section", () => {
    const block = code("bash", "ls");
    const sections = buildSections([heading(2, "Shell"), block], "Doc", anchorOf);
    expect(sections[0]?.blocks).toEqual([block]);
  });
});

describe("chunkSections on small input", () => {
  const options: ChunkingOptions = { targetTokens: 350, maxTokens: 600, overlapRatio: 0.15 };

  it("puts a small section in one chunk with its metadata", () => {
    const chunks = chunkSections(
      [
        {
          headingPath: ["Guide", "Install"],
          heading: "Install",
          anchor: "install",
          blocks: [prose("First paragraph."), code("bash", "npm install"), prose("- a\n- b")],
        },
      ],
      options,
    );
    const text = "First paragraph.\n\n```bash\nnpm install\n```\n\n- a\n- b";
    expect(chunks).toEqual([
      {
        text,
        tokens: estimateTokens(text),
        section: "Install",
        headingPath: ["Guide", "Install"],
        anchor: "install",
        sectionAnchors: [],
        blocks: [
          // Two words before code: read as the code's label, as a stored chunk always was.
          { kind: "heading", text: "First paragraph.", inferred: true },
          { kind: "code", fence: "```bash", lines: ["npm install"] },
          { kind: "list", items: ["- a", "- b"] },
        ],
      },
    ]);
  });

  it("merges consecutive small sections, keeping their headings as lines", () => {
    const chunks = chunkSections(
      [
        { headingPath: ["Page"], heading: "Page", anchor: undefined, blocks: [prose("Intro.")] },
        section([prose("One.")], "A", "a"),
        {
          headingPath: ["Page", "A", "Deeper"],
          heading: "Deeper",
          anchor: "deeper",
          blocks: [prose("Two."), code("bash", "ls")],
        },
      ],
      options,
    );
    expect(chunks).toEqual([
      {
        text: "Intro.\n\n## A\n\nOne.\n\n### Deeper\n\nTwo.\n\n```bash\nls\n```",
        tokens: estimateTokens("Intro.\n\n## A\n\nOne.\n\n### Deeper\n\nTwo.\n\n```bash\nls\n```"),
        section: "Page",
        headingPath: ["Page"],
        anchor: undefined,
        // Each merged section's heading line, so that a quote from it can link to it.
        sectionAnchors: [
          { heading: "A", anchor: "a", headingPath: ["Page", "A"] },
          { heading: "Deeper", anchor: "deeper", headingPath: ["Page", "A", "Deeper"] },
        ],
        // Words too few for a sentence, standing before a heading, read as labels.
        blocks: [
          { kind: "heading", text: "Intro.", inferred: true },
          { kind: "heading", text: "A" },
          { kind: "heading", text: "One.", inferred: true },
          { kind: "heading", text: "Deeper" },
          { kind: "heading", text: "Two.", inferred: true },
          { kind: "code", fence: "```bash", lines: ["ls"] },
        ],
      },
    ]);
  });

  it("takes the section, heading path and anchor of the merged chunk's first section", () => {
    const [chunk, ...rest] = chunkSections(
      [section([prose("One.")], "Install", "install"), section([prose("Two.")], "Run", "run")],
      options,
    );
    expect(rest).toEqual([]);
    expect(chunk).toMatchObject({
      section: "Install",
      headingPath: ["Page", "Install"],
      anchor: "install",
      text: "One.\n\n## Run\n\nTwo.",
    });
  });

  it("starts a new chunk, without overlap, at a section that would take the chunk past the target", () => {
    const first = sentences("first", 250);
    const second = sentences("second", 200);
    const chunks = chunkSections(
      [section([prose(first)], "A", "a"), section([prose(second)], "B", "b")],
      options,
    );
    expect(chunks.map((chunk) => [chunk.anchor, chunk.text])).toEqual([
      ["a", first],
      ["b", second],
    ]);
  });

  it("lets a small section ride along with a large one that follows it", () => {
    const intro = "A short introduction.";
    const body = sentences("body", 900);
    const chunks = chunkSections(
      [section([prose(intro)], "Intro", "intro"), section([prose(body)], "Body", "body")],
      options,
    );
    expect(chunks[0]?.anchor).toBe("intro");
    expect(chunks[0]?.text.startsWith(`${intro}\n\n## Body\n\nSentence body 0 `)).toBe(true);
    for (const chunk of chunks.slice(1)) expect(chunk.anchor).toBe("body");
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeGreaterThanOrEqual(80);
      expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
    }
  });

  it("joins a small last section to the chunk before it when that stays within maxTokens", () => {
    const long = sentences("long", 340);
    // Within the target alone, past it with the next section.
    expect(estimateTokens(long)).toBeGreaterThan(340);
    expect(estimateTokens(long)).toBeLessThanOrEqual(options.targetTokens);
    const chunks = chunkSections(
      [section([prose(long)], "A", "a"), section([prose("See also the FAQ.")], "More", "more")],
      options,
    );
    expect(chunks.map((chunk) => chunk.text)).toEqual([`${long}\n\n## More\n\nSee also the FAQ.`]);
    expect(chunks[0]?.anchor).toBe("a");

    const tight = chunkSections(
      [section([prose(long)], "A", "a"), section([prose("See also the FAQ.")], "More", "more")],
      { ...options, maxTokens: 350 },
    );
    expect(tight.map((chunk) => chunk.anchor)).toEqual(["a", "more"]);
  });

  it("keeps a page shorter than the minimum in one small chunk", () => {
    expect(chunkSections([section([prose("Tiny.")])], options).map((chunk) => chunk.text)).toEqual([
      "Tiny.",
    ]);
  });

  it("moves a code block that does not fit to the next chunk whole, with its section", () => {
    const text = sentences("text", 300);
    const source = Array.from({ length: 40 }, (_, index) => `echo step ${index}`).join("\n");
    const chunks = chunkSections(
      [
        section([prose(text)], "A", "a"),
        section([prose("Run it:"), code("bash", source)], "B", "b"),
      ],
      options,
    );
    expect(chunks.map((chunk) => chunk.anchor)).toEqual(["a", "b"]);
    expect(chunks[1]?.text).toBe(`Run it:\n\n\`\`\`bash\n${source}\n\`\`\``);
  });

  it("keeps a table whole: a chunk never ends between its rows", () => {
    const rows = Array.from(
      { length: 10 },
      (_, index) => `Profile ${index} | Reliable | Volatile | Keep last, ${index}`,
    );
    const table = ["Profile | Reliability | Durability | History", ...rows].join("\n");
    // The text before it leaves room for the header and a row or two only.
    const small: ChunkingOptions = { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 };
    const text = sentences("text", 60);
    expect(estimateTokens(table)).toBeLessThanOrEqual(small.maxTokens);
    expect(estimateTokens(`${text}\n\n${table}`)).toBeGreaterThan(small.maxTokens);
    const chunks = chunkSections([section([prose(text), tableBlock(table)])], small);
    expect(chunks.length).toBe(2);
    expect(chunks[0]?.text).not.toContain("Profile");
    expect(chunks[1]?.text).toContain(table);
  });

  it("moves a sentence introducing a table or code block on with it, not ending a chunk on it", () => {
    const small: ChunkingOptions = { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 };
    const rows = Array.from({ length: 8 }, (_, index) => `kind ${index} | what it is used for`);
    const table = ["Component type | Typical use", ...rows].join("\n");
    const source = Array.from({ length: 12 }, (_, index) => `ros2 run demo step_${index}`).join(
      "\n",
    );
    const list = Array.from(
      { length: 6 },
      (_, index) => `- Component ${index} does one thing. It is used for one purpose.`,
    ).join("\n");
    for (const attached of [tableBlock(table), code("bash", source), prose(list)]) {
      const text = sentences("text", 60);
      const chunks = chunkSections(
        [section([prose(text), prose("There are three kinds of components:"), attached])],
        small,
      );
      expect(chunks.length).toBe(2);
      expect(chunks[0]?.text.endsWith(text)).toBe(true);
      expect(chunks[1]?.text).toMatch(
        /^There are three kinds of components:\n\n(?:Component|```|- Component 0)/,
      );
    }
  });

  it("cuts a list longer than maxTokens between items, never inside one", () => {
    const small: ChunkingOptions = { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 };
    const items = Array.from(
      { length: 20 },
      (_, index) => `- Item ${index} says one thing. Then item ${index} says a second thing.`,
    );
    const chunks = chunkSections([section([prose(items.join("\n"))])], small);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      for (const line of chunk.text.split("\n")) expect(items).toContain(line);
    }
    for (const item of items) expect(chunks.some((chunk) => chunk.text.includes(item))).toBe(true);
  });

  it("keeps a section's reading list with it within maxTokens, not opening the next chunk", () => {
    const entry = (title: string) => ({
      headingPath: ["FAQ", title],
      heading: title,
      anchor: title.toLowerCase(),
      blocks: [prose(sentences(title, 340))],
    });
    const list = (parent: string, heading = "Further information") => ({
      headingPath: ["FAQ", parent, heading],
      heading,
      anchor: `${parent.toLowerCase()}-reading`,
      blocks: [prose("- #1768 Allow reducers to consult global state\n- Beyond combineReducers")],
    });
    const chunks = chunkSections(
      [entry("First"), list("First"), entry("Second"), list("Second", "See also")],
      options,
    );
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([
      ["FAQ", "First"],
      ["FAQ", "Second"],
    ]);
    expect(chunks[0]?.text).toMatch(/### Further information\n\n- #1768/);
    expect(chunks[1]?.text).toMatch(/### See also\n\n- #1768/);

    // Any other small section after a full chunk still opens the next one, as does a reading
    // list that is not the previous section's or that would pass maxTokens.
    const long = {
      ...list("First"),
      blocks: [
        prose(Array.from({ length: 60 }, (_, n) => `- Article ${n} on reducers`).join("\n")),
      ],
    };
    for (const [after, opens] of [
      [list("First", "Notes"), ["FAQ", "First", "Notes"]],
      [list("Other"), ["FAQ", "Other", "Further information"]],
      [long, ["FAQ", "First", "Further information"]],
    ] as const) {
      const chunks = chunkSections([entry("First"), after, entry("Second")], options);
      expect(chunks.map((chunk) => chunk.headingPath).slice(0, 2)).toEqual([
        ["FAQ", "First"],
        opens,
      ]);
    }
  });

  it("splits a table longer than maxTokens into pieces that each start with its header row", () => {
    const header = "Parameter | Type | Default | Meaning";
    const rows = Array.from(
      { length: 60 },
      (_, index) => `param_${index} | double | ${index}.0 | How far joint ${index} may travel`,
    );
    const chunks = chunkSections([section([tableBlock([header, ...rows].join("\n"))])], options);
    expect(chunks.length).toBeGreaterThan(1);
    const seen: string[] = [];
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
      const lines = chunk.text.split("\n").filter(Boolean);
      expect(lines[0]).toBe(header);
      for (const line of lines) if (line !== header) seen.push(line);
    }
    // Every row once: table pieces are not repeated as overlap.
    expect(seen).toEqual(rows);
  });

  it("never splits an emoji between pieces of a word or a code line longer than maxTokens", () => {
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const small = { targetTokens: 10, maxTokens: 10, overlapRatio: 0 };
    for (const offset of [0, 1]) {
      const word = `${"a".repeat(offset)}${"🤖".repeat(100)}`;
      const line = `x = "${word}"`;
      const pieces = [
        ...chunkSections([section([prose(word)])], small),
        ...chunkSections([section([code("py", line)])], small),
      ].map((chunk) => chunk.text);
      expect(pieces.length).toBeGreaterThan(2);
      for (const piece of pieces) expect(piece).not.toMatch(loneSurrogate);
      expect(pieces.join("")).toContain("🤖🤖");
    }
  });

  it("never ends a chunk on a heading line", () => {
    const chunks = chunkSections(
      [
        section([prose(sentences("a", 120))], "A", "a"),
        section([prose(sentences("b", 500))], "B", "b"),
      ],
      { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 },
    );
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/## B$/);
    expect(chunks.some((chunk) => chunk.anchor === "b")).toBe(true);
  });

  it("produces no chunks without sections", () => {
    expect(chunkSections([], options)).toEqual([]);
  });

  it("fences code with a longer marker when the code itself contains a fence", () => {
    const source = "```js\nconsole.log(1);\n```";
    const [chunk] = chunkSections([section([code("md", source)])], options);
    expect(chunk?.text).toBe(`\`\`\`\`md\n${source}\n\`\`\`\``);
  });

  it("folds a small trailing piece into the chunk before it when that stays within maxTokens", () => {
    // Seven sentences (~101 tokens) overflow a 100-token target by one tiny sentence.
    const sentences = [
      ...[0, 1, 2, 3, 4, 5].map(
        (index) => `Sentence number ${index} talks about robots and their many sensors.`,
      ),
      "Sentence number 6 is a short one.",
      "Done.",
    ];
    const text = sentences.join(" ");
    const roomy = chunkSections([section([prose(text)])], {
      targetTokens: 100,
      maxTokens: 150,
      overlapRatio: 0.2,
    });
    expect(roomy).toHaveLength(1);
    expect(roomy[0]?.tokens).toBeGreaterThan(100);
    // Folded in without repeating the overlap.
    for (const sentence of sentences) expect(roomy[0]?.text.split(sentence)).toHaveLength(2);

    const tight = chunkSections([section([prose(text)])], {
      targetTokens: 100,
      maxTokens: 100,
      overlapRatio: 0.2,
    });
    expect(tight).toHaveLength(2);
    for (const chunk of tight) expect(chunk.tokens).toBeLessThanOrEqual(100);
  });
});

/* ---------------------------------------------------------------------------------------------
 * Invariants on generated documents
 * ------------------------------------------------------------------------------------------- */

/** mulberry32: a small seeded generator, so failures reproduce. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = (
  "robot node topic service action parameter launch file package workspace build colcon " +
  "message publisher subscriber callback timer executor transform frame sensor camera lidar " +
  "odometry map planner controller joint state velocity command queue depth quality policy " +
  "reliable durable history clock simulation gazebo plugin interface hardware driver serial"
).split(" ");

interface GeneratedDocument {
  sections: Section[];
  /** Every sentence, in document order; each must survive chunking. */
  sentences: string[];
  /** List item lines, which the chunker keeps whole like sentences. */
  listItems: string[];
  /** Each list as written, its items one a line. */
  lists: string[];
  codeBlocks: { id: string; lang: string; code: string }[];
  tables: { header: string; rows: string[] }[];
}

function generateDocument(seed: number, maxTokens: number): GeneratedDocument {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let sentenceCount = 0;
  let codeCount = 0;
  const sentences: string[] = [];
  const listItems: string[] = [];
  const lists: string[] = [];
  const codeBlocks: GeneratedDocument["codeBlocks"] = [];
  const tables: GeneratedDocument["tables"] = [];

  const sentence = (): string => {
    // At most ~150 characters, so every sentence fits the smallest overlap allowance.
    const words = Array.from({ length: between(3, 16) }, () => pick(WORDS));
    const first = `S${sentenceCount++}`;
    const text = `${first} ${words.join(" ")}${pick([".", ".", "?", "!"])}`;
    sentences.push(text);
    return text;
  };
  const codeBlock = (): Block => {
    const id = `b${codeCount++}`;
    // Mostly small blocks, sometimes one well beyond maxTokens.
    const targetChars = random() < 0.2 ? between(maxTokens * 4, maxTokens * 10) : between(20, 900);
    const lines: string[] = [];
    let length = 0;
    while (length < targetChars) {
      const line = `${" ".repeat(between(0, 3) * 2)}const ${id}_${lines.length} = ${pick(WORDS)}(${pick(WORDS)});`;
      lines.push(line);
      length += line.length + 1;
    }
    const lang = pick(["ts", "python", "bash", "", "cpp"]);
    const source = lines.join("\n");
    codeBlocks.push({ id, lang, code: source });
    return code(lang, source);
  };

  const table = (): Block => {
    const id = `t${tables.length}`;
    const header = `${id} name | kind | meaning`;
    // Mostly a few rows, sometimes more than maxTokens holds.
    const count = random() < 0.25 ? between(maxTokens / 8, maxTokens / 3) : between(1, 8);
    const rows = Array.from(
      { length: count },
      (_, index) => `${id}_${index} | ${pick(WORDS)} | ${pick(WORDS)} ${pick(WORDS)}`,
    );
    tables.push({ header, rows });
    return { kind: "prose", text: [header, ...rows].join("\n"), line: 1, table: true };
  };

  const blocks: Block[] = [];
  if (random() < 0.5) blocks.push(prose(sentence()));
  const sectionCount = between(2, 6);
  for (let sectionIndex = 0; sectionIndex < sectionCount; sectionIndex++) {
    blocks.push(heading(between(2, 4), `Heading ${seed}-${sectionIndex}`));
    const blockCount = between(3, 14);
    for (let blockIndex = 0; blockIndex < blockCount; blockIndex++) {
      const kind = random();
      if (kind < 0.55) {
        blocks.push(prose(Array.from({ length: between(1, 9) }, sentence).join(" ")));
      } else if (kind < 0.75) {
        // Mostly short lists, sometimes one longer than maxTokens.
        const count = random() < 0.15 ? between(maxTokens / 12, maxTokens / 6) : between(2, 6);
        const items = Array.from({ length: count }, () => `- ${sentence()}`);
        listItems.push(...items);
        lists.push(items.join("\n"));
        blocks.push(prose(items.join("\n")));
      } else if (kind < 0.85) {
        blocks.push(table());
      } else {
        blocks.push(codeBlock());
      }
    }
  }
  return {
    sections: buildSections(blocks, `Page ${seed}`, anchorOf),
    sentences,
    listItems,
    lists,
    codeBlocks,
    tables,
  };
}

/** Fenced blocks of a chunk, in order, with their content; fails on an unclosed fence. */
function fencedBlocks(text: string): { opener: string; content: string }[] {
  const blocks: { opener: string; content: string }[] = [];
  let open: { marker: string; opener: string; lines: string[] } | undefined;
  for (const line of text.split("\n")) {
    const fence = /^(`{3,}|~{3,})(.*)$/.exec(line);
    if (open === undefined) {
      if (fence?.[1]) open = { marker: fence[1], opener: line, lines: [] };
      continue;
    }
    const closes =
      fence?.[1] !== undefined &&
      fence[2] === "" &&
      fence[1][0] === open.marker[0] &&
      fence[1].length >= open.marker.length;
    if (closes) {
      blocks.push({ opener: open.opener, content: open.lines.join("\n") });
      open = undefined;
    } else open.lines.push(line);
  }
  if (open !== undefined) throw new Error(`unclosed fence ${open.opener} in chunk:\n${text}`);
  return blocks;
}

/** The longest text that ends `previous` and starts `next`. */
function overlapBetween(previous: string, next: string): string {
  for (let length = Math.min(previous.length, next.length); length > 0; length--) {
    const candidate = next.slice(0, length);
    if (previous.endsWith(candidate)) return candidate;
  }
  return "";
}

const OPTION_SETS: ChunkingOptions[] = [
  { targetTokens: 350, maxTokens: 600, overlapRatio: 0.15 },
  { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 },
  { targetTokens: 200, maxTokens: 200, overlapRatio: 0.1 },
  { targetTokens: 50, maxTokens: 100, overlapRatio: 0 },
  { targetTokens: 800, maxTokens: 1000, overlapRatio: 0.5 },
];
const SEEDS = [1, 2, 3, 7, 42, 1234, 9001, 31337];

const cases = OPTION_SETS.flatMap((options) =>
  SEEDS.map((seed) => ({
    seed,
    options,
    label: `seed ${seed}, target ${options.targetTokens}/max ${options.maxTokens}/overlap ${options.overlapRatio}`,
  })),
);

/** Prose boundaries with overlap checked per option set, over all seeds. */
const overlapBoundaries = new Map<ChunkingOptions, number>();

describe.each(cases)("chunkSections invariants ($label)", ({ seed, options }) => {
  const document = generateDocument(seed, options.maxTokens);
  const chunks = chunkSections(document.sections, options);
  const perSection = document.sections.map((entry) => chunkSections([entry], options));

  it("generates a document worth chunking", () => {
    expect(document.sections.length).toBeGreaterThan(1);
    expect(chunks.length).toBeGreaterThan(1);
    if (options.targetTokens <= 200) {
      expect(perSection.some((sectionChunks) => sectionChunks.length > 2)).toBe(true);
    }
  });

  it("keeps every chunk within maxTokens, non-empty, with an accurate token count", () => {
    for (const chunk of chunks) {
      expect(chunk.text.trim()).not.toBe("");
      expect(chunk.tokens).toBe(estimateTokens(chunk.text));
      expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
    }
  });

  it("gives each chunk the metadata of its first section, in document order", () => {
    let lastSection = 0;
    for (const chunk of chunks) {
      const index = document.sections.findIndex(
        (entry) =>
          entry.heading === chunk.section &&
          entry.anchor === chunk.anchor &&
          entry.headingPath.join("/") === chunk.headingPath.join("/"),
      );
      expect(index, chunk.text).toBeGreaterThanOrEqual(lastSection);
      lastSection = index;
    }
    expect(chunks[0]?.anchor).toBe(document.sections[0]?.anchor);
  });

  it("names every section: as a chunk's own section or as a heading line inside a chunk", () => {
    for (const entry of document.sections) {
      const line = `${"#".repeat(Math.min(6, entry.headingPath.length))} ${entry.heading}`;
      const named =
        chunks.some((chunk) => chunk.anchor === entry.anchor) ||
        chunks.some((chunk) => chunk.text.split("\n").includes(line));
      expect(named, entry.heading).toBe(true);
    }
    // A chunk never ends on a heading line: the heading goes with its text.
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/(^|\n)#{2,6} [^\n]*$/);
  });

  it("leaves a chunk under a quarter of the target only when no neighbour has room for it", () => {
    const minTokens = Math.floor(options.targetTokens * 0.25);
    for (const [index, chunk] of chunks.entries()) {
      if (chunk.tokens >= minTokens || chunks.length === 1) continue;
      const previous = chunks[index - 1];
      const next = chunks[index + 1];
      if (previous) expect(previous.tokens + chunk.tokens).toBeGreaterThan(options.maxTokens - 2);
      if (next) expect(chunk.tokens + next.tokens).toBeGreaterThan(options.maxTokens - 2);
    }
  });

  it("keeps fences balanced in every chunk", () => {
    for (const chunk of chunks) expect(() => fencedBlocks(chunk.text)).not.toThrow();
  });

  it("keeps each code block whole in exactly one chunk unless it alone exceeds maxTokens", () => {
    let oversized = 0;
    for (const block of document.codeBlocks) {
      const fenced = `\`\`\`${block.lang}\n${block.code}\n\`\`\``;
      if (estimateTokens(fenced) <= options.maxTokens) {
        const holders = chunks.filter((chunk) => chunk.text.includes(fenced));
        expect(holders, `code block ${block.id}`).toHaveLength(1);
        continue;
      }
      oversized++;
      // Each piece is a fenced block of its own; in order, the pieces give back the code.
      const pieces = chunks
        .flatMap((chunk) => fencedBlocks(chunk.text))
        .filter((piece) => piece.content.includes(`const ${block.id}_`));
      expect(pieces.length).toBeGreaterThan(1);
      for (const piece of pieces) {
        expect(piece.opener).toBe(`\`\`\`${block.lang}`);
        expect(estimateTokens(`${piece.opener}\n${piece.content}\n\`\`\``)).toBeLessThanOrEqual(
          options.maxTokens,
        );
      }
      expect(pieces.map((piece) => piece.content).join("\n")).toBe(block.code);
    }
    // The generator is meant to exercise both paths for most seeds; make sure it did overall.
    if (seed === 42) expect(oversized).toBeGreaterThan(0);
  });

  it("keeps each table whole in one chunk, or in pieces that each start with its header row", () => {
    for (const { header, rows } of document.tables) {
      const whole = [header, ...rows].join("\n");
      if (estimateTokens(whole) <= options.maxTokens) {
        expect(chunks.filter((chunk) => chunk.text.includes(whole))).toHaveLength(1);
        continue;
      }
      const seen: string[] = [];
      for (const chunk of chunks) {
        const lines = chunk.text.split("\n");
        for (const [index, line] of lines.entries()) {
          if (!rows.includes(line)) continue;
          seen.push(line);
          // The line above a row is the header or the row before it.
          const above = lines[index - 1];
          expect(above === header || rows.includes(above ?? "")).toBe(true);
        }
      }
      // Every row once, in order: table pieces are never repeated as overlap.
      expect(seen).toEqual(rows);
    }
    if (seed === 42) expect(document.tables.length).toBeGreaterThan(0);
  });

  it("keeps a list whole, once, unless it alone exceeds maxTokens", () => {
    let whole = 0;
    for (const list of document.lists) {
      if (estimateTokens(list) > options.maxTokens) continue;
      whole++;
      expect(chunks.filter((chunk) => chunk.text.includes(list)).length, list).toBe(1);
    }
    if (seed === 42) expect(whole).toBeGreaterThan(0);
  });

  it("loses no prose and keeps it in order", () => {
    let lastChunk = 0;
    for (const sentence of document.sentences) {
      const holder = chunks.findIndex((chunk) => chunk.text.includes(sentence));
      expect(holder, sentence).toBeGreaterThanOrEqual(0);
      // The first chunk holding a sentence never comes before the one holding the previous.
      expect(holder).toBeGreaterThanOrEqual(lastChunk);
      lastChunk = holder;
    }
  });

  it("overlaps consecutive chunks of a section at prose boundaries", () => {
    const budget = Math.floor(options.targetTokens * options.overlapRatio);
    const units = [...document.sentences, ...document.listItems];
    let boundaries = 0;
    for (const sequence of [chunks, ...perSection]) {
      for (let index = 1; index < sequence.length; index++) {
        const previous = sequence[index - 1] as ChunkDraft;
        const next = sequence[index] as ChunkDraft;
        // At a code or table boundary there is no overlap to expect: neither is ever repeated.
        const lastLine = previous.text.split("\n").at(-1) ?? "";
        const firstLine = next.text.split("\n")[0] ?? "";
        const tableLine = (line: string) =>
          document.tables.some(({ header, rows }) => line === header || rows.includes(line));
        if (previous.text.endsWith("```") || next.text.startsWith("```")) continue;
        if (tableLine(lastLine) || tableLine(firstLine)) continue;
        // Nor at the edge of a list kept whole.
        const wholeList = (line: string) =>
          document.lists.some(
            (list) => list.includes(line) && estimateTokens(list) <= options.maxTokens,
          );
        if (wholeList(lastLine) || wholeList(firstLine)) continue;
        const overlap = overlapBetween(previous.text, next.text);
        if (options.overlapRatio === 0) {
          expect(overlap).toBe("");
          continue;
        }
        // A chunk that starts a section has no overlap to expect: overlap stays within a section.
        const nextSection = document.sections.find((entry) => entry.anchor === next.anchor);
        const continues =
          next.anchor === previous.anchor ||
          (nextSection !== undefined &&
            previous.text
              .split("\n")
              .includes(
                `${"#".repeat(Math.min(6, nextSection.headingPath.length))} ${nextSection.heading}`,
              ));
        if (!continues) continue;
        boundaries++;
        // The next chunk starts with whole sentences (or list items) that end the previous one.
        expect(
          units.some((unit) => overlap.startsWith(unit)),
          `no sentence overlap between\n${previous.text}\n---\n${next.text}`,
        ).toBe(true);
        expect(estimateTokens(overlap)).toBeLessThanOrEqual(2 * budget + 2);
        expect(overlap.length).toBeLessThan(next.text.length);
      }
    }
    overlapBoundaries.set(options, (overlapBoundaries.get(options) ?? 0) + boundaries);
  });

  it("repeats no sentence when the overlap ratio is zero", () => {
    if (options.overlapRatio !== 0) return;
    for (const sentence of document.sentences) {
      const count = chunks.filter((chunk) => chunk.text.includes(sentence)).length;
      expect(count, sentence).toBe(1);
    }
  });
});

// A static build ships a chunk's blocks only when reading its text would give other blocks
// (compared as JSON text): blocks that differ only in the order of their keys were shipped whole.
describe("chunk blocks read again from the chunk's text", () => {
  const options: ChunkingOptions = { targetTokens: 350, maxTokens: 600, overlapRatio: 0.15 };
  it.each([
    { name: "a fenced code block", markdown: "Run it:\n\n```bash\nmake\nmake install\n```\n" },
    { name: "a list and a table", markdown: "- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" },
    {
      name: "headings and prose",
      markdown: "Intro.\n\n## Part\n\nBody text.\n\n### Inner\n\nMore.",
    },
  ])("$name: the same JSON as the blocks ingest stores", ({ markdown }) => {
    const { blocks } = parseMarkdown(markdown, { filePath: "page.md", format: "md" });
    const chunks = chunkSections(buildSections(blocks, "Page", anchorOf), options);
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks)
      expect(JSON.stringify(chunkBlocks(chunk.text))).toBe(JSON.stringify(chunk.blocks));
  });
});

// A chunk's blocks are the parser's, carried through chunking: the stored text is never read again
// by line rules, which took a pipe in inline code for a table and a number opening a line for a list.
describe("chunk blocks as the page was parsed", () => {
  const options: ChunkingOptions = { targetTokens: 350, maxTokens: 600, overlapRatio: 0.15 };
  const blocksOfPage = (markdown: string) => {
    const { blocks } = parseMarkdown(markdown, { filePath: "page.md", format: "md" });
    return chunkSections(buildSections(blocks, "Page", anchorOf), options).flatMap(
      (chunk) => chunk.blocks,
    );
  };
  it.each([
    {
      name: "a pipe inside inline code is no table",
      markdown: "`match(string | regexp)` matches a string that matches the expected pattern.",
      blocks: [
        {
          kind: "paragraph",
          text: "match(string | regexp) matches a string that matches the expected pattern.",
        },
      ],
    },
    {
      name: "a number opening a wrapped line is no list",
      markdown:
        "The value defaults to the number of cores minus\n2. It can be raised on large machines.",
      blocks: [
        {
          kind: "paragraph",
          text: "The value defaults to the number of cores minus 2. It can be raised on large machines.",
        },
      ],
    },
    {
      name: "code inside a list item stays in its item",
      markdown: "Steps to follow in order:\n\n- Build it:\n\n  ```bash\n  make\n  ```\n\n- Run it.",
      blocks: [
        { kind: "paragraph", text: "Steps to follow in order:" },
        { kind: "list", items: ["- Build it:\n  ```bash\n  make\n  ```", "- Run it."] },
      ],
    },
    {
      name: "a table is a table, a paragraph after it a paragraph",
      markdown:
        "| flag | default |\n| --- | --- |\n| port | 3000 |\n\nThe port can be changed with the flag.",
      blocks: [
        { kind: "table", rows: ["flag | default", "port | 3000"] },
        { kind: "paragraph", text: "The port can be changed with the flag." },
      ],
    },
    {
      name: "a long paragraph cut into sentences is one paragraph again",
      markdown: `${sentences("a", 200)}\n\n## Next\n\nShort closing words of the page here.`,
      blocks: [
        { kind: "paragraph", text: sentences("a", 200) },
        { kind: "heading", text: "Next" },
        { kind: "paragraph", text: "Short closing words of the page here." },
      ],
    },
  ])("$name", ({ markdown, blocks }) => {
    expect(blocksOfPage(markdown)).toEqual(blocks);
  });
});

describe("chunkSections invariants over all seeds", () => {
  it("checked overlap at some prose boundary for every option set with overlap", () => {
    for (const options of OPTION_SETS) {
      if (options.overlapRatio === 0 || options.targetTokens > 350) continue;
      expect(overlapBoundaries.get(options), JSON.stringify(options)).toBeGreaterThan(0);
    }
  });
});

describe("chunkSections on oversized pieces", () => {
  const options: ChunkingOptions = { targetTokens: 100, maxTokens: 150, overlapRatio: 0.2 };

  it("splits a sentence longer than maxTokens at word boundaries, keeping every word", () => {
    const words = Array.from({ length: 400 }, (_, index) => `word${index}`);
    const chunks = chunkSections([section([prose(words.join(" "))])], options);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
    const seen = chunks.flatMap((chunk) => chunk.text.split(/\s+/));
    let position = 0;
    for (const word of words) {
      const found = seen.indexOf(word, position);
      expect(found, word).toBeGreaterThanOrEqual(position);
      position = found;
    }
  });

  it("splits a single huge word into pieces within maxTokens, losing nothing", () => {
    const blob = "QmFzZTY0".repeat(400);
    const chunks = chunkSections([section([prose(blob)])], { ...options, overlapRatio: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe(blob);
  });

  it("splits a code line longer than maxTokens into fenced pieces", () => {
    const line = `const data = "${"x".repeat(2000)}";`;
    const chunks = chunkSections([section([code("ts", line)])], options);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
      expect(fencedBlocks(chunk.text).length).toBeGreaterThan(0);
    }
    const pieces = chunks.flatMap((chunk) => fencedBlocks(chunk.text));
    expect(pieces.map((piece) => piece.content).join("")).toBe(line);
  });

  // Regression: splitCode budgets each piece for a ``` fence, but fence() picks a longer marker when the
  // piece itself contains a run of backticks (a code block that shows a Markdown fence), so such a
  // piece can come out over maxTokens: 151 tokens for maxTokens 150, 601 for maxTokens 600.
  it.each([
    {
      example: "an unlabelled block showing 175 echo lines in a bash fence",
      maxTokens: 150,
      source: `\`\`\`bash\n${lines(175, (index) => `echo line ${index}`)}\n\`\`\``,
    },
    {
      example: "an unlabelled block showing 40 ros2 run lines in a bash fence",
      maxTokens: 600,
      source: `\`\`\`bash\n${lines(40, (index) => `ros2 run demo_nodes_cpp talker --ros-args -r __node:=talker_${index}`)}\n\`\`\``,
    },
    {
      example: "a minified line that starts with a fence",
      maxTokens: 150,
      source: `\`\`\`${"x".repeat(2000)}`,
    },
  ])("keeps every piece within maxTokens for $example", ({ maxTokens, source }) => {
    const chunks = chunkSections([section([code("", source)])], {
      targetTokens: Math.min(350, maxTokens),
      maxTokens,
      overlapRatio: 0.15,
    });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
  });
});

function lines(count: number, line: (index: number) => string): string {
  return Array.from({ length: count }, (_, index) => line(index)).join("\n");
}
