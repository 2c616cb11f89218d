import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../book/records.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { DEFAULT_THRESHOLDS, diversify, Retriever } from "./retriever.ts";
import { isAcronym } from "./search-terms.ts";

let counter = 0;
function chunk(filePath: string, url: string, headingPath: string[], text: string): ChunkRecord {
  counter++;
  return {
    id: `c${counter}`,
    collection: "default",
    version: "",
    filePath,
    chunkIndex: 0,
    totalChunks: 1,
    title: headingPath[0] ?? "",
    section: headingPath.at(-1) ?? "",
    headingPath,
    url,
    tags: [],
    text,
    contentHash: `h${counter}`,
    tokenCount: Math.ceil(text.length / 4),
  };
}

const corpus = [
  chunk(
    "arm/ik.md",
    "https://b.example/docs/arm/ik#jacobian",
    ["Inverse kinematics", "Jacobian methods"],
    "The Jacobian maps joint velocities to end effector velocities. Damped least squares keeps the inverse kinematics solver stable near singularities.",
  ),
  chunk(
    "arm/ik.md",
    "https://b.example/docs/arm/ik#analytic",
    ["Inverse kinematics", "Analytic solutions"],
    "Analytic inverse kinematics solves the joint angles in closed form for a six axis arm with a spherical wrist.",
  ),
  chunk(
    "arm/ik.md",
    "https://b.example/docs/arm/ik#limits",
    ["Inverse kinematics", "Joint limits"],
    "Joint limits clamp each inverse kinematics solution; the solver rejects angles outside the limits.",
  ),
  chunk(
    "arm/fk.md",
    "https://b.example/docs/arm/fk",
    ["Forward kinematics"],
    "Forward kinematics chains the joint transforms to find where the end effector is. Inverse kinematics reverses this.",
  ),
  chunk(
    "ros/topics.md",
    "https://b.example/docs/ros/topics#qos",
    ["Topics", "Quality of service"],
    "A reliable QoS profile retransmits lost messages, while best effort drops them. Use rclpy.spin to process callbacks.",
  ),
  chunk(
    "ros/nodes.md",
    "https://b.example/docs/ros/nodes",
    ["Nodes"],
    "A node is a process that performs computation. The onBrokenLinks setting is unrelated but shows identifier splitting.",
  ),
];

const index = LexicalIndex.build(corpus);
const retriever = new Retriever(index, { topK: 5, maxChunksPerPage: 2 });

describe("retriever", () => {
  it("ranks the passage that answers the question first, with a similarity in 0..1", () => {
    const result = retriever.searchLexical("How does damped least squares handle singularities?");
    expect(result.results[0]?.chunk.url).toBe("https://b.example/docs/arm/ik#jacobian");
    for (const item of result.results) {
      expect(item.similarityScore).toBeGreaterThanOrEqual(0);
      expect(item.similarityScore).toBeLessThanOrEqual(1);
    }
    expect(result.decision).toBe("answer");
  });

  it("finds code identifiers written either way", () => {
    expect(retriever.searchLexical("rclpy.spin").results[0]?.chunk.filePath).toBe("ros/topics.md");
    expect(retriever.searchLexical("what does on broken links do").results[0]?.chunk.filePath).toBe(
      "ros/nodes.md",
    );
    expect(retriever.searchLexical("onBrokenLinks").results[0]?.chunk.filePath).toBe(
      "ros/nodes.md",
    );
  });

  it("says no_results for a question whose informative words the book never uses", () => {
    const result = retriever.searchLexical("What is the best sourdough bread recipe?");
    expect(result.decision).toBe("no_results");
    const partial = retriever.searchLexical(
      "How do I configure a Kubernetes ingress controller for the arm?",
    );
    expect(partial.decision).toBe("no_results");
    expect(partial.bestSimilarity).toBeLessThan(0.5);
  });

  it("limits chunks per page so other relevant pages are shown", () => {
    const result = retriever.searchLexical("inverse kinematics joint solver", { topK: 3 });
    const pages = result.results.map((item) => item.chunk.filePath);
    expect(pages.filter((page) => page === "arm/ik.md")).toHaveLength(2);
    expect(pages).toContain("arm/fk.md");
  });

  it("fills top-k from one page when no other page is relevant", () => {
    // Only arm/ik.md is in scope, so its third chunk fills the slot another page would have taken.
    const result = retriever.searchLexical("inverse kinematics solver joint angles", {
      topK: 3,
      filters: { sourceUrlPrefix: "/docs/arm/ik" },
    });
    expect(result.results.map((item) => item.chunk.url).sort()).toEqual([
      "https://b.example/docs/arm/ik#analytic",
      "https://b.example/docs/arm/ik#jacobian",
      "https://b.example/docs/arm/ik#limits",
    ]);
  });

  it("filters by URL prefix, as a path or a full URL", () => {
    const byPath = retriever.searchLexical("kinematics", {
      filters: { sourceUrlPrefix: "/docs/arm/fk" },
    });
    expect(byPath.results.map((item) => item.chunk.filePath)).toEqual(["arm/fk.md"]);
    const byUrl = retriever.searchLexical("kinematics", {
      filters: { sourceUrlPrefix: "https://b.example/docs/arm/ik" },
    });
    expect(new Set(byUrl.results.map((item) => item.chunk.filePath))).toEqual(
      new Set(["arm/ik.md"]),
    );
    expect(
      retriever.searchLexical("kinematics", { filters: { sourceUrlPrefix: "/docs/ros" } }).results,
    ).toEqual([]);
  });

  it("filters by section heading, case-insensitively, at any level of the heading path", () => {
    const section = retriever.searchLexical("inverse kinematics", {
      filters: { section: "joint limits" },
    });
    expect(section.results.map((item) => item.chunk.url)).toEqual([
      "https://b.example/docs/arm/ik#limits",
    ]);
    const chapter = retriever.searchLexical("solver", {
      filters: { section: "Inverse kinematics" },
    });
    expect(chapter.results.every((item) => item.chunk.filePath === "arm/ik.md")).toBe(true);
    expect(chapter.results.length).toBeGreaterThan(0);
  });

  it("honours top_k between 1 and 20", () => {
    expect(retriever.searchLexical("kinematics", { topK: 1 }).results).toHaveLength(1);
    expect(retriever.searchLexical("kinematics", { topK: 0 }).results).toHaveLength(1);
    expect(
      retriever.searchLexical("kinematics joint", { topK: 50 }).results.length,
    ).toBeLessThanOrEqual(20);
  });

  it("returns nothing for a query of only stopwords", () => {
    const result = retriever.searchLexical("what is it and how?");
    expect(result.results).toEqual([]);
    expect(result.decision).toBe("no_results");
  });

  it("diversify keeps rank order among the chosen results", () => {
    const ranked = corpus.map((item, position) => ({
      chunk: item,
      score: 10 - position,
      similarityScore: 0.9,
      coverage: 1,
    }));
    const chosen = diversify(ranked, 4, 1);
    expect(chosen.map((item) => item.chunk.filePath)).toEqual([
      "arm/ik.md",
      "arm/fk.md",
      "ros/topics.md",
      "ros/nodes.md",
    ]);
  });
});

describe("retriever on a large book", () => {
  const filler = Array.from({ length: 2_500 }, (_, position) =>
    chunk(
      `bulk/${position}.md`,
      `/docs/bulk/${position}`,
      [`Page ${position}`],
      `The robot moves its arm number ${position} along a path.`,
    ),
  );
  const gearbox = chunk(
    "drive/gearbox.md",
    "/docs/drive/gearbox",
    ["Gearbox"],
    "A planetary gearbox lets the robot trade speed for torque.",
  );
  const large = new Retriever(LexicalIndex.build([...filler, gearbox]), {
    topK: 5,
    maxChunksPerPage: 2,
  });

  it("ranks by the rare words while common words still count toward coverage", () => {
    const result = large.searchLexical("robot planetary gearbox");
    expect(result.results[0]?.chunk.filePath).toBe("drive/gearbox.md");
    // "robot" is in every chunk, so it is left out of ranking but the passage still covers it.
    expect(result.results[0]?.coverage).toBe(1);
    expect(result.decision).toBe("answer");
  });

  it("still ranks when the question has only common words", () => {
    const result = large.searchLexical("robot arm path");
    expect(result.results).toHaveLength(5);
  });
});

describe("retrieval for readers' wording", () => {
  it("searches a typo of a book word as that word, and a stray word cannot sink the question", () => {
    const result = retriever.searchLexical("How does the jacobain relate joint velocities?");
    expect(result.corrections).toEqual([{ from: "jacobain", to: "jacobian" }]);
    expect(result.results[0]?.chunk.url).toBe("https://b.example/docs/arm/ik#jacobian");
    expect(result.decision).toBe("answer");
    // A word the book never uses weighs no more than the question's rarest known word.
    const slang = retriever.searchLexical("chore: damped least squares singularities");
    expect(slang.decision).toBe("answer");
    expect(slang.signals.unknownShare).toBeLessThan(0.5);
  });

  it("does not take a different word for a typo when the first letter differs", () => {
    expect(index.closestTerm("notat")).toBeUndefined();
    expect(index.closestTerm("jacobain")).toBe("jacobian");
  });

  it("never counts words in another script as unknown", () => {
    const result = retriever.searchLexical("逆運動学 inverse kinematics solver joint limits");
    expect(result.signals.unknownShare).toBe(0);
    expect(result.decision).toBe("answer");
  });

  it("adds an earlier turn's words at a lower weight", () => {
    const alone = retriever.searchLexical("what happens near singularities?");
    const followUp = retriever.searchLexical("and what does it clamp?", {
      context: "How do joint limits work in inverse kinematics?",
    });
    expect(alone.results[0]?.chunk.url).toBe("https://b.example/docs/arm/ik#jacobian");
    expect(followUp.context).toBe("How do joint limits work in inverse kinematics?");
    expect(followUp.results[0]?.chunk.url).toBe("https://b.example/docs/arm/ik#limits");
  });

  it("lists sources by similarity, best first, one section at most once", () => {
    const result = new Retriever(index, { topK: 6, maxChunksPerPage: 1 }).searchLexical(
      "inverse kinematics joint solver angles",
    );
    const scores = result.results.map((entry) => entry.similarityScore);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));
    const urls = result.results.map((entry) => entry.chunk.url);
    expect(new Set(urls).size).toBe(urls.length);
    // One chunk per page first: with room for two, both matching pages are shown.
    const two = new Retriever(index, { topK: 2, maxChunksPerPage: 1 }).searchLexical(
      "inverse kinematics joint solver angles",
    );
    expect(two.results.map((entry) => entry.chunk.filePath).sort()).toEqual([
      "arm/fk.md",
      "arm/ik.md",
    ]);
  });

  it("lets a reranker reorder the candidates, keeping the shown scores best first", async () => {
    const reranker = {
      modelId: "prefers-limits",
      async rerank(_query: string, passages: string[]) {
        return passages.map((passage) => (passage.includes("Joint limits") ? 10 : 0));
      },
    };
    const reranked = new Retriever(index, {
      topK: 3,
      maxChunksPerPage: 2,
      rerank: { reranker, candidates: 20 },
    });
    const result = await reranked.search("inverse kinematics solver singularities");
    expect(result.results[0]?.chunk.url).toBe("https://b.example/docs/arm/ik#limits");
    const scores = result.results.map((entry) => entry.similarityScore);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));
  });
});

describe("identifiers the book never mentions", () => {
  it("count as unknown, though their parts are words of the book", () => {
    const known = retriever.searchLexical("How does rclpy.spin process callbacks?");
    expect(known.signals.unknownShare).toBe(0);
    const foreign = retriever.searchLexical("How does rclpy.spinForever process callbacks?");
    expect(foreign.signals.unknownShare).toBeGreaterThan(0);
    expect(foreign.signals.support).toBeLessThan(known.signals.support);
  });
});

describe("a question that names an API with a page of its own", () => {
  const tutorials = ["one", "two", "three", "four"].map((name) =>
    chunk(
      `tutorials/${name}.md`,
      `https://b.example/docs/tutorials/${name}`,
      [`Tutorial ${name}`, "Adding the devtools extension"],
      "To plug in the browser devtools extension, pass the devtools extension enhancer to createStore. The devtools extension shows every action.",
    ),
  );
  const reference = chunk(
    "api/createStore.md",
    "https://b.example/docs/api/createStore",
    ["createStore"],
    "createStore(reducer, preloadedState, enhancer) returns the object that holds the complete state tree of your app. The reducer is a reducing function that returns the next state tree, given the current state tree and an action to handle. The preloaded state is the initial state; if you produced the reducer with combineReducers, this must be a plain object with the same shape as the keys passed to it. Only one enhancer is accepted; compose several first.",
  );
  const others = ["Selectors", "Thunks", "Testing", "Immutability", "Normalizing", "Typing"].map(
    (topic) =>
      chunk(
        `usage/${topic}.md`,
        `https://b.example/docs/usage/${topic}`,
        [topic],
        `${topic} keep the reducer logic of your app readable; the pages on ${topic} show how.`,
      ),
  );
  const book = new Retriever(LexicalIndex.build([...tutorials, reference, ...others]), {
    topK: 3,
    maxChunksPerPage: 1,
  });
  const pagesOf = (query: string) =>
    book.searchLexical(query).results.map((result) => result.chunk.filePath);

  it("sees that page among its sources when the ranking leaves it out", () => {
    expect(
      pagesOf("createStore has an enhancer: how do I plug in the devtools extension?"),
    ).toEqual(expect.arrayContaining(["api/createStore.md"]));
    expect(
      pagesOf("createStore has an enhancer: how do I plug in the devtools extension?"),
    ).toHaveLength(3);
  });

  it("only when the question names it as one identifier", () => {
    expect(
      pagesOf("create store has an enhancer: how do I plug in the devtools extension?"),
    ).not.toContain("api/createStore.md");
  });
});

describe("an acronym the book never uses", () => {
  const strict = new Retriever(index, {
    topK: 5,
    maxChunksPerPage: 2,
    thresholds: { ...DEFAULT_THRESHOLDS, refuseUnknownAcronyms: true },
  });

  it("refuses the question, however well its other words match", () => {
    const question =
      "Does SLAM keep the inverse kinematics solver stable near singularities with damped least squares?";
    const lenient = retriever.withThresholds({
      ...DEFAULT_THRESHOLDS,
      refuseUnknownAcronyms: false,
    });
    expect(lenient.searchLexical(question).decision).toBe("answer");
    const refused = strict.searchLexical(question);
    expect(refused.signals.unknownAcronyms).toBe(1);
    expect(refused.decision).toBe("no_results");
  });

  it("does not refuse acronyms the book writes, nor capitals in a shouted question", () => {
    expect(strict.searchLexical("What does a reliable QoS profile do?").decision).toBe("answer");
    const shouted = strict.searchLexical("HOW DOES INVERSE KINEMATICS REACH THE END EFFECTOR?");
    expect(shouted.signals.unknownAcronyms).toBe(0);
  });

  it("tells acronyms from other words", () => {
    for (const word of ["SLAM", "PX4", "ESP32", "SROS2", "APIs", "TCP"])
      expect(isAcronym(word)).toBe(true);
    for (const word of ["I", "A", "4K", "3D", "Slam", "slam", "PureComponent", "X"])
      expect(isAcronym(word)).toBe(false);
  });
});

describe("the chunks of a page", () => {
  const part = (filePath: string, chunkIndex: number, id: string): ChunkRecord => ({
    ...chunk(filePath, `https://b.example/docs/${filePath}`, ["Page"], `Part ${chunkIndex}.`),
    id,
    chunkIndex,
  });

  it("are in page order and follow chunks added and removed after a first look", () => {
    const index = LexicalIndex.build([part("a.md", 2, "a2"), part("b.md", 0, "b0")]);
    index.add([part("a.md", 0, "a0")]);
    const ids = (filePath: string) => index.chunksOfPage(filePath).map((chunk) => chunk.id);
    expect(ids("a.md")).toEqual(["a0", "a2"]);
    index.add([part("a.md", 1, "a1")]);
    expect(ids("a.md")).toEqual(["a0", "a1", "a2"]);
    index.remove(["a0", "b0"]);
    expect(ids("a.md")).toEqual(["a1", "a2"]);
    expect(ids("b.md")).toEqual([]);
    // A caller sorting or trimming its copy leaves the index's own order alone.
    index.chunksOfPage("a.md").reverse();
    expect(ids("a.md")).toEqual(["a1", "a2"]);
  });
});
