import { describe, expect, it } from "vitest";
import type { PageSummary } from "../book/records.ts";
import { chunkRecord } from "../search/test-builders.ts";
import {
  followUpQuestions,
  OVERVIEW_QUESTION,
  questionAbout,
  starterQuestions,
} from "./suggestions.ts";

describe("questionAbout", () => {
  it("asks about a heading in the reader's words, keeping names and acronyms", () => {
    expect(questionAbout("Topics and Messages")).toBe(
      "What should I know about topics and messages?",
    );
    expect(questionAbout("A first Python launch file")).toBe(
      "What should I know about a first Python launch file?",
    );
    expect(questionAbout("Command-line tools")).toBe(
      "What should I know about command-line tools?",
    );
    expect(questionAbout("Describing a Robot with URDF")).toBe(
      "What should I know about describing a robot with URDF?",
    );
    expect(questionAbout("Simulating Robots in Gazebo")).toBe(
      "What should I know about simulating robots in Gazebo?",
    );
    expect(questionAbout("What Is Robotics Software?")).toBe("What Is Robotics Software?");
    expect(questionAbout("How tf2 works")).toBe("How tf2 works?");
  });

  it.each([
    ["What a simulator does", "What should I know about what a simulator does?"],
    ["Who this book is for", "What should I know about who this book is for?"],
    ["Where the gap comes from", "What should I know about where the gap comes from?"],
    ["How does the cache work", "How does the cache work?"],
    ["Can a node have two publishers", "Can a node have two publishers?"],
  ])("asks about a heading that is a clause, not a question: %j", (heading, question) => {
    expect(questionAbout(heading)).toBe(question);
  });
});

const page = (filePath: string, title: string, part: string, position?: number): PageSummary => ({
  filePath,
  title,
  url: `/docs/${filePath}`,
  categories: part ? [part] : [],
  position,
});

describe("starterQuestions", () => {
  it("starts with the book as a whole, then the first page of each part, never the intro", () => {
    const pages = [
      page("index.md", "Welcome", ""),
      page("basics/b.md", "Launch Files", "Basics", 2),
      page("basics/a.md", "Nodes", "Basics", 1),
      page("sim/gazebo.md", "Simulating Robots in Gazebo", "Simulation", 1),
    ];
    expect(starterQuestions(pages, "index.md")).toEqual([
      OVERVIEW_QUESTION,
      "What should I know about nodes?",
      "What should I know about simulating robots in Gazebo?",
    ]);
    expect(starterQuestions(pages, "index.md", 2)).toHaveLength(2);
  });
});

describe("followUpQuestions", () => {
  const chunk = (index: number, section: string, text = "Body text.") => ({
    ...chunkRecord(`c${index}`, text, section),
    filePath: "topics.md",
    title: "Topics",
    chunkIndex: index,
  });

  it("offers the sections after the quoted one, then those before it, never the quoted one", () => {
    const page = [
      chunk(0, "Topics"),
      chunk(1, "Publishing", "Text.\n\n## Subscribing\n\nMore."),
      chunk(2, "Quality of service"),
      chunk(3, "Command-line tools"),
    ];
    expect(followUpQuestions(page[1] as ReturnType<typeof chunk>, page)).toEqual([
      "What should I know about quality of service?",
      "What should I know about command-line tools?",
    ]);
    expect(followUpQuestions(page[3] as ReturnType<typeof chunk>, page, 2)).toEqual([
      "What should I know about quality of service?",
      "What should I know about publishing?",
    ]);
  });

  it("leaves out a heading that stands over several sections of the page", () => {
    const section = (index: number, heading: string, anchor: string, merged?: string) => ({
      ...chunk(index, heading, merged ? `Text.\n\n## ${merged}\n\nMore.` : "Text."),
      url: `/docs/topics#${anchor}`,
      ...(merged
        ? { sectionAnchors: [{ heading: merged, anchor: `${anchor}-x`, headingPath: [] }] }
        : {}),
    });
    const page = [
      section(0, "create()", "create"),
      section(1, "Arguments", "arguments"),
      section(2, "Arguments", "arguments", "Returns"),
      section(3, "destroy()", "destroy"),
      section(4, "Arguments", "arguments-1"),
      section(5, "RETURNS", "returns"),
      section(6, "Notes", "notes"),
    ];
    expect(followUpQuestions(page[0] as ReturnType<typeof chunk>, page)).toEqual([
      "What should I know about destroy()?",
      "What should I know about notes?",
    ]);
  });

  it("leaves out the sections the answer already shows", () => {
    const page = [chunk(0, "Topics"), chunk(1, "Publishing"), chunk(2, "Quality of service")];
    expect(followUpQuestions(page[0] as ReturnType<typeof chunk>, page, 3, ["Publishing"])).toEqual(
      ["What should I know about quality of service?"],
    );
  });
});
