import { describe, expect, it } from "vitest";
import { ROS2_CONTROL_SOURCE } from "../test/sse-fixtures.ts";
import { leadingWords, withTextFragment } from "./text-fragment.ts";

describe("leadingWords", () => {
  it("takes the first words of the first paragraph, without Markdown marks", () => {
    expect(leadingWords("## **Quality** of `service` settings\n\nmore", 4)).toBe(
      "Quality of service settings",
    );
    expect(leadingWords(ROS2_CONTROL_SOURCE.snippet, 12)).toBe(
      "The hardware a robot has is described in a <ros2_control> element inside",
    );
  });

  it("drops a last word cut short by the 200-character snippet limit", () => {
    const snippet = `${"word ".repeat(39)}trunc`;
    expect(snippet).toHaveLength(200);
    expect(leadingWords(snippet, 100).endsWith("trunc")).toBe(false);
  });
});

describe("withTextFragment", () => {
  it("adds a text directive after the anchor where browsers support it", () => {
    expect(withTextFragment("/docs/a#b-c", "Pub-sub, QoS & more", true)).toBe(
      "/docs/a#b-c:~:text=Pub%2Dsub%2C%20QoS%20%26%20more",
    );
    expect(withTextFragment("/docs/a", "Hello", true)).toBe("/docs/a#:~:text=Hello");
  });

  it("leaves the URL alone elsewhere", () => {
    expect(withTextFragment("/docs/a#b", "Hello", false)).toBe("/docs/a#b");
  });
});
