// @vitest-environment jsdom
import "../test/render-widget.tsx";
import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { MarkdownView } from "./MarkdownView.tsx";

function renderMarkdown(text: string) {
  const { container } = render(
    <MarkdownView
      text={text}
      renderCitation={(number) => <sup data-citation={number}>{number}</sup>}
    />,
  );
  return container;
}

describe("MarkdownView safety", () => {
  it("never creates script elements: a script tag is shown as text", () => {
    const view = renderMarkdown("Before <script>window.hacked = true</script> after");
    expect(view.querySelector("script")).toBeNull();
    expect(view).toHaveTextContent("Before <script>window.hacked = true</script> after");
    expect((window as { hacked?: boolean }).hacked).toBeUndefined();
  });

  it("renders raw HTML as text, with no elements or event handlers", () => {
    const view = renderMarkdown(
      '<img src=x onerror="alert(1)"> <iframe src="https://evil.example"></iframe> <b>bold?</b>',
    );
    expect(view.querySelector("img, iframe, b")).toBeNull();
    expect(view.querySelector("[onerror]")).toBeNull();
    expect(view).toHaveTextContent('<img src=x onerror="alert(1)">');
  });

  it("drops javascript:, data: and other non-http links but keeps their text", () => {
    const view = renderMarkdown(
      "[one](javascript:alert(1)) [two](JaVaScRiPt:alert(1)) [three](data:text/html,<b>x</b>) [four](vbscript:x) [five](mailto:a@b.c)",
    );
    expect(view.querySelector("a")).toBeNull();
    expect(view).toHaveTextContent("one two three four five");
  });

  it("keeps http(s), relative and #anchor links; other sites open in a new tab without referrer", () => {
    const view = renderMarkdown(
      "[ROS](https://docs.ros.org/en) [topics](/docs/ros2/topics) [QoS](#quality-of-service)",
    );
    const [external, relative, anchor] = Array.from(view.querySelectorAll("a"));
    expect(external).toHaveAttribute("href", "https://docs.ros.org/en");
    expect(external).toHaveAttribute("target", "_blank");
    expect(external).toHaveAttribute("rel", "noopener noreferrer nofollow");
    expect(relative).toHaveAttribute("href", "/docs/ros2/topics");
    expect(relative).not.toHaveAttribute("target");
    expect(anchor).toHaveAttribute("href", "#quality-of-service");
  });

  it("does not load images from other hosts: a link stands in for them", () => {
    const view = renderMarkdown(
      "![tracking pixel](https://tracker.example.net/p.png) ![arm](/img/arm.png)",
    );
    const images = view.querySelectorAll("img");
    expect(images).toHaveLength(1);
    expect(images[0]).toHaveAttribute("src", "/img/arm.png");
    expect(images[0]).toHaveAttribute("alt", "arm");
    const link = view.querySelector("a.image-link");
    expect(link).toHaveAttribute("href", "https://tracker.example.net/p.png");
    expect(link).toHaveTextContent("Image: tracking pixel");
    expect(renderMarkdown("![x](javascript:alert(1))").querySelector("img, a")).toBeNull();
  });
});

describe("MarkdownView formatting", () => {
  it("renders code blocks with their language and keeps code verbatim", () => {
    const view = renderMarkdown("Run:\n\n```python\nprint('<b>hi</b>')\n    indented()\n```");
    expect(view.querySelector(".code-language")).toHaveTextContent("python");
    expect(view.querySelector("pre code")?.textContent).toBe("print('<b>hi</b>')\n    indented()");
    expect(view.querySelector("b")).toBeNull();
  });

  it("renders headings, lists, emphasis, inline code and citation markers", () => {
    const view = renderMarkdown(
      "# Topics\n\n- **Publish** with `rclpy` [2]\n- *Subscribe* to ros2_control_node",
    );
    expect(view.querySelector("h3")).toHaveTextContent("Topics");
    expect(view.querySelectorAll("ul > li")).toHaveLength(2);
    expect(view.querySelector("strong")).toHaveTextContent("Publish");
    expect(view.querySelector("em")).toHaveTextContent("Subscribe");
    expect(view.querySelector("code")).toHaveTextContent("rclpy");
    expect(view.querySelector("[data-citation]")).toHaveTextContent("2");
    expect(view).toHaveTextContent("ros2_control_node");
  });

  it("renders a table with its header, in a box that scrolls sideways", () => {
    const view = renderMarkdown(
      "| Flag | Effect |\n| --- | --- |\n| `--packages-select` | Builds only the listed packages [2] |",
    );
    const table = view.querySelector(".table-scroll > table");
    expect(table).not.toBeNull();
    expect([...(table?.querySelectorAll("th") ?? [])].map((cell) => cell.textContent)).toEqual([
      "Flag",
      "Effect",
    ]);
    const cells = table?.querySelectorAll("tbody td") ?? [];
    expect(cells[0]?.querySelector("code")).toHaveTextContent("--packages-select");
    expect(cells[1]?.querySelector("[data-citation='2']")).not.toBeNull();
  });
});
