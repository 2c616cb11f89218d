import { describe, expect, it } from "vitest";
import { retrievedChunk } from "../search/test-builders.ts";
import {
  EXTRACTIVE_FALLBACK_MESSAGE,
  ExtractiveSynthesizer,
  SELECTION_UNANSWERABLE_MESSAGE,
  selectionSearch,
} from "./answer-synthesizer.ts";

const result = (id: string, text: string, heading: string) =>
  retrievedChunk(id, text, heading, 0.8, 0.6);

const SELECTION =
  "Lithium cells power most small robots. Never discharge a cell below three volts. A deeply discharged cell can swell. Store packs half charged in a fireproof bag. Balance chargers keep the cells of a pack at the same voltage.";

const BOOK = [
  result(
    "servos",
    "A servo holds its angle with a feedback loop. The controller compares the target angle and the measured angle.",
    "Servos",
  ),
];

describe("ExtractiveSynthesizer in selected-text mode", () => {
  const synthesizer = new ExtractiveSynthesizer();

  it("answers a question about the selection from the selection, quoting a few sentences", async () => {
    const output = await synthesizer.synthesize({
      question: "What happens if I discharge a cell too far?",
      results: BOOK,
      selectedText: SELECTION,
    });
    expect(output).toMatchObject({
      answer: "Never discharge a cell below three volts. A deeply discharged cell can swell. [1]",
      mode: "selected_text",
      answeredFromSelection: true,
      citedNumbers: [1],
      fallbackMessage: EXTRACTIVE_FALLBACK_MESSAGE,
    });
  });

  it("explains the selection without echoing all of it", async () => {
    const output = await synthesizer.synthesize({
      question: "Explain this in simpler terms",
      results: [],
      selectedText: SELECTION,
    });
    expect(output.answeredFromSelection).toBe(true);
    const quoted = (output.answer ?? "").replace(/ \[1\]$/, "");
    expect(SELECTION).toContain(quoted);
    expect(quoted.length).toBeLessThan(SELECTION.length);
    expect(quoted.split(/(?<=\.)\s+/).length).toBeLessThanOrEqual(3);
  });

  it("answers a question beyond the selection from the book, numbering book sources from [2]", async () => {
    const output = await synthesizer.synthesize({
      question: "How does a servo hold its angle?",
      results: BOOK,
      selectedText: SELECTION,
    });
    // The book's section, cited after the selection ([1]).
    expect(output.answer).toBe(
      "**Servos** [2]\n\n**A servo holds its angle with a feedback loop.** The controller compares the target angle and the measured angle.",
    );
    expect(output).toMatchObject({
      mode: "selected_text",
      answeredFromSelection: false,
      citedNumbers: [2],
    });
  });

  it("says the selection cannot answer when neither it nor the book passages help", async () => {
    for (const results of [[], BOOK]) {
      const output = await synthesizer.synthesize({
        question: "Which GPS receiver should a drone use?",
        results: results.length > 0 ? [result("gps", "| Model | Price |", "Table")] : [],
        selectedText: SELECTION,
      });
      expect(output).toMatchObject({
        answer: SELECTION_UNANSWERABLE_MESSAGE,
        answeredFromSelection: false,
        fallbackMessage: null,
      });
    }
  });
});

describe("ExtractiveSynthesizer: a short selection and the book around it", () => {
  const synthesizer = new ExtractiveSynthesizer();
  const SENTENCE =
    "The state publisher sends the model with transient-local durability, so late joiners still receive it.";
  const around = result(
    "publisher",
    `The state publisher reads the robot model at start-up. ${SENTENCE}`,
    "Publishing the model",
  );
  const qos = result(
    "qos",
    "Transient-local durability means a publisher keeps its last messages and hands them to any subscription that joins later.",
    "Quality of Service",
  );

  it("answers from the book when quoting the selection would only give it back", async () => {
    const output = await synthesizer.synthesize({
      question: "What does transient-local durability mean?",
      results: [around, qos],
      selectedText: SENTENCE,
    });
    expect(output).toMatchObject({ answeredFromSelection: false });
    // The section defining the term, not the selection's own section.
    expect(output.answer).toBe(
      "**Quality of Service** [3]\n\nTransient-local durability means a publisher keeps its last messages and hands them to any subscription that joins later.",
    );
    expect(output.citedNumbers?.[0]).toBe(3);
    expect(output.answer).not.toContain(`**${SENTENCE}**`);
  });

  it("answers what a term of a longer selection means from the book, not with its sentence", async () => {
    const selection = `Static frames never move. ${SENTENCE} Dynamic frames are sent many times a second.`;
    const output = await synthesizer.synthesize({
      question: "What does durability mean?",
      results: [around, qos],
      selectedText: selection,
    });
    expect(output.answer).toContain("**Quality of Service** [3]");
    expect(output.answer).not.toContain(SENTENCE);
  });

  it("explains a selection with the book around it, its own sentences left out", async () => {
    const output = await synthesizer.synthesize({
      question: "Explain this",
      results: [around, qos],
      selectedText: `${SENTENCE} Late joiners are nodes started after the publisher.`,
    });
    expect(output.answer).toContain("The state publisher reads the robot model at start-up.");
    expect(output.answer).not.toContain(SENTENCE);
  });

  it("still quotes the selection when the book holds nothing else", async () => {
    const output = await synthesizer.synthesize({
      question: "What does transient-local durability mean?",
      results: [result("same", SENTENCE, "Publishing the model")],
      selectedText: SENTENCE,
    });
    expect(output).toMatchObject({ answer: `${SENTENCE} [1]`, answeredFromSelection: true });
  });

  it("reads a question leaning on the selection with the selection's words", async () => {
    const output = await synthesizer.synthesize({
      question: "Why can it not be solved directly?",
      results: [
        retrievedChunk(
          "ball",
          "The fall of a ball can be solved directly in closed form.",
          "Free fall",
          0.9,
        ),
        retrievedChunk(
          "ik",
          "Inverse kinematics is not solved directly: its equations are nonlinear, and one pose may have several sets of joint angles.",
          "Inverse kinematics",
          0.7,
        ),
      ],
      selectedText: "Inverse kinematics finds the joint angles that reach a desired pose.",
    });
    expect(output.answer).toMatch(
      /^\*\*Inverse kinematics\*\* \[3\]\n\nInverse kinematics is not solved directly/,
    );
  });

  it("searches with the selection when the question only points at it", () => {
    expect(selectionSearch("Explain this in simpler terms", SENTENCE)).toEqual({
      query: SENTENCE,
      context: SENTENCE,
    });
    // Asking for an example or an analogy points at the selection as much as "explain this" does.
    for (const asking of ["Give me an example", "Can you show another example?", "An analogy?"])
      expect(selectionSearch(asking, SENTENCE).query, asking).toBe(SENTENCE);
    // "What does X mean?" names what it asks about: the book is searched for X, not the selection.
    expect(selectionSearch("What does durability mean?", SENTENCE)).toEqual({
      query: "What does durability mean?",
      context: "",
    });
    // "What does this mean?" only points at the selection.
    expect(selectionSearch("What does this mean?", SENTENCE).query).toBe(SENTENCE);
    // A long selection joins the search by its first 80 words.
    const long = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    const { query, context } = selectionSearch("explain this", long);
    expect(context.split(" ")).toHaveLength(80);
    expect(query).toBe(context);
  });
});

describe("a question naming a section by its heading", () => {
  const synthesizer = new ExtractiveSynthesizer();
  // The overview mentions the arm in passing, in words closer to the question than the section's.
  const overview = result(
    "overview",
    "The running example is a rover. Later chapters add a three-joint arm as an example for kinematics.",
    "Running example",
  );
  const arm = result(
    "arm",
    "The arm has a base that turns, a shoulder and an elbow. Each joint adds one transform to the chain.",
    "Example: a three-joint arm",
  );
  const stops = result(
    "stops",
    "Joint limits stop the arm before it hits itself. The shoulder stops at ninety degrees.",
    "Joint limits",
  );

  it.each([
    // As the book's own suggestions ask about a heading (answer/suggestions.ts).
    ["What should I know about Example: a three-joint arm?", [overview, arm], "arm"],
    ["what should I know about example: a three-joint arm?", [overview, arm], "arm"],
    // The whole question is the heading.
    ["Example: a three-joint arm?", [overview, arm], "arm"],
  ])("%j leads with that section", async (question, results, expected) => {
    const output = await synthesizer.synthesize({ question, results, selectedText: null });
    const first = Number(/\[(\d+)\]/.exec(output.answer ?? "")?.[1]);
    expect(results[first - 1]?.chunk.id).toBe(expected);
  });

  it("finds the section by its heading when the search did not return it", async () => {
    const output = await synthesizer.synthesize({
      question: "What should I know about Example: a three-joint arm?",
      results: [overview, stops],
      selectedText: null,
      sectionsHeaded: (heading) => (heading === "Example: a three-joint arm" ? [arm.chunk] : []),
    });
    expect(output.answer).toMatch(/^\*\*Example: a three-joint arm\*\*/);
    expect(output.extraSources?.[0]?.chunk.id).toBe("arm");
  });

  it("takes the section holding the heading when it shares its parent's card", async () => {
    const sensors = result(
      "sensors",
      "This page looks at the sensors of a robot.\n\n### Lidar\n\nA lidar measures distance by timing a laser pulse.\n\n### Encoders\n\nAn encoder counts wheel turns.",
      "Robot sensors",
    );
    const fusion = result(
      "fusion",
      "Fusion combines a lidar fix with wheel odometry and a lidar scan match, lidar and odometry together.",
      "Sensor fusion",
    );
    const output = await synthesizer.synthesize({
      question: "What should I know about lidar?",
      results: [fusion, sensors],
      selectedText: null,
    });
    expect(output.answer).toMatch(/^\*\*Robot sensors\*\* \[2\]/);
    expect(output.answer).toContain("**A lidar measures distance by timing a laser pulse.**");
  });

  it("takes the section on the page the question names, when pages share the heading", async () => {
    const argumentsOf = (page: string, text: string) => {
      const found = result(`${page}-arguments`, text, "Arguments");
      return { ...found, chunk: { ...found.chunk, title: page, headingPath: [page, "Arguments"] } };
    };
    const results = [
      argumentsOf("compose", "The arguments are the functions to compose, right to left."),
      argumentsOf("subscribe", "The one argument is the listener to call on every change."),
    ];
    for (const [page, expected] of [
      ["subscribe", "subscribe-arguments"],
      ["compose", "compose-arguments"],
    ]) {
      const output = await synthesizer.synthesize({
        question: `What should I know about arguments in “${page}”?`,
        results,
        selectedText: null,
      });
      const first = Number(/\[(\d+)\]/.exec(output.answer ?? "")?.[1]);
      expect(results[first - 1]?.chunk.id).toBe(expected);
    }
  });

  it("is left to the ranking when no section bears the heading", async () => {
    const output = await synthesizer.synthesize({
      question: "What should I know about a three-joint arm?",
      results: [overview, arm],
      selectedText: null,
      sectionsHeaded: () => [],
    });
    expect(output.answer).toContain("three-joint arm");
  });
});
