import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../book/records.ts";
import { ExtractiveSynthesizer } from "../pipeline/answer-synthesizer.ts";
import { retrievedChunk } from "../search/test-builders.ts";
import type { RetrievedChunk } from "../search/types.ts";
import {
  CARD_WEIGHTS,
  heldWeight,
  holdsPassage,
  packedSectionTerms,
  questionWords,
  renderCard,
  sectionsOf,
  squeezed,
} from "./section-card.ts";

/**
 * The section card and the lead passage, table-driven: each row is a question, the chunks search
 * found, and what the answer must (and must not) contain. The chunks are made up for these tests; none is a book's.
 */

/** A result whose chunk holds sections merged after its first (`## heading` lines). */
function merged(
  id: string,
  text: string,
  headingPath: string[],
  sections: { heading: string; anchor: string; headingPath: string[] }[],
  similarity = 0.8,
): RetrievedChunk {
  const result = retrievedChunk(id, text, headingPath[0] ?? id, similarity);
  result.chunk = {
    ...result.chunk,
    headingPath,
    section: headingPath.at(-1) ?? id,
    sectionAnchors: sections,
  };
  return result;
}

const serveOptions = [
  "The serve command starts the preview server.",
  "",
  "| Option | Default | What it does |",
  "| --- | --- | --- |",
  "| `--host` | `localhost` | Interface to bind |",
  "| `--port` | `4100` | Port the preview server listens on |",
  "| `--open` | `true` | Opens a browser tab |",
].join("\n");

const bakeCode = [
  "To bake a release archive, run the bake task with the target name:",
  "",
  "```sh",
  "quill bake --target release",
  "```",
].join("\n");

const signCode = [
  "To sign a release archive, run the sign task with the key name:",
  "",
  "```sh",
  "quill sign --key release",
  "```",
].join("\n");

const sealTable = [
  "The seal task stamps a release archive once it is signed.",
  "",
  "| Option | Value |",
  "| --- | --- |",
  "| `--stamp` | `release` |",
].join("\n");

/** Three tasks' sections, the seal task's scored `seal` by the search. */
const bakeSignSeal = (seal: number) => [
  retrievedChunk("bake", bakeCode, "Bake", 0.8),
  retrievedChunk("sign", signCode, "Sign", 0.8),
  retrievedChunk("seal", sealTable, "Seal", seal),
];

const twoSiblings = merged(
  "tools",
  [
    "The lint task checks the style of every page and reports each finding with its line.",
    "",
    "## Spelling",
    "",
    "The spelling task compares each word against the project dictionary and lists unknown words.",
  ].join("\n"),
  ["Tools", "Lint"],
  [{ heading: "Spelling", anchor: "spelling", headingPath: ["Tools", "Spelling"] }],
);

const longTable = [
  "Every setting of the renderer:",
  "",
  "| Setting | Default |",
  "| --- | --- |",
  ...Array.from({ length: 20 }, (_, index) => `| option${index} | ${index} |`),
  "| gutterWidth | 24px |",
].join("\n");

const glossary = retrievedChunk(
  "terms",
  [
    "Every term of the toolkit in one place.",
    "",
    "A quern is the grinding stage that turns raw samples into an even powder.",
  ].join("\n"),
  "Terms",
  0.5,
);

const usesQuern = retrievedChunk(
  "setup",
  "Note: the quern runs before the sieve. Start the quern from the control panel and wait until its lamp is green.",
  "Setup",
  0.9,
);

const sieve = retrievedChunk(
  "sieve",
  [
    "The sieve separates the powder by grain size.",
    "",
    "Its mesh is chosen per sample. To change the mesh, lift the lid and swap the frame:",
    "",
    "```sh",
    "mill mesh --size 40",
    "```",
  ].join("\n"),
  "Sieve",
  0.8,
);

const spooler = retrievedChunk(
  "spool",
  "Jobs wait in line. A spooler is a queue that holds print jobs until the printer is free.",
  "Spooler",
  0.8,
);

const cases: {
  name: string;
  question: string;
  results: RetrievedChunk[];
  /** The book's glossary page, found by its title rather than by the search. */
  glossary?: RetrievedChunk;
  /** The answer's first lines after its heading hold this (the lead passage). */
  opens?: string;
  contains: string[];
  lacks?: string[];
}[] = [
  {
    name: "a fact in a table row keeps the table",
    question: "Which port does the preview server use by default?",
    results: [retrievedChunk("serve", serveOptions, "Serve")],
    contains: ["| `--port` | `4100` |", "**Serve** [1]"],
  },
  {
    name: "a table's words count in its section's match",
    question: "Which interface does the preview server bind with --host?",
    results: [
      retrievedChunk(
        "about",
        "The preview server is one of the tools. It serves pages.",
        "About",
        0.9,
      ),
      retrievedChunk("serve", serveOptions, "Serve", 0.7),
    ],
    opens: "The serve command starts the preview server.",
    contains: ["**Serve** [2]", "| `--host` | `localhost` | Interface to bind |"],
  },
  {
    name: "a fact in a code block keeps the code",
    question: "How do I bake a release archive?",
    results: [retrievedChunk("bake", bakeCode, "Bake")],
    contains: ["```sh\nquill bake --target release\n```"],
  },
  {
    name: "of two sibling sections packed in one chunk, only the one asked about",
    question: "Which task finds unknown words against the dictionary?",
    results: [twoSiblings],
    contains: ["**Tools › Spelling** [1]", "project dictionary"],
    lacks: ["lint task"],
  },
  {
    name: "a long table shows the row that answers",
    question: "What is the default gutterWidth of the renderer?",
    results: [retrievedChunk("renderer", longTable, "Renderer")],
    contains: ["| gutterWidth | 24px |", "| … | … |"],
    lacks: ["| option19 |"],
  },
  {
    name: "the section matching best is shown, whatever the rank",
    question: "How do I bake a release archive?",
    results: [
      retrievedChunk("serve", serveOptions, "Serve", 0.9),
      retrievedChunk("bake", bakeCode, "Bake", 0.7),
    ],
    contains: ["**Bake** [2]", "quill bake"],
    lacks: ["preview server"],
  },
  {
    name: "a second section matching nearly as well follows the best",
    question: "How do I bake and sign a release archive?",
    results: [
      retrievedChunk("bake", bakeCode, "Bake", 0.8),
      retrievedChunk("sign", signCode, "Sign", 0.8),
    ],
    // The sign passage holds more of the question's phrase ("sign a release archive"): it leads.
    contains: [
      "**Bake** [1]",
      "quill bake --target release",
      "**Sign**",
      "quill sign --key",
      "[2]",
    ],
  },
  {
    name: "a third section matching nearly as well follows the second, in a few words",
    question: "How do I bake, sign and seal a release archive?",
    results: bakeSignSeal(0.8),
    contains: [
      "quill bake --target release",
      "quill sign --key",
      "**Seal** [3]",
      "| `--stamp` | `release` |",
    ],
  },
  {
    name: "a section far below the best is not shown",
    question: "How do I bake and sign a release archive?",
    results: bakeSignSeal(0.1),
    contains: ["quill bake --target release", "quill sign --key"],
    lacks: ["**Seal**", "`--stamp`"],
  },
  {
    name: "a card cut for length links to the whole section",
    question: "What is the default gutterWidth of the renderer?",
    results: [
      retrievedChunk(
        "renderer",
        [
          longTable,
          ...Array.from(
            { length: 12 },
            (_, index) =>
              `Paragraph ${index} of the renderer notes covers margins, fonts and page ${index} layout in more words than a card shows at once.`,
          ),
        ].join("\n\n"),
        "Renderer",
      ),
    ],
    contains: ["| gutterWidth | 24px |", "[The whole section](/docs/renderer)"],
  },
  {
    name: "a card shown whole has no such link",
    question: "How do I bake a release archive?",
    results: [retrievedChunk("bake", bakeCode, "Bake")],
    contains: ["quill bake --target release"],
    lacks: ["The whole section"],
  },
  // The lead passage (lead.ts).
  {
    name: "for 'what is X', the glossary's sentence saying what X is leads, beyond the results",
    question: "What is a quern?",
    results: [usesQuern],
    glossary,
    opens: "A quern is the grinding stage",
    contains: [],
  },
  {
    name: "for 'what is X', the glossary's sentence leads however many sections the search found",
    question: "What is a quern?",
    results: Array.from({ length: 45 }, (_, index) =>
      retrievedChunk(
        `step-${index}`,
        `Step ${index} of the mill runs the quern for ${index + 2} minutes at low speed.`,
        `Step ${index}`,
        0.9 - index * 0.01,
      ),
    ),
    glossary,
    opens: "A quern is the grinding stage",
    contains: [],
  },
  {
    name: "of two sources alike, the one saying what X is leads; a label before X is an aside",
    question: "What is a quern?",
    results: [usesQuern, { ...glossary, similarityScore: usesQuern.similarityScore }],
    opens: "A quern is the grinding stage",
    contains: [],
  },
  {
    name: "a passage ending in ':' brings the code it introduces",
    question: "How do I change the mesh of the sieve?",
    results: [sieve],
    contains: ["To change the mesh, lift the lid and swap the frame:", "mill mesh --size 40"],
  },
  {
    name: "of two passages holding the question's words, the one holding its phrase leads",
    question: "How do I reset the build cache?",
    results: [
      retrievedChunk(
        "keep",
        "The build keeps each artifact it made in a cache of its own. To reset it, delete the folder.",
        "Artifacts",
        0.9,
      ),
      retrievedChunk(
        "clean",
        "Run the clean task to reset the build cache before a release.",
        "Clean",
        0.8,
      ),
    ],
    opens: "Run the clean task to reset the build cache",
    contains: [],
  },
  {
    name: "a sentence holding none of the question's words is not quoted with the one that does",
    question: "What does the print spooler queue hold?",
    results: [spooler],
    contains: ["**A spooler is a queue that holds print jobs until the printer is free.**"],
    lacks: ["**Jobs wait in line."],
  },
];

describe("the section card", () => {
  const synthesizer = new ExtractiveSynthesizer();
  for (const row of cases)
    it(row.name, async () => {
      const { glossary } = row;
      const output = await synthesizer.synthesize({
        question: row.question,
        results: row.results,
        selectedText: null,
        ...(glossary
          ? {
              glossaryPages: [glossary.chunk.filePath],
              pageChunks: (filePath: string) =>
                [...row.results, glossary]
                  .map((result) => result.chunk)
                  .filter((chunk) => chunk.filePath === filePath),
            }
          : {}),
      });
      const answer = output.answer ?? "";
      if (row.opens) expect(answer.split("\n\n")[1] ?? "").toContain(row.opens);
      for (const phrase of row.contains) expect(answer).toContain(phrase);
      for (const phrase of row.lacks ?? []) expect(answer).not.toContain(phrase);
    });

  it("links its citation to a section merged into the chunk", async () => {
    const output = await synthesizer.synthesize({
      question: "Which task finds unknown words against the dictionary?",
      results: [twoSiblings],
      selectedText: null,
    });
    expect(output.quotedSections).toEqual([
      {
        citation: 1,
        url: "/docs/tools#spelling",
        section: "Spelling",
        headingPath: ["Tools", "Spelling"],
      },
    ]);
  });

  it("shows another chunk of a result's page as a source of its own, numbered after the results", async () => {
    const opening = retrievedChunk("guide", "Welcome to the guide of the quill tool.", "Guide");
    const later: ChunkRecord = {
      ...retrievedChunk("guide-1", bakeCode, "Guide").chunk,
      filePath: opening.chunk.filePath,
      chunkIndex: 1,
      headingPath: ["Guide", "Baking"],
      section: "Baking",
      url: "/docs/guide#baking",
    };
    const output = await synthesizer.synthesize({
      question: "How do I bake a release archive?",
      results: [opening],
      selectedText: null,
      pageChunks: () => [opening.chunk, later],
    });
    expect(output.answer).toContain("**Guide › Baking** [2]");
    expect(output.extraSources?.map((extra) => extra.chunk.id)).toEqual(["guide-1"]);
  });
});

describe("sections of a chunk", () => {
  it("are made of the blocks stored with the chunk, its text not read again", () => {
    const chunk: ChunkRecord = {
      ...retrievedChunk("stored", "Text as it was written.", "Stored").chunk,
      blocks: [
        { kind: "paragraph", text: "As ingest read it." },
        { kind: "table", rows: ["| a | b |", "| --- | --- |", "| 1 | 2 |"] },
      ],
    };
    expect(sectionsOf(chunk, 0)[0]?.blocks.map((block) => block.kind)).toEqual([
      "paragraph",
      "table",
    ]);
  });

  it("folds a sub-section into the section above it", () => {
    const chunk = merged(
      "api",
      ["Intro of the API.", "", "### Options", "", "Options of the API."].join("\n"),
      ["Reference", "API"],
      [{ heading: "Options", anchor: "options", headingPath: ["Reference", "API", "Options"] }],
    ).chunk;
    const sections = sectionsOf(chunk, 0);
    expect(sections).toHaveLength(1);
    expect(sections[0]?.blocks.map((block) => block.kind)).toEqual([
      "paragraph",
      "heading",
      "paragraph",
    ]);
  });
});

describe("sections' terms shipped with a chunk", () => {
  const chunkOf = (id: string) =>
    merged(
      id,
      [
        "Topics carry\u00a0messages:\tfoo.bar(x), C++ and ROS2 in 10.5 ms.",
        "",
        "## Queues",
        "",
        "A queue holds messages, then drops them; ｆｕｌｌ-width café, x² and 漢字.",
      ].join("\n"),
      ["Messaging"],
      [{ heading: "Queues", anchor: "queues", headingPath: ["Queues"] }],
    ).chunk;
  const counts = (chunk: ChunkRecord) =>
    sectionsOf(chunk, 0).map((section) => [[...section.termCounts], section.length]);

  it("are each section's analysed terms with their counts, as answering reads them", () => {
    const packed = packedSectionTerms(chunkOf("packed"));
    expect(packed).toHaveLength(2);
    expect(counts({ ...chunkOf("shipped"), sectionTerms: packed })).toEqual(
      counts(chunkOf("analysed")),
    );
  });

  it("are read instead of the text: the book's build analysed it", () => {
    const sectionTerms = ["3 built 3", "1 once 1"];
    expect(counts({ ...chunkOf("read"), sectionTerms })).toEqual([
      [[["built", 3]], 3],
      [[["once", 1]], 1],
    ]);
  });

  it("are analysed anew when they do not match the chunk's sections", () => {
    const sectionTerms = ["1 stale 1"];
    expect(counts({ ...chunkOf("stale"), sectionTerms })).toEqual(counts(chunkOf("fresh")));
  });
});

describe("whether a section holds a quoted passage", () => {
  const text = [
    "The queue drops the oldest message when it is full.",
    "",
    "Warning: Never block inside a handler of the queue. The queue stops delivering.",
  ].join("\n");
  const [section] = sectionsOf(retrievedChunk("queue", text, "Queue").chunk, 0);
  const rows: { passage: string; holds: boolean }[] = [
    { passage: "Never block inside a handler of the queue.", holds: true },
    // A passage running from one paragraph into an admonition quotes it without its label.
    {
      passage:
        "The queue drops the oldest message when it is full. Never block inside a handler of the queue.",
      holds: true,
    },
    { passage: "The queue drops the newest message when it is full.", holds: false },
  ];
  for (const row of rows)
    it(`${row.holds ? "holds" : "does not hold"}: ${row.passage}`, () => {
      if (!section) throw new Error("no section");
      expect(holdsPassage(section, squeezed(row.passage))).toBe(row.holds);
    });

  it("marks the quoted sentence of an admonition, label and all", () => {
    if (!section) throw new Error("no section");
    const question = questionWords("Can I block in a queue handler?", () => 1);
    const card = renderCard(section, 1, question, CARD_WEIGHTS, rows[1]?.passage);
    expect(card.text).toContain("**Warning: Never block inside a handler of the queue.**");
  });
});

describe("rendering a card", () => {
  const idf = () => 1;

  it("sets the sentence matching the question best in bold, not the others", () => {
    const chunk = retrievedChunk(
      "cache",
      "The cache keeps rendered pages. It is cleared by the purge task when pages change. Pages load faster.",
      "Cache",
    ).chunk;
    const [section] = sectionsOf(chunk, 0);
    if (!section) throw new Error("no section");
    const { text } = renderCard(section, 1, questionWords("How is the cache cleared?", idf));
    expect(text).toContain("**It is cleared by the purge task when pages change.**");
    expect(text).not.toContain("**Pages load faster.**");
  });

  it("leaves out the blocks matching least beyond the word budget, with an ellipsis, keeping the first", () => {
    const filler = (word: string) => Array.from({ length: 60 }, () => word).join(" ");
    const text = [
      "Opening words of the section.",
      filler("alpha"),
      filler("beta"),
      "The answer names the frobnicator.",
    ].join("\n\n");
    const [section] = sectionsOf(retrievedChunk("long", text, "Long").chunk, 0);
    if (!section) throw new Error("no section");
    const card = renderCard(section, 1, questionWords("What about the frobnicator?", idf), {
      ...CARD_WEIGHTS,
      maxWords: 80,
    });
    expect(card.cut).toBe(true);
    expect(card.text).toContain("Opening words of the section.");
    expect(card.text).toContain("frobnicator");
    expect(card.text).toContain("…");
    expect(card.text).not.toContain("alpha alpha");
  });

  it("leaves out the sentences of the reader's selection, an ellipsis in their place", () => {
    const text =
      "The queue holds jobs. It drops the oldest job when full. A full queue logs a warning.";
    const [section] = sectionsOf(retrievedChunk("queue", text, "Queue").chunk, 0);
    if (!section) throw new Error("no section");
    const question = questionWords("Why does the queue drop jobs?", idf);
    const selection = "It drops the oldest job when full.";
    const card = renderCard(section, 2, question, CARD_WEIGHTS, undefined, selection);
    expect(card.text).toBe("**Queue** [2]\n\nThe queue holds jobs. … A full queue logs a warning.");
  });

  it("keeps the block holding the passage it marks, however little it matches", () => {
    const filler = (word: string) => Array.from({ length: 60 }, () => word).join(" ");
    const text = [
      "Opening words of the section.",
      `The frobnicator ${filler("gamma")}.`,
      "By default the purge runs every 60 seconds.",
    ].join("\n\n");
    const [section] = sectionsOf(retrievedChunk("kept", text, "Kept").chunk, 0);
    if (!section) throw new Error("no section");
    const question = questionWords("When is the frobnicator emptied?", idf);
    const passage = "By default the purge runs every 60 seconds.";
    const shown = renderCard(section, 1, question, { ...CARD_WEIGHTS, maxWords: 40 }, passage);
    expect(shown.text).toContain(`**${passage}**`);
    const plain = renderCard(section, 1, question, { ...CARD_WEIGHTS, maxWords: 40 });
    expect(plain.text).not.toContain("60 seconds");
  });
});

describe("the weight of the question's words a text holds", () => {
  // Summed in each text's own order, 0.1 + 0.2 + 0.3 and 0.3 + 0.2 + 0.1 differ in the last bit,
  // and which of two such texts ranks first would depend on the runtime's arithmetic.
  const question = {
    words: ["alpha", "beta", "gamma"],
    weights: [0.1, 0.2, 0.3],
    weight: new Map([
      ["alpha", 0.1],
      ["beta", 0.2],
      ["gamma", 0.3],
    ]),
    total: 0.6,
    pairs: new Map<string, number>(),
  };

  it("is exactly the same for texts holding the same words in any order", () => {
    const forward = heldWeight(question, new Set(["alpha", "beta", "gamma", "delta"]));
    const backward = heldWeight(question, new Set(["delta", "gamma", "beta", "alpha"]));
    expect(forward).toBe(backward);
    expect(forward).toBeCloseTo(0.6, 12);
  });

  it("counts only the question's words", () => {
    expect(heldWeight(question, new Set(["gamma", "delta"]))).toBe(0.3);
    expect(heldWeight(question, new Set())).toBe(0);
  });
});
