// Over 300 lines on purpose: one case per Markdown/MDX construct.
import { readFileSync } from "node:fs";
import { LecternError } from "@lectern/engine/errors";
import { describe, expect, it } from "vitest";
import {
  type Block,
  decodeText,
  MarkdownParseError,
  type ParseOptions,
  type ParseWarning,
  parseMarkdown,
  splitFrontmatter,
} from "./markdown.ts";

const FIXTURES = new URL("../../test/fixtures/mdx/", import.meta.url);

function readFixture(name: string): string {
  return decodeText(readFileSync(new URL(name, FIXTURES)), name).text;
}

function parse(source: string, options: Partial<ParseOptions> = {}) {
  return parseMarkdown(source, { filePath: "docs/page.mdx", format: "mdx", ...options });
}

function blocksOf(source: string, options: Partial<ParseOptions> = {}): Block[] {
  return parse(source, options).blocks;
}

/** The text of every block, in order: prose and heading text, code as written. */
function textsOf(source: string, options: Partial<ParseOptions> = {}): string[] {
  return blocksOf(source, options).map((block) =>
    block.kind === "code" ? block.code : block.text,
  );
}

/** 1-based line of the first line containing `needle`. */
function lineOf(source: string, needle: string): number {
  const index = source.split("\n").findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`"${needle}" is not in the source`);
  return index + 1;
}

/** Runs `action`, expecting it to throw an instance of `type`, and returns the error. */
function thrown<T extends Error>(action: () => unknown, type: new (...args: never[]) => T): T {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}`);
}

const parseError = (action: () => unknown) => thrown(action, MarkdownParseError);
const lecternError = (action: () => unknown) => thrown(action, LecternError);

describe("frontmatter", () => {
  it("reads title, slug, id, sidebar_position and a tags list", () => {
    const source = [
      "---",
      "id: launch-files",
      "title: Launch files",
      "slug: /tutorials/launch",
      "sidebar_position: 4",
      "tags: [ros2, launch]",
      "---",
      "",
      "Body text.",
    ].join("\n");
    expect(parse(source).frontmatter).toEqual({
      id: "launch-files",
      title: "Launch files",
      slug: "/tutorials/launch",
      sidebar_position: 4,
      tags: ["ros2", "launch"],
    });
  });

  it("reads a block-style tags list from a real file", () => {
    const parsed = parse(readFixture("launch-files.mdx"));
    expect(parsed.frontmatter.tags).toEqual(["ros2", "launch"]);
    expect(parsed.frontmatter.sidebar_position).toBe(4);
  });

  it("returns an empty object when there is no frontmatter", () => {
    expect(parse("Just text.\n").frontmatter).toEqual({});
    expect(parse("---\n---\nJust text.\n").frontmatter).toEqual({});
  });

  it("does not treat frontmatter as body text", () => {
    const source = "---\ntitle: Hidden title\n---\n\nVisible.\n";
    expect(textsOf(source)).toEqual(["Visible."]);
  });

  it("reports the body's line offset after the frontmatter", () => {
    const split = splitFrontmatter("---\ntitle: A\n---\n\nBody\n", "docs/a.md");
    expect(split.frontmatter).toEqual({ title: "A" });
    expect(split.body).toBe("\nBody\n");
    expect(split.bodyLineOffset).toBe(3);
    expect(splitFrontmatter("No frontmatter\n", "docs/b.md").bodyLineOffset).toBe(0);
  });

  it("counts frontmatter lines in block line numbers", () => {
    const source = "---\ntitle: A\nid: a\n---\n\n## Heading\n\nParagraph.\n";
    const blocks = blocksOf(source);
    expect(blocks.map((block) => block.line)).toEqual([
      lineOf(source, "## Heading"),
      lineOf(source, "Paragraph."),
    ]);
  });

  it("rejects invalid YAML with INVALID_FRONTMATTER, naming the file", () => {
    const source = "---\ntitle: Hello\ntags: [unclosed\nother: 1\n---\n\nBody\n";
    const error = parseError(() => parse(source, { filePath: "docs/bad.mdx" }));
    expect(error.code).toBe("INVALID_FRONTMATTER");
    expect(error.filePath).toBe("docs/bad.mdx");
    expect(error.message).toMatch(/^docs\/bad\.mdx:\d+: invalid frontmatter YAML/);
    expect(error.line).toBeGreaterThanOrEqual(3);
    expect(error.line).toBeLessThanOrEqual(5);
  });

  // Regression: splitFrontmatter adds 2 to js-yaml's 0-based mark.line, but gray-matter hands js-yaml the
  // text that starts with the newline ending the opening "---" line, so mark.line already counts
  // that line. Every reported line is one past the offending line.
  it.each([
    {
      problem: "a badly indented mapping entry",
      source: "---\ntitle: ok\nkey: value\n  nested: wrong\n---\nBody\n",
      culprit: "  nested: wrong",
    },
    {
      problem: "a duplicated key",
      source: "---\ntitle: a\nslug: /x\ntitle: b\n---\nBody\n",
      culprit: "title: b",
    },
    {
      problem: "an unquoted colon in a value",
      source: "---\ntitle: Launch: files\n---\nBody\n",
      culprit: "title: Launch: files",
    },
  ])("reports the line of $problem in the frontmatter", ({ source, culprit }) => {
    const error = parseError(() => splitFrontmatter(source, "docs/bad.md"));
    expect(error.code).toBe("INVALID_FRONTMATTER");
    expect(error.line).toBe(lineOf(source, culprit));
  });

  it("refuses a YAML alias bomb instead of expanding it", () => {
    const source = readFileSync(new URL("../yaml-alias-bomb.md", FIXTURES), "utf8");
    expect(source.length).toBeLessThan(1_000);
    const error = parseError(() => splitFrontmatter(source, "docs/bomb.md"));
    expect(error.code).toBe("INVALID_FRONTMATTER");
    expect(error.reason).toMatch(/aliases/);
    expect(error.message).toMatch(/^docs\/bomb\.md/);
  });

  it("keeps frontmatter whose aliases expand modestly", () => {
    const source =
      "---\nauthor: &me { name: Ada, url: https://example.com }\nreviewer: *me\ntags: &t [a, b]\nkeywords: *t\n---\nBody\n";
    expect(splitFrontmatter(source, "docs/a.md").frontmatter).toEqual({
      author: { name: "Ada", url: "https://example.com" },
      reviewer: { name: "Ada", url: "https://example.com" },
      tags: ["a", "b"],
      keywords: ["a", "b"],
    });
  });

  it("rejects frontmatter that is not a mapping", () => {
    const error = parseError(() => parse("---\n- a\n- b\n---\nBody\n"));
    expect(error.code).toBe("INVALID_FRONTMATTER");
    expect(error.reason).toContain("mapping");
  });
});

describe("headings", () => {
  it("keeps depth and text, with inline code and emphasis as plain text", () => {
    const blocks = blocksOf("# Title\n\n## The `useDoc` *hook*\n\n###### Deep\n");
    expect(blocks).toEqual([
      { kind: "heading", depth: 1, text: "Title", line: 1 },
      { kind: "heading", depth: 2, text: "The useDoc hook", line: 3 },
      { kind: "heading", depth: 6, text: "Deep", line: 5 },
    ]);
  });

  it("separates an explicit {#id} from the heading text", () => {
    const blocks = blocksOf("## Topic {#custom-id}\n\nText.\n\n### Sub topic {#sub}\n");
    expect(blocks[0]).toEqual({
      kind: "heading",
      depth: 2,
      text: "Topic",
      explicitId: "custom-id",
      line: 1,
    });
    expect(blocks[2]).toMatchObject({ text: "Sub topic", explicitId: "sub" });
  });

  it("gives a heading without {#id} no explicitId", () => {
    const [heading] = blocksOf("## Plain heading\n");
    expect(heading).not.toHaveProperty("explicitId");
  });

  it("leaves {#id} inside fenced code untouched", () => {
    const source = [
      "```md",
      "## Inside a fence {#not-an-id}",
      "```",
      "",
      "~~~",
      "```",
      "## Still inside {#also-not}",
      "~~~",
      "",
      "## Outside {#real}",
    ].join("\n");
    const blocks = blocksOf(source);
    expect(blocks).toEqual([
      { kind: "code", lang: "md", code: "## Inside a fence {#not-an-id}", line: 1 },
      { kind: "code", lang: "", code: "```\n## Still inside {#also-not}", line: 5 },
      { kind: "heading", depth: 2, text: "Outside", explicitId: "real", line: 10 },
    ]);
  });

  it("handles {#id} in .md files too", () => {
    const [heading] = blocksOf("## Topic {#topic-id}\n", { format: "md" });
    expect(heading).toMatchObject({ text: "Topic", explicitId: "topic-id" });
  });
});

describe("admonitions", () => {
  it.each([
    { source: ":::note\n\nA note body.\n\n:::\n", expected: "Note: A note body." },
    { source: ":::tip Title words\n\nTip body.\n\n:::\n", expected: "Title words: Tip body." },
    {
      source: ":::warning[Bracket title]\n\nWarn body.\n\n:::\n",
      expected: "Bracket title: Warn body.",
    },
    { source: ":::danger\n\nDanger body.\n\n:::\n", expected: "Danger: Danger body." },
    { source: ":::info\n\nInfo body.\n\n:::\n", expected: "Info: Info body." },
    { source: ":::caution\nTight body.\n:::\n", expected: "Caution: Tight body." },
  ])("turns $source into prose prefixed with its title", ({ source, expected }) => {
    const bodyLine = lineOf(source, "body.");
    expect(blocksOf(source)).toEqual([{ kind: "prose", text: expected, line: bodyLine }]);
  });

  it("puts the title on its own when the admonition starts with code", () => {
    const blocks = blocksOf(":::tip\n\n```bash\nls -la\n```\n\n:::\n");
    expect(blocks).toEqual([
      { kind: "prose", text: "Tip:", line: 1 },
      { kind: "code", lang: "bash", code: "ls -la", line: 3 },
    ]);
  });

  it("puts the title on its own when the admonition starts with a list or a table", () => {
    expect(
      textsOf(":::tip What You'll Learn\n\n- How to create a store\n- How to use it\n\n:::\n"),
    ).toEqual(["What You'll Learn:", "- How to create a store\n- How to use it"]);
    expect(
      textsOf(":::info\n\n| Flag | Effect |\n| --- | --- |\n| -v | verbose |\n\n:::\n")[0],
    ).toBe("Info:");
  });

  it("keeps every paragraph of an admonition, titling only the first", () => {
    const texts = textsOf(":::note\n\nFirst.\n\nSecond.\n\n:::\n");
    expect(texts).toEqual(["Note: First.", "Second."]);
  });

  it("keeps the content of an unknown directive without a title", () => {
    const texts = textsOf(":::details[Summary]\n\nHidden body.\n\n:::\n");
    expect(texts).toEqual(["Hidden body."]);
  });

  it("titles a legacy admonition in a .md file", () => {
    expect(textsOf(":::tip Pro tip\n\nBody.\n\n:::\n", { format: "md" })).toEqual([
      "Pro tip: Body.",
    ]);
  });
});

describe("MDX: JSX, imports and expressions", () => {
  it("keeps fenced code inside <Tabs>/<TabItem> with its language", () => {
    const source = [
      "import Tabs from '@theme/Tabs';",
      "import TabItem from '@theme/TabItem';",
      "",
      "<Tabs>",
      '  <TabItem value="py" label="Python">',
      "",
      "```python",
      'print("hi")',
      "```",
      "",
      "  </TabItem>",
      '  <TabItem value="cpp" label="C++">',
      "",
      "```cpp",
      "int main() {}",
      "```",
      "",
      "  </TabItem>",
      "</Tabs>",
    ].join("\n");
    expect(blocksOf(source)).toEqual([
      { kind: "code", lang: "python", code: 'print("hi")', line: 7 },
      { kind: "code", lang: "cpp", code: "int main() {}", line: 14 },
    ]);
  });

  it("keeps the text inside arbitrary JSX children", () => {
    const source = [
      '<div className="box">',
      "",
      "Text inside a div.",
      "",
      "</div>",
      "",
      '<Card title="ignored attribute">Inline card text</Card>',
      "",
      "A paragraph with <Highlight color='red'>highlighted words</Highlight> inside.",
    ].join("\n");
    expect(textsOf(source)).toEqual([
      "Text inside a div.",
      "Inline card text",
      "A paragraph with highlighted words inside.",
    ]);
  });

  it("drops import and export lines", () => {
    const source = [
      "import Tabs from '@theme/Tabs';",
      "export const robot = 'turtle';",
      "",
      "Only this.",
      "",
      "export function helper() { return 1; }",
    ].join("\n");
    expect(textsOf(source)).toEqual(["Only this."]);
  });

  // Docusaurus reads `.md` as MDX unless a site opts out: module statements there are code too.
  it.each([
    {
      name: "an import of a component",
      source: "import Redirect from '@site/src/components/Redirect'\n\nOnly this.",
      texts: ["Only this."],
    },
    {
      name: "several imports, a namespace and a side effect",
      source:
        "import * as user from '../user';\nimport { A, B } from './ab';\nimport './x.css'\n\nOnly this.",
      texts: ["Only this."],
    },
    {
      name: "an export running to the paragraph's end",
      source: "Only this.\n\nexport const toc = [\n  { id: 'a' },\n];",
      texts: ["Only this."],
    },
    {
      name: "a sentence that starts with the word import",
      source: "import the package from the registry before you start.",
      texts: ["import the package from the registry before you start."],
    },
    {
      name: "an import line inside a sentence's paragraph",
      source: "Write this:\nimport x from 'y'",
      texts: ["Write this:\nimport x from 'y'"],
    },
    {
      name: "an import in a code block",
      source: "```js\nimport x from 'y'\n```",
      texts: ["import x from 'y'"],
    },
  ])("drops module statements from a .md page: $name", ({ source, texts }) => {
    expect(textsOf(source, { filePath: "docs/page.md", format: "md" })).toEqual(texts);
  });

  it("lists partials imported by a .md page", () => {
    const source = "import Shared from './_shared.md'\n\nText.";
    expect(parse(source, { filePath: "docs/page.md", format: "md" }).imports).toEqual(
      new Map([["Shared", "./_shared.md"]]),
    );
  });

  it("drops {expressions}, inline and on their own line", () => {
    const texts = textsOf("Robot {props.name} is ready{/* comment */}.\n\n{someFlow}\n\nEnd.\n");
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^Robot\s+is ready\.$/);
    expect(texts[1]).toBe("End.");
    expect(texts.join(" ")).not.toMatch(/props|comment|someFlow/);
  });

  it("lists imported Markdown partials by component name, and only those", () => {
    const source = [
      "import Shared from './_shared.mdx';",
      "import Other from '../common/_other.md';",
      "import Tabs from '@theme/Tabs';",
      "import data from './data.json';",
    ].join("\n");
    expect(parse(source).imports).toEqual(
      new Map([
        ["Shared", "./_shared.mdx"],
        ["Other", "../common/_other.md"],
      ]),
    );
  });
});

describe("partials", () => {
  const source = [
    "import Shared from './_shared.mdx';",
    "",
    "Before.",
    "",
    "<Shared />",
    "",
    "After.",
  ].join("\n");

  it("replaces a partial's element with the blocks resolvePartial returns", () => {
    const partialBlocks: Block[] = [
      { kind: "prose", text: "Shared content.", line: 1 },
      { kind: "code", lang: "bash", code: "source install/setup.bash", line: 3 },
    ];
    const requested: string[] = [];
    const blocks = blocksOf(source, {
      resolvePartial: (specifier) => {
        requested.push(specifier);
        return partialBlocks;
      },
    });
    expect(requested).toEqual(["./_shared.mdx"]);
    expect(blocks.map((block) => (block.kind === "code" ? block.code : block.text))).toEqual([
      "Before.",
      "Shared content.",
      "source install/setup.bash",
      "After.",
    ]);
  });

  it("keeps the element's children when resolvePartial returns undefined", () => {
    const withChildren = [
      "import Other from './_other.md';",
      "",
      "<Other>",
      "",
      "Fallback child text.",
      "",
      "</Other>",
    ].join("\n");
    expect(textsOf(withChildren, { resolvePartial: () => undefined })).toEqual([
      "Fallback child text.",
    ]);
    expect(textsOf(withChildren)).toEqual(["Fallback child text."]);
  });

  it("does not ask to resolve elements that are not imported partials", () => {
    const requested: string[] = [];
    blocksOf("<Admonition>\n\nText.\n\n</Admonition>\n", {
      resolvePartial: (specifier) => {
        requested.push(specifier);
        return [];
      },
    });
    expect(requested).toEqual([]);
  });

  it("inlines a real partial file into a real page", () => {
    const partial = parse(readFixture("_source-workspace.mdx"), {
      filePath: "_source-workspace.mdx",
    });
    const page = parse(readFixture("launch-files.mdx"), {
      filePath: "launch-files.mdx",
      resolvePartial: (specifier) =>
        specifier === "./_source-workspace.mdx" ? partial.blocks : undefined,
    });
    const texts = page.blocks.map((block) => (block.kind === "code" ? block.code : block.text));
    const admonitionIndex = texts.indexOf(
      "Prefer Python launch files: Python launch files can use conditions and substitutions.",
    );
    expect(admonitionIndex).toBeGreaterThan(0);
    expect(texts.slice(admonitionIndex + 1, admonitionIndex + 4)).toEqual([
      "Source the workspace before launching anything.",
      "source install/setup.bash",
      "Parameters",
    ]);
  });
});

describe("a full Docusaurus page", () => {
  const source = readFixture("launch-files.mdx");
  const blocks = parseMarkdown(source, { filePath: "launch-files.mdx", format: "mdx" }).blocks;

  it("yields headings, prose, code and tables in document order with source lines", () => {
    expect(blocks).toEqual([
      { kind: "heading", depth: 1, text: "Launch files", line: lineOf(source, "# Launch files") },
      {
        kind: "prose",
        // The {robotName} expression is dropped; only its text is gone.
        text: expect.stringMatching(/^Launch files start several nodes at once for the robot ?\.$/),
        line: lineOf(source, "Launch files start"),
      },
      {
        kind: "heading",
        depth: 2,
        text: "Writing a launch file",
        explicitId: "writing",
        line: lineOf(source, "## Writing"),
      },
      {
        kind: "code",
        lang: "python",
        code: "from launch import LaunchDescription",
        line: lineOf(source, "```python"),
      },
      {
        kind: "code",
        lang: "xml",
        code: '<launch><node pkg="demo_nodes_cpp" exec="talker"/></launch>',
        line: lineOf(source, "```xml"),
      },
      {
        kind: "prose",
        text: "Prefer Python launch files: Python launch files can use conditions and substitutions.",
        line: lineOf(source, "Python launch files can"),
      },
      { kind: "heading", depth: 2, text: "Parameters", line: lineOf(source, "## Parameters") },
      {
        kind: "prose",
        text: "Name | Default\nuse_sim_time | false",
        line: lineOf(source, "| Name"),
        table: true,
      },
      {
        kind: "prose",
        text: "Start the node at 10:30 and publish std_msgs:String messages.",
        line: lineOf(source, "Start the node"),
      },
    ]);
  });
});

describe("Markdown constructs", () => {
  it("keeps fenced code with its language, and without one", () => {
    expect(blocksOf('```ts title="a.ts"\nconst a = 1;\n```\n\n```\nplain\n```\n')).toEqual([
      { kind: "code", lang: "ts", code: "const a = 1;", line: 1 },
      { kind: "code", lang: "", code: "plain", line: 5 },
    ]);
  });

  it("drops Docusaurus's highlight comments from code, in each comment style, and only those", () => {
    const source = [
      "```jsx",
      "function App() {",
      "  // highlight-next-line",
      "  const a = 1;",
      "  return (",
      "    {/* highlight-start */}",
      "    <div>{a}</div>",
      "    {/* highlight-end */}",
      "  );",
      "}",
      "// a highlight-start in prose stays",
      "```",
      "",
      "```bash",
      "# highlight-next-line",
      "npm install",
      "```",
      "",
      "- In a list:",
      "  ```js",
      "  /* highlight-start */",
      "  x();",
      "  /* highlight-end */",
      "  ```",
      "",
    ].join("\n");
    const blocks = blocksOf(source);
    expect(blocks[0]).toMatchObject({
      kind: "code",
      code: [
        "function App() {",
        "  const a = 1;",
        "  return (",
        "    <div>{a}</div>",
        "  );",
        "}",
        "// a highlight-start in prose stays",
      ].join("\n"),
    });
    expect(blocks[1]).toMatchObject({ kind: "code", code: "npm install" });
    expect(blocks[2]).toMatchObject({
      kind: "prose",
      text: "- In a list:\n  ```js\n  x();\n  ```",
    });
  });

  it("keeps code inside a list item fenced and indented under it, and the item's text after it", () => {
    const source = [
      "- Import it only when needed:",
      "",
      "  ```js",
      "  const store = createStore(",
      "    reducer,",
      "",
      "    applyMiddleware(...middleware)",
      "  )",
      "  ```",
      "",
      "  This makes builds smaller.",
      "",
      "- Nested:",
      "  - one",
      "",
      "  And more text.",
      "- Last item.",
    ].join("\n");
    expect(blocksOf(source)).toEqual([
      {
        kind: "prose",
        line: 1,
        text: [
          "- Import it only when needed:",
          "  ```js",
          "  const store = createStore(",
          "    reducer,",
          "",
          "    applyMiddleware(...middleware)",
          "  )",
          "  ```",
          "  This makes builds smaller.",
          "- Nested:",
          "  - one",
          "  And more text.",
          "- Last item.",
        ].join("\n"),
      },
    ]);
  });

  it("keeps indented code", () => {
    const blocks = blocksOf("Para.\n\n    indented code\n", { format: "md" });
    expect(blocks[1]).toEqual({ kind: "code", lang: "", code: "indented code", line: 3 });
  });

  it("renders a GFM table as 'a | b' rows", () => {
    const texts = textsOf("| a | b |\n|---|---|\n| 1 | 2 |\n| `x` | [link](https://e.org) |\n");
    expect(texts).toEqual(["a | b\n1 | 2\nx | link"]);
  });

  it("renders unordered, ordered and nested lists", () => {
    const texts = textsOf(
      "- one\n- two\n  - nested\n  - nested too\n- three\n\n1. first\n2. second\n   1. second-a\n",
    );
    expect(texts).toEqual([
      "- one\n- two\n  - nested\n  - nested too\n- three",
      "1. first\n2. second\n  1. second-a",
    ]);
  });

  it("keeps the text of task list items", () => {
    expect(textsOf("- [ ] todo\n- [x] done\n")).toEqual(["- todo\n- done"]);
  });

  it("keeps inline code, link text and image alt text", () => {
    const texts = textsOf(
      "Run `npm run build`, read [the guide](https://example.com), see ![a diagram](d.png).\n",
    );
    expect(texts).toEqual(["Run npm run build, read the guide, see a diagram."]);
  });

  it("keeps a figure (a paragraph of images alone) as a Markdown image, its alt text searchable", () => {
    expect(
      textsOf(
        "Dispatching it logs the action.\n\n![`createAsyncThunk`: posts pending action](/img/pending.png)\n\nWe can listen for this action.\n",
      ),
    ).toEqual([
      "Dispatching it logs the action.",
      "![createAsyncThunk: posts pending action]()",
      "We can listen for this action.",
    ]);
    // Badges (images inside links) too, one per line; brackets in an alt text are dropped.
    expect(textsOf("[![build [main]](b.svg)](https://ci) [![npm](n.svg)](https://npm)\n")).toEqual([
      "![build main]()\n![npm]()",
    ]);
  });

  it("keeps blockquotes", () => {
    expect(textsOf("> Quoted wisdom.\n")).toEqual(["Quoted wisdom."]);
  });

  it("drops thematic breaks and link definitions", () => {
    expect(
      textsOf("Above.\n\n---\n\n[ref]: https://example.com\n\nBelow.\n", { format: "md" }),
    ).toEqual(["Above.", "Below."]);
  });

  it.each([
    "Meet at 10:30 today.",
    "Publish std_msgs:String messages.",
    "Use ros2 run pkg node --ros-args -r __node:=talker now.",
    "Ratio 16:9 and a:b notation.",
  ])("does not lose text that looks like a directive: %s", (text) => {
    expect(textsOf(`${text}\n`)).toEqual([text]);
    expect(textsOf(`${text}\n`, { format: "md" })).toEqual([text]);
  });
});

describe(".md files", () => {
  it("drops HTML comments and keeps the text of HTML elements", () => {
    const texts = textsOf(readFixture("legacy-page.md"), {
      filePath: "legacy-page.md",
      format: "md",
    });
    expect(texts.join("\n")).not.toContain("hidden from readers");
    expect(texts.map((text) => text.replace(/\s+/g, " "))).toEqual([
      "Intro paragraph with bold HTML.",
      "More detail",
      "Hidden detail text.",
      "Use a tag and a {placeholder} in CommonMark.",
    ]);
  });

  it("keeps JSX-like elements' text in .md files that parse as MDX", () => {
    expect(textsOf("<div>\n\nInside.\n\n</div>\n", { format: "md" })).toEqual(["Inside."]);
  });

  // Regression: stripTags removes `<[^>]*>`, so an HTML comment that contains ">" (an arrow such as
  // "a -> b", or "x > y") leaks the part after the ">" into the indexed text.
  it("drops an HTML comment that contains '>'", () => {
    const texts = textsOf("<!-- TODO: old -> new wording -->\n\nVisible.\n", { format: "md" });
    expect(texts).toEqual(["Visible."]);
  });
});

describe("pages MDX cannot parse", () => {
  /** The one warning a parse produced. */
  function onlyWarning(parsed: ReturnType<typeof parse>): ParseWarning {
    expect(parsed.warnings).toHaveLength(1);
    const [warning] = parsed.warnings;
    if (!warning) throw new Error("expected a warning");
    return warning;
  }

  it("reads an unclosed <Tabs> in .mdx as CommonMark, warning at the unclosed tag's line", () => {
    const source = readFixture("unclosed-tabs.mdx");
    const parsed = parse(source, { filePath: "unclosed-tabs.mdx" });
    expect(parsed.blocks.map((block) => (block.kind === "code" ? block.code : block.text))).toEqual(
      ["Broken tabs", "Some introduction.", "Content of tab A."],
    );
    const warning = onlyWarning(parsed);
    expect(warning.filePath).toBe("unclosed-tabs.mdx");
    expect(warning.reason).toContain("<TabItem>");
    expect(warning.reason).toMatch(/^cannot parse MDX: .*; indexed as CommonMark$/);
    // The innermost unclosed element, counted from the top of the file (frontmatter included).
    expect(warning.line).toBe(lineOf(source, "<TabItem"));
    expect(warning.message).toBe(`unclosed-tabs.mdx:${warning.line}: ${warning.reason}`);
  });

  it("warns about an unclosed outer element at its own line", () => {
    const source = "---\ntitle: T\n---\n\nIntro.\n\n<Tabs>\n\nContent.\n";
    const parsed = parse(source);
    expect(onlyWarning(parsed).line).toBe(lineOf(source, "<Tabs>"));
    expect(textsOf(source)).toEqual(["Intro.", "Content."]);
  });

  it("warns about a mismatched closing tag at the closing tag's line", () => {
    const source = "---\ntitle: T\n---\n\n<Tabs>\n  <TabItem>\n\nContent.\n\n</Tabs>\n";
    expect(onlyWarning(parse(source)).line).toBe(lineOf(source, "</Tabs>"));
  });

  it("keeps the text around a stray { in .mdx, warning at its line", () => {
    const source = readFixture("stray-brace.mdx");
    const parsed = parse(source, { filePath: "stray-brace.mdx" });
    expect(onlyWarning(parsed).line).toBe(lineOf(source, "as { in"));
    expect(parsed.blocks).toEqual([
      { kind: "prose", text: "A first paragraph.", line: lineOf(source, "A first") },
      { kind: "prose", text: "Pass the value as { in a template.", line: lineOf(source, "as {") },
      { kind: "prose", text: "A last paragraph.", line: lineOf(source, "A last") },
    ]);
  });

  it("warns about an HTML comment in .mdx at its line and drops the comment", () => {
    const parsed = parse("Visible.\n\n<!-- hidden -->\n");
    expect(onlyWarning(parsed).line).toBe(3);
    expect(parsed.blocks.map((block) => block.kind === "prose" && block.text)).toEqual([
      "Visible.",
    ]);
  });

  it("reads the same broken content in a .md file as CommonMark, without a warning", () => {
    const tabs = readFixture("unclosed-tabs.mdx");
    const parsed = parse(tabs, { format: "md" });
    expect(parsed.warnings).toEqual([]);
    expect(textsOf(tabs, { format: "md" })).toEqual([
      "Broken tabs",
      "Some introduction.",
      "Content of tab A.",
    ]);
  });

  it("parses a valid page without warnings", () => {
    expect(parse("# Title\n\n<Tabs>\n\nBody.\n\n</Tabs>\n").warnings).toEqual([]);
  });

  it("still rejects invalid frontmatter in a .md file", () => {
    const error = parseError(() => parse("---\ntitle: [x\n---\nBody\n", { format: "md" }));
    expect(error.code).toBe("INVALID_FRONTMATTER");
  });
});

describe("math", () => {
  it("keeps block math as a math code block and inline math in the prose, without warnings", () => {
    const source = readFixture("math.mdx");
    const parsed = parse(source, { filePath: "math.mdx" });
    expect(parsed.warnings).toEqual([]);
    expect(parsed.blocks).toEqual([
      { kind: "heading", depth: 1, text: "Ratios", line: lineOf(source, "# Ratios") },
      {
        kind: "prose",
        text: "A ratio $\\frac{a}{b}$ compares two quantities, such as $x^{2}$ and $y$.",
        line: lineOf(source, "A ratio"),
      },
      { kind: "code", lang: "math", code: "\\frac{a}{b}", line: lineOf(source, "$$\\frac") },
      {
        kind: "code",
        lang: "math",
        code: "\\tau = \\frac{F}{r} \\cdot \\sin{\\theta}",
        line: lineOf(source, "\\tau") - 1,
      },
      {
        kind: "prose",
        text: "The torque grows with the lever arm.",
        line: lineOf(source, "The torque"),
      },
    ]);
  });

  it("parses math in .md files the same way", () => {
    expect(blocksOf("Area $\\pi r^{2}$.\n\n$$\ne^{i\\pi}\n$$\n", { format: "md" })).toEqual([
      { kind: "prose", text: "Area $\\pi r^{2}$.", line: 1 },
      { kind: "code", lang: "math", code: "e^{i\\pi}", line: 3 },
    ]);
  });

  it.each([
    [
      "shell variables in bold",
      "If the **$HOME** variable is set, then **$HOME/cache**.",
      "If the $HOME variable is set, then $HOME/cache.",
    ],
    ["a price and a variable", "Pay $5 when **$TIER** is set.", "Pay $5 when $TIER is set."],
  ])("reads dollar signs that are no math as prose: %s", (_what, source, text) => {
    expect(textsOf(`${source}\n`)).toEqual([text]);
  });

  it("leaves prices with dollar signs as they were written", () => {
    expect(textsOf("It costs $5 and $10 today.\n")).toEqual(["It costs $5 and $10 today."]);
  });
});

describe("decodeText", () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it("decodes UTF-8 text", () => {
    expect(decodeText(encode("Grüße, 世界\n"), "docs/a.md")).toEqual({
      text: "Grüße, 世界\n",
      warning: undefined,
    });
  });

  it("drops NUL bytes from text, keeping the rest, with a warning naming the first one's line", () => {
    const bytes = encode("# Jars\r\n\r\nWash\u0000 the jars.\u0000\n");
    const { text, warning } = decodeText(bytes, "docs/jars.md");
    expect(text).toBe("# Jars\n\nWash the jars.\n");
    expect(warning?.message).toBe(
      "docs/jars.md:3: dropped 2 NUL bytes (not text); the rest of the page is indexed",
    );
  });

  it("rejects a binary file or one of NUL bytes only with BINARY_FILE, naming the file", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]);
    const image = lecternError(() => decodeText(png, "docs/image.md"));
    expect(image.code).toBe("BINARY_FILE");
    expect(image.message).toBe(
      "docs/image.md: not a text file (contains NUL bytes and is not valid UTF-8)",
    );
    const zeros = lecternError(() => decodeText(new Uint8Array([0, 0, 10, 0]), "docs/zeros.md"));
    expect(zeros.code).toBe("BINARY_FILE");
    expect(zeros.message).toContain("docs/zeros.md");
  });

  it("rejects invalid UTF-8 with BINARY_FILE, naming the file", () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    const error = lecternError(() => decodeText(latin1, "docs/latin1.md"));
    expect(error.code).toBe("BINARY_FILE");
    expect(error.message).toContain("docs/latin1.md");
    expect(error.message).toContain("UTF-8");
  });

  it("strips a byte-order mark", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encode("---\ntitle: A\n---\n")]);
    const { text } = decodeText(bytes, "docs/bom.md");
    expect(text).toBe("---\ntitle: A\n---\n");
    expect(parse(text).frontmatter).toEqual({ title: "A" });
  });

  it("normalises CRLF and lone CR line endings to LF", () => {
    expect(decodeText(encode("a\r\nb\rc\n"), "docs/crlf.md").text).toBe("a\nb\nc\n");
  });

  it("lets a CRLF file with frontmatter parse with the right line numbers", () => {
    const text = decodeText(encode("---\r\ntitle: A\r\n---\r\n\r\nBody.\r\n"), "docs/crlf.md").text;
    const parsed = parse(text);
    expect(parsed.frontmatter).toEqual({ title: "A" });
    expect(parsed.blocks).toEqual([{ kind: "prose", text: "Body.", line: 5 }]);
  });
});
