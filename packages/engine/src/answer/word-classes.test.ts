import { describe, expect, it } from "vitest";
import { namedInQuestion, nounsIn } from "./word-classes.ts";

describe("namedInQuestion", () => {
  it("keeps the nouns of the question", async () => {
    expect(
      await namedInQuestion(["mortgage"], "Should I choose a fixed or a variable rate mortgage?"),
    ).toEqual(["mortgage"]);
    expect(
      await namedInQuestion(
        ["Webots"],
        "How do I load my robot into the Webots simulator and drive it from ROS 2?",
      ),
    ).toEqual(["Webots"]);
    expect(
      await namedInQuestion(
        ["precautions"],
        "What precautions should I take before running new code on the robot?",
      ),
    ).toEqual(["precautions"]);
  });

  it.each([
    [
      "merge",
      "How do I merge wheel odometry and IMU readings into one smoother position estimate?",
    ],
    ["seems", "I pass -p max_speed:=0.3 when starting my node, but the value seems to be ignored."],
    [
      "legitimate",
      "Instead of a switch I keep an object of handlers. Is that a legitimate pattern?",
    ],
    ["creep", "Why does my heading from the gyroscope slowly creep even when the robot is still?"],
    ["fine", "Why is the node not found when the workspace built fine?"],
  ])("leaves out verbs, adjectives and adverbs: %j", async (word, question) => {
    expect(await namedInQuestion([word], question)).toEqual([]);
  });

  it.each([
    ["forth", "My robot's position in RViz keeps jumping back and forth between two places."],
    ["fro", "The arm swings to and fro after every goal."],
    ["fatter", "Why do the wheels look fatter in the simulator than on the real robot?"],
    ["fattest", "Which cable is the fattest one I can use?"],
  ])(
    "leaves out words the tagger guesses to be nouns from their form: %j",
    async (word, question) => {
      expect(await namedInQuestion([word], question)).toEqual([]);
    },
  );

  it("still names an unknown noun after 'and' or an '-er' word that is no comparative", async () => {
    expect(await namedInQuestion(["webots"], "Do Gazebo and webots both read URDF?")).toEqual([
      "webots",
    ]);
    expect(
      await namedInQuestion(["gimballer"], "How do I tune the gimballer on my drone?"),
    ).toEqual(["gimballer"]);
  });

  it("keeps identifiers and acronyms whatever the tagger reads them as", async () => {
    expect(
      await namedInQuestion(
        ["sessionStorage", "SLAM", "px4_ros"],
        "Does SLAM write to sessionStorage through px4_ros?",
      ),
    ).toEqual(["sessionStorage", "SLAM", "px4_ros"]);
  });

  it("reads a word used twice by both its uses", async () => {
    expect(
      await namedInQuestion(
        ["fix"],
        "How do I fix it locally and keep the fix across reinstalls without forking the package?",
      ),
    ).toEqual(["fix"]);
  });

  it("keeps an adjective's word where it names a thing ('a fine for parking')", async () => {
    expect((await nounsIn("Do I pay a fine for parking the robot here?")).has("fine")).toBe(true);
  });

  it("reads a word by its use in the sentence", async () => {
    expect((await nounsIn("Where does the book explain odometry?")).has("book")).toBe(true);
    expect((await nounsIn("How do I book a test slot on the robot?")).has("book")).toBe(false);
  });
});
