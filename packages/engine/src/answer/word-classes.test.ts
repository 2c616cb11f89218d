import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { WORD_CLASS_LIST } from "./word-class-list.ts";
import { classesOf, namedInQuestion, nounsIn, parseWordList } from "./word-classes.ts";

describe("namedInQuestion", () => {
  it.each([
    ["mortgage", "Should I choose a fixed or a variable rate mortgage?"],
    ["Webots", "How do I load my robot into the Webots simulator and drive it from ROS 2?"],
    ["precautions", "What precautions should I take before running new code on the robot?"],
    ["pancakes", "Buttermilk substitute for pancakes?"],
    ["funds", "Should I put my savings into index funds or individual stocks?"],
    ["dict", "python sort dict by value descending"],
    ["wedding", "What should a best man say in his wedding speech?"],
  ])("keeps the nouns of the question: %j", async (word, question) => {
    expect(await namedInQuestion([word], question)).toEqual([word]);
  });

  it.each([
    ["merge", "How do I merge wheel odometry and IMU readings into one smoother estimate?"],
    ["seems", "I pass -p max_speed:=0.3 when starting my node, but the value seems ignored."],
    [
      "legitimate",
      "Instead of a switch I keep an object of handlers. Is that a legitimate pattern?",
    ],
    ["creep", "Why does my heading from the gyroscope slowly creep even when the robot is still?"],
    ["fine", "Why is the node not found when the workspace built fine?"],
    ["died", "Our monorepo build died at package 37 of 60."],
    ["annual", "How many days of paid annual leave are employees entitled to?"],
    ["growing", "The worker processes keep growing in RAM until the box runs out."],
    ["look", "Why do the wheels look fatter in the simulator?"],
    ["brew", "How long should I brew a pour-over coffee?"],
  ])("leaves out verbs, adjectives and adverbs: %j", async (word, question) => {
    expect(await namedInQuestion([word], question)).toEqual([]);
  });

  it.each([
    ["forth", "My robot's position in RViz keeps jumping back and forth between two places."],
    ["fro", "The arm swings to and fro after every goal."],
    ["fatter", "Why do the wheels look fatter in the simulator than on the real robot?"],
    ["fattest", "Which cable is the fattest one I can use?"],
    ["horizontally", "How do I center the panel horizontally?"],
    ["its", "Does the node keep its parameters?"],
    ["whether", "Can I tell whether the arm is moving?"],
    ["micro", "How do I get micro-ROS running on an ESP32?"],
  ])("leaves out particles, inflected forms and function words: %j", async (word, question) => {
    expect(await namedInQuestion([word], question)).toEqual([]);
  });

  it("still names an unknown noun after 'and' or an '-er' word that is no comparative", async () => {
    expect(await namedInQuestion(["webots"], "Do Gazebo and webots both read URDF?")).toEqual([
      "webots",
    ]);
    expect(
      await namedInQuestion(["gimballer"], "How do I tune the gimballer on my drone?"),
    ).toEqual(["gimballer"]);
  });

  it("keeps identifiers, acronyms and capitalised names, and the parts of hyphenated ones", async () => {
    expect(
      await namedInQuestion(
        ["sessionStorage", "SLAM", "px4_ros"],
        "Does SLAM write to sessionStorage through px4_ros?",
      ),
    ).toEqual(["sessionStorage", "SLAM", "px4_ros"]);
    expect(
      await namedInQuestion(
        ["Western", "Roman", "Empire"],
        "What caused the fall of the Western Roman Empire?",
      ),
    ).toEqual(["Western", "Roman", "Empire"]);
    expect(
      await namedInQuestion(["Ziegler", "Nichols"], "How do I tune gains with Ziegler-Nichols?"),
    ).toEqual(["Ziegler", "Nichols"]);
  });

  it("reads a word used twice by both its uses", async () => {
    expect(
      await namedInQuestion(
        ["fix"],
        "How do I fix it locally and keep the fix across reinstalls without forking the package?",
      ),
    ).toEqual(["fix"]);
  });
});

describe("namedInQuestion without its word list", () => {
  it("still names identifiers and acronyms when the list cannot be loaded, and tries again", async () => {
    vi.resetModules();
    let fails = true;
    vi.doMock("./word-class-list.ts", async (original) => {
      if (fails) throw new TypeError("Failed to fetch dynamically imported module");
      return original();
    });
    try {
      const { namedInQuestion: named } = await import("./word-classes.ts");
      const question = "Can SLAM run on a Raspberry board with pancakes?";
      expect(await named(["SLAM", "pancakes"], question)).toEqual(["SLAM"]);
      fails = false;
      expect(await named(["SLAM", "pancakes"], question)).toEqual(["SLAM", "pancakes"]);
    } finally {
      vi.doUnmock("./word-class-list.ts");
      vi.resetModules();
    }
  });
});

describe("nounsIn", () => {
  it.each([
    ["Do I pay a fine for parking the robot here?", "fine", true],
    ["Where does the book explain odometry?", "book", true],
    ["How do I book a test slot on the robot?", "book", false],
    ["Where do I put the test file?", "file", true],
    ["Why do my tests crash on start?", "crash", false],
    ["Is there a setting for it?", "setting", true],
    ["What happens before running the tests?", "running", false],
  ])("reads a word by its use in the sentence: %j", async (text, word, noun) => {
    expect((await nounsIn(text)).has(word)).toBe(noun);
  });
});

describe("classesOf", () => {
  const list = parseWordList(WORD_CLASS_LIST);

  it.each([
    // An ending's class, ordered as the lemma's classes are.
    ["keeps", "v"],
    ["funds", "n"],
    // Irregular forms from WordNet's exception lists.
    ["won", "v"],
    ["fatter", "a"],
    // A doubled consonant, -ies, -ly.
    ["stopped", "v"],
    ["carries", "v"],
    ["horizontally", "r"],
    // -es only after a hiss: "nodes" is no form of "nod".
    ["nodes", undefined],
    // A noun the list does not hold, and a word it never saw.
    ["pancakes", undefined],
    ["kubectl", undefined],
  ])("%j is first a %j", (word, first) => {
    expect(classesOf(word, list)?.[0]).toBe(first);
  });

  it("reads the list's groups and forms", () => {
    const small = parseWordList("@vn\nbrew toggle\n@a\nlegitimate\n@=v\nbrewn:brew\n");
    expect(classesOf("toggle", small)).toBe("vn");
    expect(classesOf("legitimate", small)).toBe("a");
    expect(classesOf("brewn", small)).toBe("v");
    expect(classesOf("toggles", small)).toBe("vn");
  });
});

// The list is generated from WordNet (Debian's wordnet-base, which .ci/run installs): the
// committed file must be what the generator writes.
const WORDNET = "/usr/share/wordnet";
describe.skipIf(!existsSync(join(WORDNET, "index.verb")) && process.env.CI !== "true")(
  "the word-class list",
  () => {
    it("is what scripts/word-classes.mjs writes from WordNet", () => {
      const out = mkdtempSync(join(tmpdir(), "word-classes-"));
      try {
        const script = join(import.meta.dirname, "../../scripts/word-classes.mjs");
        execFileSync(process.execPath, [script, WORDNET, join(out, "list.ts")]);
        const committed = readFileSync(join(import.meta.dirname, "word-class-list.ts"), "utf8");
        expect(readFileSync(join(out, "list.ts"), "utf8")).toBe(committed);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  },
);
