// Over 300 lines on purpose: one case per passage rule.
import { describe, expect, it } from "vitest";
import type { RetrievedChunk } from "../search/retriever.ts";
import { retrievedChunk } from "../search/test-builders.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { comparedItems } from "./comparisons.ts";
import { extractiveAnswer, quotePassage } from "./extractive.ts";
import { asksForExample, weighQuestion } from "./question-weights.ts";
import { parsedChunk, parseText, termRows } from "./units.ts";

const result = retrievedChunk;

const sentencesOf = (text: string) => text.split(/(?<=[.!?:])\s+/).filter(Boolean);

describe("extractiveAnswer", () => {
  it("answers a definition question with the defining sentence, opening the passage there", () => {
    const results = [
      result(
        "control",
        "The ros2_control framework reads the URDF to find the robot's joints. Each joint in the URDF lists its command and state interfaces.",
        "ros2_control",
        0.9,
      ),
      result(
        "urdf",
        "Software that plans or simulates a robot needs to know what it looks like. The Unified Robot Description Format (URDF) is the XML dialect ROS uses to write this down. One URDF file serves RViz, Gazebo and MoveIt.",
        "Describing a robot",
        0.7,
      ),
      result(
        "xacro",
        "Writing the same wheel four times in a URDF is tedious. Xacro macros generate the URDF from a shorter template.",
        "Xacro",
        0.8,
      ),
    ];
    const answer = extractiveAnswer("What is a URDF?", results);
    expect(answer.text.startsWith("The Unified Robot Description Format (URDF) is")).toBe(true);
    expect(answer.text).toContain("One URDF file serves RViz");
    expect(answer.text).not.toContain("Software that plans");
    expect(answer.text).not.toContain("ros2_control");
    expect(answer.text.endsWith("[2]")).toBe(true);
    expect(answer.cited).toEqual([2]);
  });

  it("recognises 'X (…) is', 'X — …', 'stands for' and 'is called X' as definitions", () => {
    const glossary = result(
      "glossary",
      "Odometry — An estimate of motion obtained by integrating wheel rotations.\n\nPose — Position and orientation together.",
      "Glossary",
      0.5,
    );
    const usage = result(
      "usage",
      "Odometry drifts over time, so the odom frame is corrected by localisation. Wheel slip makes odometry worse on carpets.",
      "Odometry in practice",
      0.9,
    );
    expect(extractiveAnswer("What is odometry?", [usage, glossary]).text).toBe(
      "Odometry — An estimate of motion obtained by integrating wheel rotations. [2]",
    );
    const called = result(
      "overlay",
      "You can build one workspace on top of another. A workspace you build on top of another is called an overlay. The overlay wins when a package exists in both.",
      "Workspaces",
    );
    const other = result(
      "install",
      "Packages from an overlay are found before the system ones when the overlay is sourced last in the shell.",
      "Sourcing",
      0.9,
    );
    expect(extractiveAnswer("What is an overlay?", [other, called]).text).toMatch(
      /^A workspace you build on top of another is called an overlay\./,
    );
    const acronym = result(
      "zmp",
      "Walking robots plan with balance criteria in mind. The zero moment point (ZMP) is the point on the ground where the tipping moment vanishes.",
      "Balance",
      0.6,
    );
    const mentions = result(
      "gait",
      "A reference ZMP trajectory moves from one foot to the next while the robot walks forward.",
      "Gait",
      0.9,
    );
    expect(extractiveAnswer("What does ZMP stand for?", [mentions, acronym]).text).toMatch(
      /^The zero moment point \(ZMP\) is the point/,
    );
  });

  it("quotes consecutive sentences of one chunk rather than scattered ones", () => {
    const results = [
      result(
        "servo",
        "A hobby servo holds its angle with a feedback loop. The controller compares the target and the measured angle and drives the motor to close the gap. Servos are sold by torque.",
        "Servos",
      ),
      result(
        "motor",
        "A stepper motor moves in fixed steps without feedback. Servo motors in industry add an encoder for feedback.",
        "Motors",
        0.7,
      ),
    ];
    const answer = extractiveAnswer("How does a servo hold its angle with feedback?", results);
    expect(answer.text).toBe(
      "A hobby servo holds its angle with a feedback loop. The controller compares the target and the measured angle and drives the motor to close the gap. [1]",
    );
    expect(answer.cited).toEqual([1]);
  });

  it("brings the list a sentence ending in ':' introduces, at most eight items", () => {
    const items = Array.from(
      { length: 11 },
      (_, index) => `- Step ${index + 1} of the battery check`,
    );
    const text = `Check the battery pack before every flight:\n\n${items.join("\n")}\n\nA swollen pack must be discarded safely.`;
    const answer = extractiveAnswer("How do I check the battery pack before a flight?", [
      result("battery", text, "Battery care"),
    ]);
    expect(answer.text).toContain("Check the battery pack before every flight: [1]\n\n- Step 1 of");
    expect(answer.text).toContain("- Step 8 of the battery check\n- …");
    expect(answer.text).not.toContain("Step 9");
  });

  it("brings the code block a sentence ending in ':' introduces, trimmed with valid fences", () => {
    const code = Array.from({ length: 50 }, (_, index) => `colcon build --step ${index}`);
    const text = `Build the workspace with colcon from its root:\n\n\`\`\`bash\n${code.join("\n")}\n\`\`\`\n\nThe install folder appears next to src.`;
    const answer = extractiveAnswer("How do I build the workspace with colcon?", [
      result("build", text, "Building"),
    ]);
    expect(answer.text).toContain(
      "Build the workspace with colcon from its root: [1]\n\n```bash\n",
    );
    const fences = answer.text.match(/^```/gm) ?? [];
    expect(fences).toHaveLength(2);
    expect(answer.text).toContain("colcon build --step 39\n…\n```");
    expect(answer.text).not.toContain("--step 40");
  });

  it("brings a program of a few dozen lines whole, its last lines included", () => {
    const code = Array.from({ length: 37 }, (_, index) => `step_${index}()`);
    const text = `Run every step of the build in order:\n\n\`\`\`python\n${code.join("\n")}\n\`\`\``;
    const answer = extractiveAnswer("How do I run every step of the build?", [
      result("build", text, "Building"),
    ]);
    expect(answer.text).toContain("step_36()\n```");
    expect(answer.text).not.toContain("…");
  });

  it("brings a table a sentence ending in ':' introduces as a valid Markdown table", () => {
    const text =
      "ROS 2 replaced the transport of ROS 1 entirely:\n\nTopic | ROS 1 | ROS 2\nDiscovery | master | peer to peer";
    const answer = extractiveAnswer("How did ROS 2 replace the transport of ROS 1?", [
      result("transport", text, "ROS 2"),
    ]);
    expect(answer.text).toBe(
      "ROS 2 replaced the transport of ROS 1 entirely: [1]\n\n| Topic | ROS 1 | ROS 2 |\n| --- | --- | --- |\n| Discovery | master | peer to peer |",
    );
  });

  it("never quotes a sentence ending in ':' without what it introduces", () => {
    const text =
      "The transport of ROS 2 is made of these parts:\n\n![Diagram of the ROS 2 transport layers](layers.png)\n\nThe ROS 2 transport is DDS, a publish/subscribe standard used in avionics.";
    const answer = extractiveAnswer("What is the ROS 2 transport made of?", [
      result("transport", text, "ROS 2"),
    ]);
    expect(answer.text).toBe(
      "The ROS 2 transport is DDS, a publish/subscribe standard used in avionics. [1]",
    );
  });

  it("extends a window opening with 'This' or 'It' back to the sentence it refers to", () => {
    const text =
      "A lifecycle node moves through explicit states before it does any work. This lets a supervisor bring the lidar driver up only when the map is ready. It also allows a clean shutdown order.";
    const answer = extractiveAnswer("How does a supervisor bring the lidar driver up in order?", [
      result("lifecycle", text, "Lifecycle nodes"),
    ]);
    expect(answer.text.startsWith("A lifecycle node moves through explicit states")).toBe(true);
    expect(answer.text).toContain("This lets a supervisor");
  });

  it("never quotes 'The example below' without its example", () => {
    const text =
      "The example below publishes a velocity command ten times a second.\n\nVelocity commands are sent on the cmd_vel topic as Twist messages.";
    const answer = extractiveAnswer("How do I publish a velocity command?", [
      result("publish", text, "Publishing"),
    ]);
    expect(answer.text).not.toContain("The example below");
    expect(answer.text).toContain("Velocity commands are sent on the cmd_vel topic");
  });

  it("drops fragments: labels, headings, raw table rows, images and admonition markers", () => {
    const text = [
      "## Nodes cannot see each other",
      "",
      "Symptom. ros2 node list on the laptop does not show the robot's nodes.",
      "",
      "![Two laptops and a robot on one network](network.png)",
      "",
      "Variable | Meaning",
      "ROS_DOMAIN_ID | nodes only see peers with the same domain id",
      "",
      "Note: Nodes only discover peers with the same ROS_DOMAIN_ID on the network.",
    ].join("\n");
    const answer = extractiveAnswer("Why can't my laptop see the nodes on the robot network?", [
      result("discovery", text, "Troubleshooting"),
    ]);
    expect(answer.text).not.toMatch(/Symptom|Note:|##|Nodes cannot see|\||!\[|Two laptops/);
    expect(answer.text).toContain("ros2 node list on the laptop does not show the robot's nodes.");
  });

  it("treats sub-heading lines inside a chunk as headings and keeps a passage under one heading", () => {
    const text = [
      "## Static transforms",
      "",
      "Static transforms never change, like a lidar bolted to the chassis. They are published once.",
      "",
      "Dynamic transforms",
      "",
      "Dynamic transforms change over time, like a turning wheel. They are published repeatedly with a timestamp.",
    ].join("\n");
    const answer = extractiveAnswer("How are dynamic transforms published?", [
      result("tf", text, "Coordinate frames"),
    ]);
    expect(answer.text).toBe(
      "Dynamic transforms change over time, like a turning wheel. They are published repeatedly with a timestamp. [1]",
    );
  });

  it("never repeats the same text and keeps [n] at the position of the quoted source", () => {
    const text =
      "A quaternion represents a 3D rotation with four numbers. Quaternions have no gimbal lock.";
    const results = [
      result("frames", "Frames are coordinate systems attached to things.", "Frames", 0.9),
      result("quaternion-a", text, "Rotations", 0.8),
      result("quaternion-b", text, "Rotations", 0.8),
    ];
    const answer = extractiveAnswer("What is a quaternion rotation?", results);
    expect(answer.text.split("A quaternion represents").length - 1).toBe(1);
    expect(answer.cited).toEqual([2]);
    expect(answer.text.endsWith("[2]")).toBe(true);
  });

  it("adds a short second passage from another source when asked to and the first covers little", () => {
    const results = [
      result(
        "bag",
        "Recording with rosbag2 writes every message of the chosen topics to disk. Bags are replayed at their original pace.",
        "Recording",
      ),
      result(
        "sim",
        "Gazebo sends a clock topic so that nodes follow simulated time. Set use_sim_time on every node when simulating.",
        "Simulation",
        0.6,
      ),
      result("formats", "The MCAP container is the default bag format in Jazzy.", "Formats", 0.4),
    ];
    const answer = extractiveAnswer(
      "How do I record rosbag2 bags in MCAP while Gazebo sends its clock?",
      results,
      { maxPassages: 2 },
    );
    const passages = answer.text.split("\n\n");
    expect(passages).toHaveLength(2);
    const recording = passages.find((passage) => passage.startsWith("Recording with rosbag2"));
    const clock = passages.find((passage) => passage.startsWith("Gazebo sends a clock topic"));
    expect(recording).toMatch(/\[1\]$/);
    expect(clock).toMatch(/\[2\]$/);
    expect(answer.cited.sort()).toEqual([1, 2]);
    // By default one passage: the words a second one adds are nearly always incidental.
    const byDefault = extractiveAnswer(
      "How do I record rosbag2 bags in MCAP while Gazebo sends its clock?",
      results,
    );
    expect(byDefault.text.split("\n\n")).toHaveLength(1);
    expect(byDefault.cited).toHaveLength(1);
  });

  it("numbers sources after an offset and answers nothing without passages", () => {
    const answer = extractiveAnswer(
      "How do I charge a cell?",
      [result("cell", "Charge a lithium cell with a balance charger at one C.", "Cells")],
      { citationOffset: 1 },
    );
    expect(answer).toEqual({
      text: "Charge a lithium cell with a balance charger at one C. [2]",
      cited: [2],
      extraSources: [],
      quotedSections: [],
    });
    expect(extractiveAnswer("How do I charge a cell?", [])).toEqual({
      text: "",
      cited: [],
      extraSources: [],
      quotedSections: [],
    });
  });

  it("quotes the passage naming an identifier the question names, not one with its parts apart", () => {
    const results = [
      result(
        "panel",
        "The panel shows every servo you spawn, and shows its angle next to it.",
        "Panel",
        0.8,
      ),
      result(
        "deprecation",
        "spawnServo is deprecated since version 2. Call createServo instead.",
        "spawnServo",
        0.7,
      ),
      result("pins", "spawnServo took a pin number in older releases.", "Pins", 0.6),
    ];
    const answer = extractiveAnswer(
      "My editor shows spawnServo struck through, what now?",
      results,
    );
    expect(answer.text.startsWith("spawnServo is deprecated since version 2.")).toBe(true);
    expect(answer.text).not.toContain("The panel shows");
    // Also when the question writes the identifier's words apart too.
    const apart = extractiveAnswer(
      "My editor shows spawnServo struck through, what do I use to spawn a servo now?",
      results,
    );
    expect(apart.text.startsWith("spawnServo is deprecated since version 2.")).toBe(true);
  });

  it("quotes the best-ranked source over a weak one matching more of the question's incidental words", () => {
    const results = [
      result(
        "undo",
        "To support undo and redo, the history reducer keeps a list of past states and a list of future states next to the present one.",
        "Implementing Undo History",
        0.9,
      ),
      result(
        "types",
        "When you build the app, your editor shows the type of the store's state as you hover over it, so you never need to write it by hand.",
        "Using TypeScript",
        0.3,
      ),
      result("store", "The store holds the state of the whole app.", "Store", 0.3),
    ];
    const answer = extractiveAnswer(
      "My editor app needs undo and redo. How would I build that on top of the store?",
      results,
    );
    expect(answer.text.startsWith("To support undo and redo, the history reducer")).toBe(true);
    expect(answer.cited).toEqual([1]);
  });

  it("points to the sources rather than answering empty when no source has prose", () => {
    const code = result("code", "```python\nservo.write(90)\nservo.detach()\n```", "Example");
    const links = result(
      "links",
      "- [Servo basics](https://example.org/a)\n- [PWM](https://example.org/b)",
      "Further reading",
    );
    const answer = extractiveAnswer("Anything about zebras?", [code, links]);
    expect(answer.text).not.toBe("");
    expect(answer.cited).toEqual([1, 2]);
    expect(answer.text).toContain("[1]");
  });
});

describe("quotePassage", () => {
  const selection =
    "Lithium cells power most small robots. Never discharge a cell below three volts. A deeply discharged cell can swell. Store packs half charged in a fireproof bag. Balance chargers keep the cells of a pack at the same voltage. Cold cells deliver less current.";

  it("quotes only the consecutive sentences that contain the topic words", () => {
    expect(quotePassage(selection, ["discharg", "cell"])?.text).toBe(
      "Never discharge a cell below three volts. A deeply discharged cell can swell.",
    );
  });

  it("quotes at most three sentences for 'explain this', never the whole text", () => {
    const quoted = quotePassage(selection, []);
    expect(quoted).not.toBeNull();
    expect(sentencesOf(quoted?.text ?? "").length).toBeLessThanOrEqual(3);
    expect(quoted?.text.length).toBeLessThan(selection.length);
  });

  it("returns null when no sentence has a topic word", () => {
    expect(quotePassage(selection, ["servo"])).toBeNull();
  });
});

describe("extractiveAnswer on merged sections", () => {
  it("quotes the sentences under a merged section's heading, never the heading line", () => {
    const text =
      "Gears transmit torque between shafts.\n\n## Choosing a gear ratio for torque\n\nA higher gear ratio gives more torque at a lower speed.";
    const answer = extractiveAnswer("gear ratio torque", [result("gears", text, "Gears")]);
    expect(answer.text).not.toContain("##");
    expect(answer.text).not.toContain("Choosing a gear ratio");
    expect(answer.text).toContain("A higher gear ratio gives more torque at a lower speed.");
  });
});

/** A chunk of a multi-chunk page, as retrieval returns it. */
function pageChunk(
  page: string,
  chunkIndex: number,
  text: string,
  title: string,
  headingPath: string[] = [title],
): ChunkRecord {
  return {
    id: `${page}#${chunkIndex}`,
    collection: "default",
    version: "",
    filePath: `${page}.md`,
    chunkIndex,
    totalChunks: 3,
    title,
    section: headingPath[headingPath.length - 1] ?? title,
    headingPath,
    url: `/docs/${page}`,
    tags: [],
    text,
    contentHash: `${page}:${chunkIndex}:${text.length}`,
    tokenCount: Math.ceil(text.length / 4),
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

describe("extractiveAnswer: what a sentence defines", () => {
  const define = (question: string, definition: string, distractor: string) =>
    extractiveAnswer(question, [
      result("other", distractor, "Other", 0.9),
      result("definition", definition, "Definition", 0.7),
    ]);

  it("reads 'X are named …' as defining X, and the verb 'is called when' as no definition", () => {
    expect(
      define(
        "What are parameters?",
        "Hard-coding a gain means recompiling. Parameters are named configuration values that belong to a node.",
        "Every parameter is owned by one node and nodes declare parameters at start-up.",
      ).text,
    ).toBe("Parameters are named configuration values that belong to a node. [2]");
    // "is called when …" says when a function runs, not what it is named.
    expect(
      define(
        "What is a callback?",
        "Your function is called when a message arrives on the topic.",
        "A callback is a function the executor runs when its event happens.",
      ).text,
    ).toBe("A callback is a function the executor runs when its event happens. [1]");
  });

  it("reads 'X is, quite simply, a …', 'The word X means …' and 'In Redux, X are …' as definitions", () => {
    expect(
      define(
        "What is an action creator?",
        "An action creator is, quite simply, a function that creates an action.",
        "Notice that the action creator colorChanged accepts two different arguments here.",
      ).text,
    ).toBe("An action creator is, quite simply, a function that creates an action. [2]");
    expect(
      define(
        "What is a thunk?",
        'The word "thunk" means "a piece of code that does some delayed work".',
        "Using a thunk requires the thunk middleware to be added to the store.",
      ).text,
    ).toContain('The word "thunk" means');
    expect(
      define(
        "What is a reducer?",
        "In Redux, reducers are functions that compute the next state from an action.",
        "Writing reducers by hand for every slice of state gets repetitive quickly.",
      ).text,
    ).toContain("In Redux, reducers are functions");
  });

  it("does not take 'In these frameworks, X is …' for a definition of X here", () => {
    const answer = extractiveAnswer("What is middleware?", [
      result(
        "express",
        "Express and Koa are server frameworks for Node. In these frameworks, middleware is code between request and response.",
        "Background",
        0.9,
      ),
      result(
        "redux",
        "Middleware is the suggested way to extend the store with custom behaviour. It wraps dispatch.",
        "Middleware",
        0.7,
      ),
    ]);
    expect(answer.text.startsWith("Middleware is the suggested way")).toBe(true);
  });

  it("counts 'A thunk function is a function …' as defining thunk despite its generic head noun", () => {
    const answer = extractiveAnswer("What is a thunk?", [
      result("setup", "The store is set up to run thunks, a way to write async logic.", "Setup"),
      result(
        "definition",
        "A thunk function is a function that receives dispatch and getState as arguments.",
        "API",
      ),
    ]);
    expect(answer.text.startsWith("A thunk function is a function")).toBe(true);
  });

  it("prefers the sentence naming an acronym and its words to one that only mentions the words", () => {
    const answer = extractiveAnswer("What does ZMP stand for in humanoid walking?", [
      result(
        "intro",
        "This page introduces the criterion humanoid walking controllers use, the zero moment point.",
        "ZMP and balance",
      ),
      result(
        "definition",
        "The zero moment point (ZMP) is the point on the ground where inertial forces produce no horizontal moment.",
        "The zero moment point",
      ),
      result("stairs", "Humanoid walking on stairs needs a slower gait.", "Stairs", 0.5),
      result("gait", "A humanoid walking gait alternates single and double support.", "Gait", 0.5),
    ]);
    expect(answer.text.startsWith("The zero moment point (ZMP) is the point")).toBe(true);
    expect(answer.cited).toEqual([2]);
  });
});

describe("extractiveAnswer: chunks of the results' pages", () => {
  const urdfPage = [
    pageChunk(
      "urdf",
      0,
      "Software that plans a robot needs to know what it looks like. The Unified Robot Description Format (URDF) is the XML dialect ROS uses to write this down.",
      "Describing a Robot with URDF",
    ),
    pageChunk(
      "urdf",
      1,
      "Xacro macros generate the URDF from a shorter template. Run check_urdf on the generated URDF to find errors in the URDF.",
      "Describing a Robot with URDF",
      ["Describing a Robot with URDF", "Reducing repetition with xacro"],
    ),
  ];
  const launch = pageChunk(
    "launch",
    2,
    "Launch files pass the URDF to robot_state_publisher, which publishes the URDF frames.",
    "Launch Files",
    ["Launch Files", "Robot description"],
  );

  it("quotes the opening chunk of a result's page whose title names the term, as a source after the results", () => {
    const results = [retrieved(launch, 0.9), retrieved(urdfPage[1] as ChunkRecord, 0.8)];
    const answer = extractiveAnswer("What is a URDF?", results, {
      pageChunks: pagesOf([...urdfPage, launch]),
    });
    expect(answer.text).toBe(
      "The Unified Robot Description Format (URDF) is the XML dialect ROS uses to write this down. [3]",
    );
    expect(answer.cited).toEqual([3]);
    expect(answer.extraSources.map((source) => source.chunk.id)).toEqual(["urdf#0"]);
    // Weighed as the result of its page that led to it.
    expect(answer.extraSources[0]?.similarityScore).toBe(0.8);
    // Without the page's chunks the answer stays within the results.
    const within = extractiveAnswer("What is a URDF?", results);
    expect(within.extraSources).toEqual([]);
    expect(within.text).not.toContain("Unified Robot Description Format");
  });

  it("numbers a quoted page chunk after the offset too", () => {
    const answer = extractiveAnswer("What is a URDF?", [retrieved(urdfPage[1] as ChunkRecord)], {
      pageChunks: pagesOf(urdfPage),
      citationOffset: 1,
    });
    expect(answer.text.endsWith("[3]")).toBe(true);
    expect(answer.cited).toEqual([3]);
  });

  it("leaves the page alone for other questions and for pages whose title does not name the term", () => {
    const results = [retrieved(launch, 0.9), retrieved(urdfPage[1] as ChunkRecord, 0.8)];
    const pageChunks = pagesOf([...urdfPage, launch]);
    expect(
      extractiveAnswer("How do I check a URDF for errors?", results, { pageChunks }).extraSources,
    ).toEqual([]);
    const xacro = extractiveAnswer("What is xacro?", [retrieved(urdfPage[1] as ChunkRecord)], {
      pageChunks,
    });
    expect(xacro.extraSources).toEqual([]);
  });

  it("quotes the first chunk of a section whose heading names the term when the result continues it", () => {
    const path = ["ZMP and the Inverted Pendulum", "The zero moment point"];
    const page = [
      pageChunk("zmp", 0, "A walking robot is never in static equilibrium.", path[0] as string),
      pageChunk(
        "zmp",
        1,
        "All forces on the sole can be replaced by one. The zero moment point (ZMP) is the point where the forces produce no horizontal moment.",
        path[0] as string,
        path,
      ),
      pageChunk(
        "zmp",
        2,
        "With the CoM standing still the ZMP sits below it. Braking moves the ZMP towards the toes.",
        path[0] as string,
        path,
      ),
    ];
    const answer = extractiveAnswer(
      "What does ZMP stand for?",
      [retrieved(page[2] as ChunkRecord)],
      {
        pageChunks: pagesOf(page),
      },
    );
    expect(answer.text.startsWith("The zero moment point (ZMP) is the point")).toBe(true);
    // The section the result continues is the result's own: it is listed once, as [1].
    expect(answer.text.endsWith("[1]")).toBe(true);
    expect(answer.extraSources).toEqual([]);
  });

  it("quotes a glossary page's entry for the term from another chunk of the glossary", () => {
    const glossary = [
      pageChunk(
        "glossary",
        0,
        "Action — A pattern for long-running goals.\n\nNode — A single participant in the ROS graph, with one responsibility.",
        "Glossary",
        ["Glossary", "A–N"],
      ),
      pageChunk(
        "glossary",
        1,
        "Pose — Position and orientation together.\n\nTopic — A named channel for a stream of messages.",
        "Glossary",
        ["Glossary", "O–Z"],
      ),
    ];
    const answer = extractiveAnswer(
      "What is a node?",
      [
        retrieved(
          pageChunk(
            "net",
            4,
            "Nodes on two machines need the same domain id to see each other.",
            "Networking",
          ),
          0.9,
        ),
        retrieved(glossary[1] as ChunkRecord, 0.6),
      ],
      { pageChunks: pagesOf(glossary) },
    );
    expect(answer.text).toBe(
      "Node — A single participant in the ROS graph, with one responsibility. [3]",
    );
    expect(answer.extraSources.map((source) => source.chunk.id)).toEqual(["glossary#0"]);
  });

  it("looks the term up in the book's glossary when no result is from it", () => {
    const glossary = [
      pageChunk(
        "terms",
        0,
        "Node — A single participant in the ROS graph, with one responsibility.\n\nTopic — A named channel for a stream of messages.",
        "Glossary",
        ["Glossary", "A–Z"],
      ),
    ];
    const results = [
      retrieved(
        pageChunk(
          "net",
          4,
          "Nodes on two machines need the same domain id to see each other.",
          "Networking",
        ),
        0.9,
      ),
    ];
    const withGlossary = extractiveAnswer("What is a node?", results, {
      pageChunks: pagesOf(glossary),
      glossaryPages: ["terms.md"],
    });
    expect(withGlossary.text).toBe(
      "Node — A single participant in the ROS graph, with one responsibility. [2]",
    );
    expect(withGlossary.extraSources.map((source) => source.chunk.id)).toEqual(["terms#0"]);
    const without = extractiveAnswer("What is a node?", results, { pageChunks: pagesOf(glossary) });
    expect(without.extraSources).toEqual([]);
  });
});

describe("extractiveAnswer: a passive sentence is no definition", () => {
  it('quotes the glossary entry over "X is published in …" of a better-ranked result', () => {
    const glossary = pageChunk(
      "glossary",
      1,
      "Node — A participant in the ROS graph.\n\nOdometry — An estimate of motion obtained by integrating wheel rotations; it drifts over time.",
      "Glossary",
      ["Glossary", "K–P"],
    );
    const results = [
      retrieved(
        pageChunk(
          "sensors",
          3,
          "Wheel odometry is precise over a few metres but accumulates error from wheel slip. Odometry is published in the odom frame precisely because it drifts.",
          "Sensors",
        ),
        0.9,
      ),
      retrieved(
        pageChunk("fusion", 2, "Fusing odometry with an IMU smooths the estimate.", "Fusion"),
        0.76,
      ),
      retrieved(pageChunk("nodes", 0, "A node publishes its odometry on a topic.", "Nodes"), 0.43),
      retrieved(pageChunk("tf", 2, "The odom frame drifts with the odometry.", "Frames"), 0.41),
      retrieved(glossary, 0.4),
    ];
    const answer = extractiveAnswer("What is odometry?", results, {
      pageChunks: pagesOf([glossary]),
      glossaryPages: ["glossary.md"],
    });
    expect(answer.text).toBe(
      "Odometry — An estimate of motion obtained by integrating wheel rotations; it drifts over time. [5]",
    );
    expect(answer.extraSources).toEqual([]);
  });
});

describe("extractiveAnswer: how-to passages", () => {
  it("does not run on past the section or when the passage already gives the fix", () => {
    const answer = extractiveAnswer("How do I keep the node from freezing in a service callback?", [
      result(
        "deadlock",
        "A service callback that blocks freezes the node on a single-threaded executor. Blocking in a callback stops every other callback of the node.\n\n## Spinning\n\nUse a MultiThreadedExecutor to run callbacks of several groups at once.",
        "Services",
      ),
    ]);
    expect(answer.text).not.toContain("MultiThreadedExecutor");
    const fixed = extractiveAnswer("How do I avoid freezing the node in a service callback?", [
      result(
        "async",
        "Use call_async in a service callback so the node does not freeze. The response arrives in a done-callback. Instead, you could also use a reentrant callback group with several threads.",
        "Services",
      ),
    ]);
    expect(fixed.text).not.toContain("reentrant callback group");
  });
});

describe("extractiveAnswer: sentences that say where X is used are no definition", () => {
  it.each([
    "Launch files are the natural place to pass the robot description to robot_state_publisher.",
    "Launch files are shown on the URDF page with the robot description.",
    "Launch files are useful for passing the robot description to robot_state_publisher.",
  ])("quotes a lower-ranked defining sentence over %j", (usage) => {
    const results = [
      result("usage", `${usage} The robot description is a URDF string.`, "Robot description", 0.9),
      result(
        "glossary",
        "Launch file — A Python, XML or YAML file that starts and configures a set of nodes.",
        "Glossary",
        0.4,
      ),
    ];
    expect(extractiveAnswer("What is a launch file?", results).text).toBe(
      "Launch file — A Python, XML or YAML file that starts and configures a set of nodes. [2]",
    );
  });
});

describe("extractiveAnswer: reading lists are not answers", () => {
  const faq = [
    "Redux provides a single store.subscribe method for notifying listeners that the store has updated. Listener callbacks do not receive the current state as an argument, so the subscriber calls getState() to read it.",
    "",
    "#### Further information",
    "",
    "**Discussions**",
    "",
    "- #303: subscribe API with state as an argument",
    "- #580: Is it possible to get action and state in store.subscribe?",
    "- #922: Proposal: add subscribe to middleware API",
    "",
    "## Store enhancers",
    "",
    "An enhancer wraps the store to change how subscribers are notified after every dispatch.",
  ].join("\n");

  it("quotes the section's answer, not the titles of threads listed under it", () => {
    const answer = extractiveAnswer("Is it possible to get action and state in store.subscribe?", [
      result("store-setup", faq, "How do I subscribe to only a portion of the state?", 0.9),
    ]);
    expect(answer.text).toMatch(/^Redux provides a single store\.subscribe method/);
    expect(answer.text).not.toContain("#580");
  });

  it("reads on after the list at the next heading", () => {
    const answer = extractiveAnswer("How do store enhancers change how subscribers are notified?", [
      result("store-setup", faq, "How do I subscribe to only a portion of the state?", 0.9),
    ]);
    expect(answer.text).toContain("An enhancer wraps the store");
  });

  it("leaves out the pages a sentence starting with See sends the reader to", () => {
    const answer = extractiveAnswer("How do I use Redux Toolkit in real-world apps?", [
      result(
        "why-rtk",
        'See these pages to learn how to use "modern Redux" with Redux Toolkit:\n\n- **The Redux Essentials tutorial**, which teaches how to use Redux with Redux Toolkit for real-world apps\n- **Migrating to Modern Redux**, which covers how to move Redux logic to Redux Toolkit',
        "What is Redux Toolkit?",
        0.9,
      ),
      result(
        "overview",
        "Redux Toolkit is the official approach for writing Redux logic in apps: it wraps the core redux package.",
        "Redux Toolkit: Overview",
        0.7,
      ),
    ]);
    expect(answer.text).toMatch(/^Redux Toolkit is the official approach/);
  });

  it("leaves out a chunk that starts inside the list", () => {
    const answer = extractiveAnswer("Is it possible to get action and state in store.subscribe?", [
      result(
        "links",
        "**Discussions**\n\n- #580: Is it possible to get action and state in store.subscribe?\n- #922: Proposal: add subscribe to middleware API",
        "Further information",
        0.9,
      ),
      result(
        "api",
        "The listener is called after every dispatch; it receives no arguments and reads the state with getState().",
        "subscribe(listener)",
        0.5,
      ),
    ]);
    expect(answer.text).toMatch(/^The listener is called after every dispatch/);
  });
});

describe("extractiveAnswer: a sentence sending the reader to a list of links", () => {
  it("is left out with its list", () => {
    const answer = extractiveAnswer("How does immutability work in Redux?", [
      result(
        "immutability",
        "Redux expects that all state updates are done immutably, by copying the data that changes.\n\nFor more info on how immutability works in JavaScript, see:\n\n- A Visual Guide to References in JavaScript\n- Immutability in React and Redux: The Complete Guide",
        "Immutability",
        0.9,
      ),
    ]);
    expect(answer.text).toBe(
      "Redux expects that all state updates are done immutably, by copying the data that changes. [1]",
    );
  });
});

describe("extractiveAnswer: tables of terms", () => {
  const joints = [
    "Each joint has a type:",
    "",
    "Type | Motion | Example",
    "--- | --- | ---",
    "revolute | Rotation about an axis, with limits | Elbow of an arm",
    "continuous | Rotation about an axis, no limits | Drive wheel",
    "prismatic | Sliding along an axis, with limits | Linear rail",
  ].join("\n");

  it("quotes the rows naming the question's words when no sentence introduces the table", () => {
    const text = joints.replace("Each joint has a type:", "Each joint has a type.");
    const answer = extractiveAnswer("Which joint type do I use for a drive wheel that spins?", [
      result("joints", text, "Joints"),
    ]);
    expect(answer.text).toContain(
      "- **continuous** — Rotation about an axis, no limits (Example: Drive wheel)",
    );
    expect(answer.text).not.toContain("|");
  });

  it("keeps a table a sentence introduces whole, as a Markdown table", () => {
    const answer = extractiveAnswer("Which joint type do I use for a drive wheel that spins?", [
      result("joint-types", joints, "Joints"),
    ]);
    expect(answer.text).toContain(
      "| continuous | Rotation about an axis, no limits | Drive wheel |",
    );
  });
});

describe("termRows", () => {
  it("reads a row as its term and what the other columns say of it, header row or not", () => {
    expect(
      termRows(["Term | Meaning", "--- | ---", "Accuracy | How close readings are to the truth"]),
    ).toEqual(["- **Accuracy** — How close readings are to the truth"]);
    expect(
      termRows(["| Flag | Effect |", "| `--symlink-install` | Links instead of copying |"]),
    ).toEqual(["- **`--symlink-install`** — Links instead of copying"]);
  });

  it("reads no rows from a table whose first column holds sentences or numbers, or one column", () => {
    expect(
      termRows(["Step | Command", "Build the workspace before running it. | colcon build"]),
    ).toEqual([]);
    expect(termRows(["Rate (Hz) | Use", "100 | IMU", "10 | lidar"])).toEqual([]);
    expect(termRows(["Name", "odom"])).toEqual([]);
  });
});

describe("extractiveAnswer: pointers onward are not answers", () => {
  it("never quotes a sentence sending the reader on to another part of the book", () => {
    for (const pointer of [
      "Next, continue on to Part 2: App Structure, where we'll look at how the data of a screen fits in the store.",
      "The next page covers which data of a screen belongs in the store.",
      "In the next section, we'll decide which data of a screen belongs in the store.",
      "Next, we'll look at some options for deciding which data of a screen belongs in the store.",
    ]) {
      const answer = extractiveAnswer("Which data of a screen belongs in the store?", [
        result(
          `onward-${pointer.length}`,
          `${pointer}\n\nKeep data that many components share in the store.`,
          "Summary",
        ),
      ]);
      expect(answer.text).toBe("Keep data that many components share in the store. [1]");
    }
  });
});

describe("extractiveAnswer: a look ahead that introduces code", () => {
  it("is quoted with its code: what it points to follows it", () => {
    const answer = extractiveAnswer("How do I keep the data of a screen in the store?", [
      result(
        "look-ahead",
        "Next, let's look at how to keep the data of a screen in the store:\n\n```js\nconst store = configureStore({ reducer })\n```",
        "Store",
      ),
    ]);
    expect(answer.text).toMatch(/^Next, let's look at how to keep the data of a screen/);
    expect(answer.text).toContain("configureStore");
  });
});

describe("extractiveAnswer: a paragraph going on from the code before it", () => {
  it("never opens a passage ('can be tested like:' after the slice it tests)", () => {
    const answer = extractiveAnswer("How do I test a reducer?", [
      result(
        "fragment",
        "```ts\nexport default todosSlice.reducer\n```\n\ncan be tested like:\n\n```ts\ntest('adds a todo', () => {\n  expect(reducer([], todoAdded('Run'))).toHaveLength(1)\n})\n```\n\nCall the reducer with a state and an action, and check what it returns.",
        "Writing Tests",
      ),
    ]);
    expect(answer.text).toMatch(/^Call the reducer with a state and an action/);
  });
});

describe("extractiveAnswer: a comparison the book never makes in one passage", () => {
  const glossary = [
    pageChunk(
      "glossary",
      0,
      "Reducer — A reducer is a function that takes the state and an action and returns the next state.\n\nStore — The object holding the state tree.",
      "Glossary",
      ["Glossary", "R–S"],
    ),
    pageChunk(
      "glossary",
      1,
      "Action creator — An action creator is a function that creates an action.",
      "Glossary",
      ["Glossary", "A–C"],
    ),
  ];
  const advice = retrieved(
    pageChunk(
      "faq",
      2,
      "In general, ask if these actions are related but independent, or should be one action. Balance the readability of reducers with the readability of the action log.",
      "FAQ",
    ),
    0.9,
  );
  const question = "What is the difference between a reducer and an action creator?";

  it("keeps the passage when the book defines only one of them, or the passage says what one is", () => {
    const onlyReducer = [glossary[0] as ChunkRecord];
    expect(
      extractiveAnswer(question, [advice], {
        pageChunks: pagesOf(onlyReducer),
        glossaryPages: ["glossary.md"],
      }).text,
    ).toMatch(/^In general, ask if these actions are related/);
    const says = retrieved(
      pageChunk(
        "guide",
        0,
        "A reducer is a function that returns the next state, while an action creator only builds the action it handles.",
        "Guide",
      ),
      0.9,
    );
    expect(
      extractiveAnswer(question, [says], {
        pageChunks: pagesOf(glossary),
        glossaryPages: ["glossary.md"],
      }).text,
    ).toMatch(/^A reducer is a function that returns the next state, while an action creator/);
  });
});

describe("comparedItems", () => {
  it("reads the things a question compares, less the words they share", () => {
    expect(
      comparedItems("What is the difference between the map frame and the odom frame?"),
    ).toEqual([["map"], ["odom"]]);
    expect(comparedItems("Path versus trajectory: what's the difference?")).toEqual([
      ["path"],
      ["trajectori"],
    ]);
    expect(
      comparedItems("What's the difference between a system, an actuator and a sensor?"),
    ).toEqual([["system"], ["actuat"], ["sensor"]]);
    expect(comparedItems("How do I publish a transform?")).toEqual([]);
  });

  it("tells a thing from one whose name holds it by the words it adds", () => {
    expect(
      comparedItems("What is the difference between an action and an action creator?"),
    ).toEqual([["action"], ["creator"]]);
    expect(comparedItems("Reducer vs slice reducer?")).toEqual([["reduc"], ["slice"]]);
    // Two things sharing nothing but naming no thing apart compare nothing.
    expect(comparedItems("What is the difference between a node and a node?")).toEqual([]);
  });
});

describe("extractiveAnswer: a result that is code alone", () => {
  const path = ["Writing Tests", "Integration tests"];
  const testsPage = [
    pageChunk(
      "tests",
      0,
      "Test files render the connected components with a custom render function. Requests are mocked with MSW, so the thunk still runs as in the app.\n\n```tsx\nimport { render } from './test-utils'\n```",
      "Writing Tests",
      path,
    ),
    pageChunk(
      "tests",
      1,
      "```tsx\ntest('fetches a user', async () => {\n  renderWithProviders(<UserDisplay />)\n})\n```",
      "Writing Tests",
      path,
    ),
    pageChunk(
      "tests",
      2,
      "```tsx\nexpect(await screen.findByText(/John/)).toBeInTheDocument()\n```",
      "Writing Tests",
      ["Writing Tests", "Unit tests"],
    ),
  ].map((chunk) => ({ ...chunk, url: `/docs/tests#${slug(chunk.headingPath.at(-1) ?? "")}` }));
  const other = result(
    "rtk-query",
    "RTK Query can eliminate the need to write any thunks to manage data fetching. Each endpoint generates a hook.",
    "RTK Query",
    0.7,
  );

  it("is not given the text of another section", () => {
    const code = retrieved(testsPage[2] as ChunkRecord, 0.9);
    const answer = extractiveAnswer("How would I write a test for a thunk?", [code, other], {
      pageChunks: pagesOf(testsPage),
    });
    expect(answer.text).toMatch(/^RTK Query can eliminate/);
  });
});

describe("extractiveAnswer: text to avoid", () => {
  it("quotes no sentence of the text to avoid, however well it matches", () => {
    const chunk = pageChunk(
      "qos",
      0,
      "Transient-local durability keeps the last messages for late joiners. A late joiner is a subscription created after the message was published.",
      "Quality of Service",
    );
    const question = "What does transient-local durability do for late joiners?";
    expect(extractiveAnswer(question, [retrieved(chunk)]).text).toMatch(/^Transient-local/);
    const avoiding = extractiveAnswer(question, [retrieved(chunk)], {
      avoid: "Transient-local durability keeps the last messages for late joiners.",
    });
    expect(avoiding.text).toMatch(/^A late joiner is a subscription/);
  });
});

describe("extractiveAnswer: a question the text asks itself", () => {
  const chunk = pageChunk(
    "frames",
    0,
    "A lidar reports an obstacle 1.0 m straight ahead of the robot. Ahead of what? Of the lidar, which sits 0.2 m in front of the robot's centre. Every measurement in robotics is expressed in a coordinate frame.",
    "Coordinate Frames",
  );
  const question = "Where does the lidar sit on the robot?";

  it("reads on through the short question, never across it", () => {
    const answer = extractiveAnswer(question, [retrieved(chunk)]).text;
    expect(answer).toContain("Ahead of what? Of the lidar");
  });

  it("opens on neither the question nor its answer", () => {
    const units = parseText(chunk.text).units.map((unit) => [unit.text, unit.pointsBack]);
    expect(units).toEqual([
      ["A lidar reports an obstacle 1.0 m straight ahead of the robot.", false],
      ["Ahead of what?", true],
      ["Of the lidar, which sits 0.2 m in front of the robot's centre.", true],
      ["Every measurement in robotics is expressed in a coordinate frame.", false],
    ]);
  });

  it("reads on from the reader's selection, which it never quotes", () => {
    const answer = extractiveAnswer(question, [retrieved(chunk)], {
      avoid: "A lidar reports an obstacle 1.0 m straight ahead of the robot.",
    }).text;
    expect(answer).toMatch(/^Ahead of what\? Of the lidar, which sits/);
  });
});

describe("extractiveAnswer: the items of a list that answer", () => {
  it("keeps the whole list when its lead-in is about the question", () => {
    const chunk = pageChunk(
      "bringup",
      0,
      "Bring up a new robot in these steps:\n\n1. Record sensor data and replay it.\n2. Run the controller against a simulated plant.\n3. Raise the limits slowly.",
      "Bring-up",
    );
    const answer = extractiveAnswer(
      "How do I bring up a robot by replaying recorded sensor data?",
      [retrieved(chunk)],
    ).text;
    expect(answer).toContain("3. Raise the limits slowly.");
  });

  it("keeps the whole list when an item only touches the question", () => {
    const chunk = pageChunk(
      "troubleshooting",
      0,
      "The node read the setting once at start-up and does not listen for changes. Register a callback, or read it again where it is used. Work through this general checklist before asking for help:\n\n1. Source the workspace in a fresh terminal.\n2. Run ros2 doctor and read every warning.\n3. Check names with ros2 node list.",
      "Troubleshooting",
    );
    const answer = extractiveAnswer(
      "How do I change a setting of a running program without restarting it?",
      [retrieved(chunk)],
    ).text;
    expect(answer).toContain("1. Source the workspace");
  });
});

describe("extractiveAnswer: asked for an example", () => {
  const launch = pageChunk(
    "launch",
    1,
    "Hard-coded values defeat the purpose. Launch arguments are declared with `DeclareLaunchArgument` and read back with `LaunchConfiguration`.\n\n```python\nDeclareLaunchArgument('use_sim_time', default_value='false')\n```",
    "Launch Files",
    ["Launch Files", "Launch arguments"],
  );

  it("knows when a question asks for one", () => {
    for (const question of [
      "Give me an example",
      "Can you show me an example of a launch file?",
      "Examples of QoS profiles",
      "Is there a code example?",
    ])
      expect(asksForExample(question), question).toBe(true);
    for (const question of ["How do I run the example below?", "What does the example node do?"])
      expect(asksForExample(question), question).toBe(false);
  });

  it("always brings the code a sentence without its full stop runs into", () => {
    const chunk = pageChunk(
      "com",
      0,
      "For a robot made of n links, each with mass mᵢ at position pᵢ, the robot's CoM is\n\n```text\np_com = (m1·p1 + … + mn·pn) / (m1 + … + mn)\n```",
      "Centre of Mass",
    );
    const answer = extractiveAnswer("What is the CoM of a robot made of links?", [
      retrieved(chunk),
    ]).text;
    expect(answer).toContain("the robot's CoM is [1]\n\n```text\np_com =");
  });

  it("leaves it out for other questions", () => {
    const answer = extractiveAnswer("Why are launch arguments declared?", [retrieved(launch)]).text;
    expect(answer).toContain("Launch arguments are declared with");
    expect(answer).not.toContain("```");
  });
});

describe("sentences", () => {
  const sentences = (text: string) => parseText(text).units.map((unit) => unit.text);

  it("end after a unit of measure, not after an initial", () => {
    expect(
      sentences(
        "The arm has an upper arm of 0.40 m and a forearm of 0.30 m. Its DH table follows the usual convention.",
      ),
    ).toEqual([
      "The arm has an upper arm of 0.40 m and a forearm of 0.30 m.",
      "Its DH table follows the usual convention.",
    ]);
    expect(sentences("The convention is due to J. Denavit and R. S. Hartenberg in 1955.")).toEqual([
      "The convention is due to J. Denavit and R. S. Hartenberg in 1955.",
    ]);
  });
});

describe("a sentence naming the code before it", () => {
  const leans = (text: string) =>
    parseText(text).units.map((unit) => [unit.text.slice(0, 20), unit.pointsBack]);

  it("leans on that code, after it or at a chunk's start, and not when it points below", () => {
    expect(
      leans(
        "```js\nconst a = 1\n```\n\nThe example is a bit long, because it shows every reducer. Note the delegation here.",
      ),
    ).toEqual([
      ["The example is a bit", true],
      ["Note the delegation ", false],
    ]);
    expect(leans("The code waits for the service before it sends the request.")).toEqual([
      ["The code waits for t", true],
    ]);
    expect(
      leans(
        "Services block the caller until the reply arrives.\n\nThe code waits for the service first.",
      ),
    ).toEqual([
      ["Services block the c", false],
      ["The code waits for t", false],
    ]);
    expect(
      leans("The example below publishes the battery status once per second.\n\n```py\nx = 1\n```"),
    ).toEqual([["The example below pu", false]]);
  });
});

describe("extractiveAnswer: a selection's words as what the question asks about", () => {
  it("weigh as much as the question's own", () => {
    const selection =
      "A robot with four identical wheels would need four nearly identical blocks of XML.";
    const answer = extractiveAnswer(
      "What happens if I get it wrong?",
      [
        retrieved(
          pageChunk(
            "urdf",
            0,
            "xacro adds properties and macros to URDF: a robot with four identical wheels needs one macro, not four nearly identical blocks of XML.",
            "URDF",
          ),
          0.8,
        ),
        retrieved(
          pageChunk(
            "nodes",
            0,
            "Nothing happens in a node that is never spun: timers do not fire and subscriptions never deliver.",
            "Nodes",
          ),
          0.7,
        ),
      ],
      { context: selection, selectionContext: true, avoid: selection },
    ).text;
    // An earlier turn's words would weigh half as much as "happens", the question's one word.
    expect(answer).toMatch(/^xacro adds properties/);
  });
});

describe("extractiveAnswer: the book going on from a selection", () => {
  it("prefers the passage right after the selection", () => {
    const selection =
      "Some requests take a long time: drive to the kitchen, rotate 180 degrees, pick up the cup.";
    const answer = extractiveAnswer(
      selection,
      [
        retrieved(
          pageChunk(
            "actions",
            0,
            `${selection} A service would block the caller for the whole duration and give no sign of progress. Actions exist for exactly this case.\n\nAt any time before the end, the client can ask to cancel a request that takes a long time.`,
            "Actions",
          ),
        ),
      ],
      { avoid: selection, context: selection },
    ).text;
    expect(answer).toMatch(/^A service would block the caller/);
  });
});

describe("extractiveAnswer: a result ending on code its section goes on after", () => {
  const path = ["Launch Files", "Launch arguments"];
  const launchPage = [
    pageChunk(
      "launch",
      0,
      "A launch file declares the arguments it accepts with DeclareLaunchArgument and reads them with LaunchConfiguration.\n\n```python\nDeclareLaunchArgument('use_sim_time', default_value='false')\n```",
      "Launch Files",
      path,
    ),
    pageChunk(
      "launch",
      1,
      "Values are given on the command line as name:=value when the file is started. A substitution is evaluated only when the launch file runs.",
      "Launch Files",
      path,
    ),
    pageChunk(
      "launch",
      2,
      "Values are given on the command line as name:=value to every included file as well.",
      "Launch Files",
      ["Launch Files", "Including other launch files"],
    ),
  ].map((chunk) => ({ ...chunk, url: `/docs/launch#${slug(chunk.headingPath.at(-1) ?? "")}` }));
  const question = "How do I give a value on the command line when I start a launch file?";

  it("leaves the next chunk alone when it starts another section or the result ends on text", () => {
    const pages = pagesOf([launchPage[0] as ChunkRecord, launchPage[2] as ChunkRecord]);
    const code = retrieved(launchPage[0] as ChunkRecord, 0.9);
    expect(extractiveAnswer(question, [code], { pageChunks: pages }).text).toMatch(
      /^A launch file declares/,
    );
    const text = retrieved(
      { ...(launchPage[0] as ChunkRecord), text: "A launch file declares its arguments." },
      0.9,
    );
    const answer = extractiveAnswer(question, [text], { pageChunks: pagesOf(launchPage) });
    expect(answer.extraSources).toEqual([]);
  });
});

describe("extractiveAnswer: a result in a section headed 'Example'", () => {
  const intro = {
    ...pageChunk(
      "testing",
      4,
      "Integration tests render the whole app.\n\n### Reducers\n\nBecause reducers are pure functions, testing them is straightforward. Call the reducer with a state and an action, and assert that the result matches.",
      "Writing Tests",
      ["Writing Tests", "Integration tests"],
    ),
    sectionAnchors: [
      { heading: "Reducers", anchor: "reducers", headingPath: ["Writing Tests", "Reducers"] },
    ],
  };
  const slice = pageChunk(
    "testing",
    5,
    "```ts\nexport default todosSlice.reducer\n```",
    "Writing Tests",
    ["Writing Tests", "Reducers", "Example"],
  );
  const example = pageChunk(
    "testing",
    6,
    "can be tested like:\n\n```ts\ntest('adds a todo', () => {\n  expect(reducer([], todoAdded('Run'))).toHaveLength(1)\n})\n```",
    "Writing Tests",
    ["Writing Tests", "Reducers", "Example"],
  );
  const other = result(
    "ecosystem",
    "redux-test-recorder is a middleware that generates reducer tests from the actions of an app.",
    "Ecosystem",
    0.7,
  );

  it("is not given the parent's text under another heading", () => {
    const selectors = { ...example, headingPath: ["Writing Tests", "Reducers", "Selectors"] };
    const answer = extractiveAnswer(
      "How do I test a reducer?",
      [retrieved(selectors, 0.9), other],
      {
        pageChunks: pagesOf([intro, slice, selectors]),
      },
    );
    expect(answer.text).not.toMatch(/^Because reducers are pure functions/);
  });
});

function slug(heading: string): string {
  return heading.toLowerCase().replace(/\s+/g, "-");
}

describe("extractiveAnswer: a how-to whose section opens on code", () => {
  it("quotes a list item ending in ':' with the code under it, and the item's text after it apart", () => {
    const tips = [
      "- Middleware only wraps the store's dispatch function.",
      "- If you want to apply a middleware only in development, import it only when it is needed:",
      "  ```js",
      "  let middleware = [a, b]",
      "",
      "  const store = createStore(",
      "    reducer,",
      "    applyMiddleware(...middleware)",
      "  )",
      "  ```",
      "  This makes it easier for bundling tools to cut out unneeded modules.",
      "- Ever wondered what applyMiddleware itself is? It is a store enhancer.",
    ].join("\n");
    const units = parseText(tips).units;
    const item = units.find((unit) => unit.text.includes("only when it is needed:"));
    expect(item?.attachment).toBe(
      "```js\nlet middleware = [a, b]\n\nconst store = createStore(\n  reducer,\n  applyMiddleware(...middleware)\n)\n```",
    );
    // No sentence runs into the code: what follows it is a sentence of its own.
    expect(units.map((unit) => unit.text)).toContain(
      "This makes it easier for bundling tools to cut out unneeded modules.",
    );
    expect(units.some((unit) => /createStore|\)\s+This/.test(unit.text))).toBe(false);
  });
});

describe("extractiveAnswer: a how-to whose section the search passed over", () => {
  const question = "How do I publish a message on a topic?";

  it("is not the opening of a page titled after the task: that says why, not how", () => {
    const title = "Publishing Messages";
    const intro = pageChunk(
      "publishing",
      0,
      "Publishing a message on a topic is what every node does first, and it is worth doing well.",
      title,
    );
    const topicTypes = pageChunk(
      "publishing",
      1,
      "Each topic has exactly one message type. A message definition is a list of typed fields.",
      title,
      [title, "Message types"],
    );
    const answer = extractiveAnswer(question, [retrieved(topicTypes, 0.9)], {
      pageChunks: pagesOf([intro, topicTypes]),
    });
    expect(answer.text).toMatch(/^Each topic has exactly one/);
    expect(answer.extraSources).toEqual([]);
  });
});

describe("extractiveAnswer: a definition inside one item of an introduced list", () => {
  const gap = result(
    "sim-to-real",
    "A simulator is a model. The usual suspects, roughly in order of how often they bite:\n\n1. Contact and friction. Real tyres deform and real floors are dusty.\n2. Actuator dynamics. A real motor has current limits and gearbox backlash (play when the direction reverses).\n3. Latency. Sensing and transport add 5–50 ms of delay.\n4. Sensor imperfections. Real sensors have noise and bias.",
    "Where the gap comes from",
    0.9,
  );

  it("keeps the whole list for other questions", () => {
    const answer = extractiveAnswer("Why does my robot behave differently outside the simulator?", [
      gap,
    ]);
    expect(answer.text).toContain("1. Contact and friction");
    expect(answer.text).toContain("4. Sensor imperfections");
  });
});

describe("extractiveAnswer: a comparison's other words", () => {
  it("weigh less than the things compared ('difference', the 'frame' both are)", () => {
    const parsed = [
      parseText("The map frame and the odom frame differ in drift. A frame is a pose."),
    ];
    const query = weighQuestion(
      "What is the difference between the map frame and the odom frame?",
      parsed,
    );
    const plain = weighQuestion("Where are the map frame and the odom frame published?", parsed);
    expect(query.weights.get("frame")).toBeCloseTo(0.3 * (plain.weights.get("frame") ?? 0));
    expect(query.weights.get("map")).toBeCloseTo(plain.weights.get("map") ?? 0);
  });

  it("do not draw the answer to a sentence sharing only them", () => {
    const planners = result(
      "planners",
      "Optimisation-based planners take a different route: they start with a simple trajectory and deform it to reduce a cost. The result is a different trajectory.",
      "Optimisation-based planners",
      0.9,
    );
    const terms = result(
      "terms",
      "A path is a sequence of configurations with no timing. A trajectory adds time: when to be where, with what velocity.",
      "Paths and trajectories",
      0.7,
    );
    const answer = extractiveAnswer("Path versus trajectory: what's the difference?", [
      planners,
      terms,
    ]);
    expect(answer.text).toMatch(/^A path is a sequence of configurations/);
  });
});

describe("extractiveAnswer: a question asking for the cause", () => {
  const entry = result(
    "troubleshooting",
    "Symptom. ros2 run primer_py talker fails with Package 'primer_py' not found, or finds the package but reports No executable found.\n\nCauses and fixes.\n\n1. The workspace is not sourced in this terminal. Every new shell needs it sourced.\n2. The package did not build. Look in the build log for errors.\n3. The executable is not declared in setup.py. After adding it, rebuild.",
    '"Package not found"',
    0.9,
  );

  it("reads a label before a list ('Causes and fixes.') as introducing it, not as a heading", () => {
    const units = parsedChunk(entry.chunk).units;
    expect(units.map((unit) => unit.text)).toEqual([
      "ros2 run primer_py talker fails with Package 'primer_py' not found, or finds the package but reports No executable found.",
      "Causes and fixes.",
    ]);
    expect(units[1]?.attachment).not.toBeNull();
  });
});

describe("weighQuestion: a library named with its language suffix", () => {
  it("does not count the '.js' of 'Immutable.js' as a word: it would match 'Next.js'", () => {
    const sources = [
      parseText("Check that the store works with the Next.js App Router caches."),
      parseText("Redux expects that all state updates are done immutably."),
    ];
    const named = weighQuestion("Do redux and Immutable.js work well together?", sources);
    expect(named.weights.has("js")).toBe(false);
    const apart = weighQuestion("Does Immutable.js work with plain JS objects?", sources);
    expect(apart.weights.has("js")).toBe(true);
  });
});
