import { describe, expect, it } from "vitest";
import { clusterQuestions, countQuestions } from "./topics.ts";

const QUESTIONS = [
  "How do I publish a message on a topic?",
  "What is a topic?",
  "what is a topic",
  "How many subscribers can a topic have?",
  "Which QoS should topics use for sensor data?",
  "How does a humanoid keep its balance?",
  "What is the ZMP of a humanoid robot?",
  "Why does my humanoid fall when walking?",
  "What is URDF?",
  "How do I write a URDF file for my arm?",
  "Can I pay by invoice?",
];

describe("clustering questions into topics", () => {
  it("counts the same question however it was typed", () => {
    const counted = countQuestions(QUESTIONS);
    expect(counted[0]).toEqual({ text: "What is a topic?", count: 2 });
    expect(counted).toHaveLength(QUESTIONS.length - 1);
  });

  it("groups questions by the terms they share, the most asked topic first", () => {
    const { topics, other } = clusterQuestions(countQuestions(QUESTIONS));
    expect(topics.map((topic) => [topic.label, topic.count])).toEqual([
      ["topic", 5],
      ["humanoid", 3],
      ["urdf", 2],
    ]);
    expect(topics[0]?.questions.map((question) => question.text)).toEqual([
      "What is a topic?",
      "How do I publish a message on a topic?",
      "How many subscribers can a topic have?",
      "Which QoS should topics use for sensor data?",
    ]);
    expect(other.map((question) => question.text)).toEqual(["Can I pay by invoice?"]);
  });

  it("lets specific terms name topics before common ones", () => {
    const questions = countQuestions([
      "How do I tune a robot arm controller?",
      "Which robot arm controller handles torque?",
      "How does a robot see depth with a camera?",
      "What camera resolution does a robot need?",
    ]);
    // "robot" is in every question, but weighs little in a robotics book.
    const weight = (term: string) => (term === "robot" ? 0.1 : 2);
    const { topics } = clusterQuestions(questions, { weight });
    expect(topics.map((topic) => topic.label).sort()).toEqual(["arm", "camera"]);
    const unweighted = clusterQuestions(questions);
    expect(unweighted.topics.map((topic) => topic.label)).toEqual(["robot"]);
  });

  it("gives the same topics whatever the order of the questions", () => {
    const forward = clusterQuestions(countQuestions(QUESTIONS));
    const backward = clusterQuestions(countQuestions([...QUESTIONS].reverse()));
    expect(backward.topics.map((topic) => [topic.label, topic.count])).toEqual(
      forward.topics.map((topic) => [topic.label, topic.count]),
    );
  });
});
