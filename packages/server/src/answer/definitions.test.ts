import { describe, expect, it } from "vitest";
import type { RetrievedChunk } from "../search/retriever.ts";
import { chunkRecord, retrievedChunk } from "../search/test-builders.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { DEFINES, definitionStrength } from "./definitions.ts";
import { extractiveAnswer } from "./extractive.ts";
import { weighQuestion } from "./question-weights.ts";
import { parseText } from "./units.ts";

/** Chunk `index` of page `page`, under `headingPath` (the page title first). */
function pageChunk(page: string, index: number, text: string, headingPath: string[]): ChunkRecord {
  const title = headingPath[0] ?? page;
  return {
    ...chunkRecord(`${page}#${index}`, text, title),
    filePath: `${page}.md`,
    chunkIndex: index,
    totalChunks: 4,
    section: headingPath.at(-1) ?? title,
    headingPath,
    contentHash: `${page}:${index}:${text.length}`,
  };
}

const retrieved = (chunk: ChunkRecord, similarityScore = 0.8): RetrievedChunk => ({
  chunk,
  score: 10 * similarityScore,
  similarityScore,
  coverage: 0.5,
});

const pagesOf = (chunks: ChunkRecord[]) => (filePath: string) =>
  chunks.filter((chunk) => chunk.filePath === filePath);

describe("extractiveAnswer: when no sentence defines X", () => {
  const launchPage = [
    pageChunk(
      "launch",
      0,
      "A real robot runs dozens of nodes. Starting each one in its own terminal does not scale. The launch system describes a whole system in one file that you start with a single command.",
      ["Launch Files"],
    ),
    pageChunk(
      "launch",
      1,
      "Launch files take the robot description and pass it to robot_state_publisher, which publishes the frames.",
      ["Launch Files", "Robot description"],
    ),
  ];

  it("keeps a sentence that defines X over the page's opening", () => {
    const glossary = retrievedChunk(
      "glossary",
      "Launch file — A Python, XML or YAML file that starts and configures a set of nodes.",
      "Glossary",
      0.9,
    );
    const answer = extractiveAnswer(
      "What is a launch file?",
      [glossary, retrieved(launchPage[1] as ChunkRecord, 0.6)],
      { pageChunks: pagesOf(launchPage) },
    );
    expect(answer.text).toBe(
      "Launch file — A Python, XML or YAML file that starts and configures a set of nodes. [1]",
    );
  });

  it("quotes the opening of a result page's section headed by X, and only that section", () => {
    const framesPage = [
      pageChunk(
        "frames",
        0,
        "A lidar reports an obstacle ahead of it. Every measurement is expressed in a coordinate frame.",
        ["Coordinate Frames"],
      ),
      pageChunk(
        "frames",
        1,
        "Each frame has at most one parent in the tree of frames.\n\n## Transforms in a nutshell\n\nThe relationship between two frames is a rigid transform: a rotation followed by a translation. Chaining transforms multiplies their matrices.",
        ["Coordinate Frames", "The frame tree"],
      ),
      pageChunk(
        "frames",
        2,
        "To use transforms, create a Buffer that stores them and a listener that fills it. Then ask the buffer for the transform between two frames.",
        ["Coordinate Frames", "Looking up a transform"],
      ),
    ];
    const answer = extractiveAnswer(
      "What is a transform?",
      [retrieved(framesPage[2] as ChunkRecord)],
      {
        pageChunks: pagesOf(framesPage),
      },
    );
    expect(answer.text).toBe(
      "The relationship between two frames is a rigid transform: a rotation followed by a translation. Chaining transforms multiplies their matrices. [2]",
    );
    expect(answer.extraSources.map((source) => source.chunk.id)).toEqual(["frames#1"]);
  });

  it("does not take a heading naming part of X, or another thing sharing a word, for X", () => {
    const page = [
      pageChunk("migrating", 0, "Redux 5 changes a few APIs and removes others.", ["Migrating"]),
      pageChunk(
        "migrating",
        1,
        "In Redux 4.2 we marked the original createStore method as deprecated. It keeps working.",
        ["Migrating", "createStore deprecation"],
      ),
      pageChunk(
        "migrating",
        2,
        "The reducers field of createSlice now accepts a callback that declares thunks inside the slice.",
        ["Migrating", "createSlice.reducers callback syntax"],
      ),
    ];
    const usage = pageChunk(
      "usage",
      0,
      "createSlice takes an object with a name, an initial state and reducers, and generates action creators for them.",
      ["Using createSlice"],
    );
    const answer = extractiveAnswer(
      "What is createSlice?",
      [retrieved(usage, 0.9), retrieved(page[0] as ChunkRecord, 0.5)],
      { pageChunks: pagesOf([...page, usage]) },
    );
    expect(answer.text).toBe(
      "createSlice takes an object with a name, an initial state and reducers, and generates action creators for them. [1]",
    );
  });
});

describe("extractiveAnswer: a heading about X", () => {
  it("names all of X: 'Lifecycle transitions' is not about a lifecycle node", () => {
    const page = [
      pageChunk("managed", 0, "Some programs need a supervisor to bring them up in order.", [
        "Supervised Startup",
      ]),
      pageChunk(
        "managed",
        1,
        "Transitions move a node between states such as inactive and active.",
        ["Supervised Startup", "Lifecycle transitions"],
      ),
    ];
    const usage = pageChunk(
      "bringup",
      0,
      "A lifecycle node starts unconfigured and waits for a supervisor to configure it.",
      ["Bringup"],
    );
    const answer = extractiveAnswer(
      "What is a lifecycle node?",
      [retrieved(usage, 0.9), retrieved(page[0] as ChunkRecord, 0.5)],
      { pageChunks: pagesOf([...page, usage]) },
    );
    expect(answer.text).toBe(
      "A lifecycle node starts unconfigured and waits for a supervisor to configure it. [1]",
    );
  });
});

describe("extractiveAnswer: a heading qualifying another noun with X", () => {
  it("is not about X: 'Transform type updates' for a transform", () => {
    const page = [
      pageChunk("changes", 0, "Version 2 changes several message types.", ["Changes"]),
      pageChunk("changes", 1, "The stamped message now carries the child frame's name as well.", [
        "Changes",
        "Transform type updates",
      ]),
    ];
    const usage = pageChunk(
      "frames",
      0,
      "A transform relates a child frame to its parent frame in the tree.",
      ["Frames"],
    );
    const answer = extractiveAnswer(
      "What is a transform?",
      [retrieved(usage, 0.9), retrieved(page[0] as ChunkRecord, 0.5)],
      { pageChunks: pagesOf([...page, usage]) },
    );
    expect(answer.text).toBe(
      "A transform relates a child frame to its parent frame in the tree. [1]",
    );
  });
});

/** How strongly the sentence (its first unit) defines the question's X. */
function strength(question: string, sentence: string): number {
  const parsed = parseText(sentence);
  const unit = parsed.units[0];
  return unit ? definitionStrength(weighQuestion(question, [parsed], undefined, []), unit) : -1;
}

describe("extractiveAnswer: what is not a definition", () => {
  it("does not read the noun before the comma closing an opening phrase as explained", () => {
    const results = [
      retrievedChunk(
        "nodes",
        "With the default single-threaded executor, a callback that sleeps blocks every other callback in the node. Keep callbacks short.",
        "Executors",
        0.9,
      ),
      retrievedChunk(
        "glossary",
        "Executor — The part of a ROS 2 client library that waits for events and runs callbacks.",
        "Glossary",
        0.4,
      ),
    ];
    expect(extractiveAnswer("What is an executor?", results).text).toBe(
      "Executor — The part of a ROS 2 client library that waits for events and runs callbacks. [2]",
    );
  });

  it("reads 'X is defined in …' as saying where X is written, 'X is defined as …' as a definition", () => {
    const glossary = retrievedChunk(
      "glossary",
      "Service — A request/response call between a client and a server.",
      "Glossary",
      0.4,
    );
    const where = retrievedChunk(
      "interfaces",
      "A service is defined in a .srv file with a request part and a response part.",
      "Interfaces",
      0.9,
    );
    expect(extractiveAnswer("What is a service?", [where, glossary]).text).toBe(
      "Service — A request/response call between a client and a server. [2]",
    );
    const definedAs = retrievedChunk(
      "interfaces",
      "A service is defined as a request/response pair of messages between two nodes.",
      "Interfaces",
      0.9,
    );
    expect(extractiveAnswer("What is a service?", [definedAs, glossary]).text).toBe(
      "A service is defined as a request/response pair of messages between two nodes. [1]",
    );
  });

  it("reads one word and a reason after 'X are' as how X behaves ('are powerful because …')", () => {
    expect(
      strength(
        "What is an enhancer?",
        "Enhancers are powerful because they can override any of the store's methods.",
      ),
    ).toBe(0);
    expect(strength("What is a lookup?", "The lookup is slow when the buffer is empty.")).toBe(0);
    // Nor does an irregular participle: "are written using" says how X is written.
    expect(strength("What is a saga?", "Sagas are written using generator functions.")).toBe(0);
    expect(
      strength("What is an enhancer?", "Enhancers are functions that wrap the store creator."),
    ).toBeGreaterThanOrEqual(DEFINES);
  });

  it("does not read an item of a list as explained by the next one ('RViz, the demos and …')", () => {
    expect(
      strength(
        "What is RViz?",
        "Install the desktop variant, which includes RViz, the demos and the tutorials.",
      ),
    ).toBe(0);
    expect(
      strength("What is RViz?", "The desktop variant has RViz, the demos, or the tutorials."),
    ).toBe(0);
    expect(
      strength("What is Gazebo?", "The book uses tools such as Gazebo, the simulator of choice."),
    ).toBe(0);
    // An apposition whose own words hold an "and" further on still explains its noun.
    expect(
      strength(
        "What is a service?",
        "For this ROS 2 offers services, a remote procedure call pattern with one server and any number of clients.",
      ),
    ).toBeGreaterThan(0);
  });
});

describe("extractiveAnswer: a definition ending on a pronoun", () => {
  it("opens at its paragraph's start when it ends on 'it'", () => {
    const results = [
      retrievedChunk(
        "control",
        "A robot runs a control loop that reads sensors and writes commands to hardware. Writing that loop by hand for every robot repeats the same code. ros2_control is a framework that standardises it.\n\nControllers then run inside the controller manager.",
        "The ros2_control Framework",
        0.9,
      ),
    ];
    expect(extractiveAnswer("What is ros2_control?", results).text).toBe(
      "A robot runs a control loop that reads sensors and writes commands to hardware. Writing that loop by hand for every robot repeats the same code. ros2_control is a framework that standardises it. [1]",
    );
  });

  it("stands alone when the pronoun follows a preposition ('… around all of them.')", () => {
    const results = [
      retrievedChunk(
        "balance",
        "The ground pushes up where the robot touches it. The support polygon is the convex hull of the contact points, the shape a rubber band makes around all of them.",
        "Balance",
        0.9,
      ),
    ];
    expect(extractiveAnswer("What is a support polygon?", results).text).toBe(
      "The support polygon is the convex hull of the contact points, the shape a rubber band makes around all of them. [1]",
    );
  });
});

describe("extractiveAnswer: sentences that lean on the one before", () => {
  it("never opens on a gerund acting on 'this' ('Handling this correctly …')", () => {
    const results = [
      retrievedChunk(
        "async",
        "Dispatching inside a try block swallows render errors. Handling this correctly would require restructuring the async logic to separate those. createAsyncThunk already handles errors correctly.",
        "Thunks",
        0.9,
      ),
    ];
    const answer = extractiveAnswer("How do I handle async logic?", results);
    expect(answer.text).toContain("Handling this correctly");
    expect(answer.text).toMatch(/^Dispatching inside a try block/);
  });

  it("never opens on a sentence that adds to the one before ('In addition, …')", () => {
    const results = [
      retrievedChunk(
        "performance",
        "Immutable updates copy only what changes, which is fast.\n\nIn addition, deep cloning state creates new references for every field. Since connect compares references, components then render again for nothing.",
        "Performance",
        0.9,
      ),
    ];
    const answer = extractiveAnswer(
      "Why does deep cloning state make components render again?",
      results,
    );
    expect(answer.text).toMatch(/^Immutable updates copy only what changes/);
    expect(answer.text).toContain("In addition, deep cloning state creates new references");
  });

  it("never opens on a phrase 'of that' leaning on the one before ('As part of that, …')", () => {
    const text =
      "The tutorial built a store by hand with createStore.\n\nAs part of that, we talked about how to create and configure a Redux store. Most of these steps are done for you.";
    const parsed = parseText(text);
    expect(parsed.units.map((unit) => unit.pointsBack)).toEqual([false, true, true]);
    // "All of this page" names the page, not what came before.
    expect(parseText("All of this page applies to Redux 5.").units[0]?.pointsBack).toBe(false);
    const answer = extractiveAnswer("How do I create and configure a store?", [
      retrievedChunk("tutorial", text, "Tutorial", 0.9),
    ]);
    expect(answer.text).toMatch(/^The tutorial built a store by hand with createStore\./);
  });
});

describe("extractiveAnswer: a follow-up searched with the earlier question", () => {
  const results = [
    retrievedChunk(
      "store",
      "You can remove a listener later with the function that subscribe returns.",
      "Store",
      0.9,
    ),
    retrievedChunk(
      "splitting",
      "A reducer loaded lazily can be removed later by replacing the root reducer.",
      "Code Splitting",
      0.8,
    ),
  ];

  it("quotes the passage about what the reader is still asking about", () => {
    const context = "How do I load a reducer lazily when its route opens?";
    expect(extractiveAnswer("and how do I remove it later?", results, { context }).text).toBe(
      "A reducer loaded lazily can be removed later by replacing the root reducer. [2]",
    );
    expect(extractiveAnswer("and how do I remove it later?", results).text).toMatch(
      /^You can remove a listener later/,
    );
  });

  it("weighs the earlier words at most half as much as the question's own", () => {
    const parsed = results.map((result) => parseText(result.chunk.text));
    const context = "How do I load a reducer lazily when its route opens?";
    const query = weighQuestion("and how do I remove it later?", parsed, context);
    const own = ["remov", "later"].reduce(
      (total, term) => total + (query.weights.get(term) ?? 0),
      0,
    );
    expect(own).toBeGreaterThan(0);
    expect(query.total - own).toBeGreaterThan(0);
    expect(query.total - own).toBeLessThanOrEqual(0.5 * own + 1e-9);
    // A definition question names its own subject: the earlier words stay out.
    expect(weighQuestion("What is a reducer?", parsed, context).weights.has("lazili")).toBe(false);
  });
});

describe("extractiveAnswer: a short lead-in before a table", () => {
  const text = [
    "## Building with colcon",
    "",
    "colcon builds every package in src/ in dependency order:",
    "",
    "```bash",
    "colcon build --symlink-install",
    "```",
    "",
    "Useful flags:",
    "",
    "Flag | Effect",
    "--symlink-install | Links Python files, so edits take effect without rebuilding",
    "--packages-select my_pkg | Builds only the listed packages",
    "--parallel-workers 2 | Limits parallel jobs on small boards",
    "",
    "Source the workspace in a new terminal after building the workspace.",
  ].join("\n");

  it("is no heading: it introduces its table, as a longer sentence would", () => {
    const units = parseText(text).units;
    const lead = units.find((unit) => unit.text === "Useful flags:");
    expect(lead?.attachment).toContain("--packages-select my_pkg");
    expect(parseText(text).headings).not.toContain("Useful flags:");
  });

  it("goes on from the code before it, so one passage holds both", () => {
    const answer = extractiveAnswer(
      "How do I build my workspace with colcon and rebuild only one package?",
      [retrievedChunk("workspace", text, "Workspaces", 0.9)],
    );
    expect(answer.text).toMatch(/^colcon builds every package in src\/ in dependency order:/);
    expect(answer.text).toContain("Useful flags:");
    expect(answer.text).toContain("Builds only the listed packages");
  });
});

describe("extractiveAnswer: how-to passages", () => {
  it("are not pulled towards an instruction that is about something else", () => {
    const results = [
      retrievedChunk(
        "parameters",
        "Keep the returned handle in C++: when it is destroyed the callback is unregistered. Since Iron there are also pre-set callbacks for parameters.\n\nA parameter is an input from outside your node. A typo such as 80 instead of 0.80 should be rejected by a range check, not discovered when the robot hits a wall.",
        "Parameters",
        0.9,
      ),
    ];
    const answer = extractiveAnswer(
      "How do I reject a parameter value that is outside a safe range?",
      results,
    );
    expect(answer.text).toMatch(/^A parameter is an input from outside your node/);
  });
});

describe("extractiveAnswer: X's own word, and the sections headed by it", () => {
  it("still reads an inflected form of X as X ('A dispatching function is …')", () => {
    const glossary = pageChunk(
      "glossary",
      3,
      "A dispatching function is a function that accepts an action and may dispatch actions to the store.",
      ["Glossary", "Dispatching Function"],
    );
    const other = pageChunk(
      "store",
      1,
      "Call dispatch with an action object to update the state of the store.",
      ["Store", "Dispatching actions"],
    );
    const answer = extractiveAnswer(
      "What is dispatch?",
      [retrieved(other, 0.9), retrieved(glossary, 0.7)],
      { pageChunks: pagesOf([glossary, other]) },
    );
    expect(answer.text).toMatch(/^A dispatching function is a function/);
  });
});

describe("extractiveAnswer: 'what is X, and how …' asks two things", () => {
  it("takes X alone as the subject, and weighs the second question's words as much as X", () => {
    const parsed = parseText(
      "A thunk is a function that can dispatch actions and read the state. Thunks are commonly used for data fetching.",
    );
    const query = weighQuestion("What is a thunk, and how do I write one that fetches data?", [
      parsed,
    ]);
    expect(query.subjectText).toBe("thunk");
    expect([...(query.subject?.keys() ?? [])]).toEqual(["thunk"]);
    // Not a tenth of X's weight, as a qualifier of X would be ("a thunk used for …").
    expect(query.weights.get("fetch")).toBeGreaterThan(0);
    expect(query.weights.get("fetch")).toBe(query.weights.get("data"));
    const qualified = weighQuestion("What is a thunk used for fetching data?", [parsed]);
    expect(qualified.weights.get("fetch")).toBeLessThan(query.weights.get("fetch") ?? 0);
  });

  it("quotes the sentence defining X rather than a passage on the second question alone", () => {
    const howTo = pageChunk(
      "fetching",
      2,
      "We can do the same thing for fetchTodos.fulfilled, and handle the data we received from the API. As one more example, this thunk saves the new todo to the server.",
      ["Async Logic", "Fetching Todos"],
    );
    const overview = pageChunk(
      "thunks",
      0,
      'For Redux specifically, "thunks" are a pattern of writing functions with logic inside that can interact with the store. Thunks are a standard approach for writing async logic, and are commonly used for data fetching.',
      ["Writing Logic with Thunks"],
    );
    const answer = extractiveAnswer(
      "What is a thunk and how do I write one that fetches data?",
      [retrieved(howTo, 0.9), retrieved(overview, 0.7)],
      { pageChunks: pagesOf([howTo, overview]) },
    );
    expect(answer.text).toMatch(/^For Redux specifically, "thunks" are a pattern/);
  });
});

describe("extractiveAnswer: X written as a code identifier", () => {
  it("prefers, of two equal passages of one page, the one the page says first", () => {
    const opening = pageChunk(
      "hooks",
      1,
      "useSelector accepts a single function, which we call a selector function.",
      ["Hooks", "Reading state with useSelector"],
    );
    const later = pageChunk(
      "hooks",
      2,
      "useSelector compares its results by reference, so a new array re-renders the component.",
      ["Hooks", "Reading state with useSelector"],
    );
    // The section's first chunk is looked up for the result that continues it: the same rank.
    const answer = extractiveAnswer("What is useSelector?", [retrieved(later)], {
      pageChunks: pagesOf([opening, later]),
    });
    expect(answer.text).toMatch(/^useSelector accepts a single function/);
  });
});

describe("extractiveAnswer: the wordings of a question about what X is", () => {
  const relays = pageChunk(
    "relays",
    0,
    "A relay is a switch that one circuit opens and closes for another. Relays come in many sizes.",
    ["Relays"],
  );
  const underneath = pageChunk(
    "boards",
    3,
    "Each board is built from two relays and a fuse, all hidden under the board's cover.",
    ["Boards", "How boards work underneath"],
  );
  const rows = [
    "What is a relay?",
    "How does a relay work?",
    "How do relays work?",
    "what's a relay",
  ];
  for (const question of rows)
    it(`quotes the sentence defining X: ${question}`, () => {
      const answer = extractiveAnswer(
        question,
        [retrieved(underneath, 0.9), retrieved(relays, 0.7)],
        {
          pageChunks: pagesOf([relays, underneath]),
        },
      );
      expect(answer.text).toMatch(/^A relay is a switch that one circuit opens and closes/);
    });
});
