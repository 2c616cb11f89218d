import { describe, expect, it } from "vitest";
import type { RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { extractiveAnswer, quotePassage } from "./extractive.ts";

function result(id: string, text: string, heading: string, similarityScore = 0.8): RetrievedChunk {
  const chunk: ChunkRecord = {
    id,
    collection: "default",
    version: "",
    filePath: `${id}.md`,
    chunkIndex: 0,
    totalChunks: 1,
    title: heading,
    section: heading,
    headingPath: [heading],
    url: `/docs/${id}`,
    tags: [],
    text,
    contentHash: `${id}:${text.length}`,
    tokenCount: Math.ceil(text.length / 4),
  };
  return { chunk, score: 10 * similarityScore, similarityScore, coverage: 0.5 };
}

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
    const code = Array.from({ length: 20 }, (_, index) => `colcon build --step ${index}`);
    const text = `Build the workspace with colcon from its root:\n\n\`\`\`bash\n${code.join("\n")}\n\`\`\`\n\nThe install folder appears next to src.`;
    const answer = extractiveAnswer("How do I build the workspace with colcon?", [
      result("build", text, "Building"),
    ]);
    expect(answer.text).toContain(
      "Build the workspace with colcon from its root: [1]\n\n```bash\n",
    );
    const fences = answer.text.match(/^```/gm) ?? [];
    expect(fences).toHaveLength(2);
    expect(answer.text).toContain("colcon build --step 14\n…\n```");
    expect(answer.text).not.toContain("--step 15");
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

  it("drops fragments: labels, headings, table rows, images and admonition markers", () => {
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

  it("adds a short second passage from another source when the first covers little", () => {
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
    );
    const passages = answer.text.split("\n\n");
    expect(passages).toHaveLength(2);
    const recording = passages.find((passage) => passage.startsWith("Recording with rosbag2"));
    const clock = passages.find((passage) => passage.startsWith("Gazebo sends a clock topic"));
    expect(recording).toMatch(/\[1\]$/);
    expect(clock).toMatch(/\[2\]$/);
    expect(answer.cited.sort()).toEqual([1, 2]);
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
    });
    expect(extractiveAnswer("How do I charge a cell?", [])).toEqual({ text: "", cited: [] });
  });

  it("falls back to the opening of the first source when no question word matches", () => {
    const answer = extractiveAnswer("Anything about zebras?", [
      result("servo", "A servo holds its angle. It uses a feedback loop. It is cheap.", "Servos"),
    ]);
    expect(answer.cited).toEqual([1]);
    expect(answer.text.startsWith("A servo holds its angle.")).toBe(true);
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
