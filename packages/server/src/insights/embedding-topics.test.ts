import { noneEmbedder } from "@lectern/engine/search/embedder";
import { describe, expect, it } from "vitest";
import { createFakeEmbedder } from "../../test/doubles/fake-embedder.ts";
import { clusterByEmbeddings, groupTopics } from "./embedding-topics.ts";
import { clusterQuestions, countQuestions, questionKey } from "./topics.ts";

// The test embedder puts car/automobile/vehicle, upkeep/maintenance/servicing, bike/bicycle and
// oil/grease/lubrication each on one dimension: paraphrases sharing no word get close vectors.
const QUESTIONS = [
  "How often does a car need upkeep?",
  "Automobile maintenance schedule",
  "When is vehicle servicing due?",
  "how often does a car need upkeep",
  "Which grease suits a bike chain?",
  "Lubrication for a bicycle chain",
  "Can I pay by invoice?",
];
const CAR = [
  "How often does a car need upkeep?",
  "Automobile maintenance schedule",
  "When is vehicle servicing due?",
];
// As the book's idf would: words of any question weigh little.
const weight = (term: string) => (term === "need" || term === "often" ? 0.2 : 1);

const textsOf = (questions: { text: string }[] | undefined) =>
  (questions ?? []).map((question) => question.text);

describe("topics grouped by embeddings", () => {
  it("puts questions with no word in common but close embeddings in one topic", async () => {
    const questions = countQuestions(QUESTIONS);
    const grouped = await groupTopics(questions, weight, { embedder: createFakeEmbedder() });
    expect(grouped.method).toBe("embeddings");
    expect(grouped.topics).toHaveLength(2);
    const [cars, bikes] = grouped.topics;
    expect(textsOf(cars?.questions)).toEqual(CAR);
    expect(cars?.count).toBe(4);
    expect(bikes?.label).toBe("chain");
    expect(textsOf(bikes?.questions).sort()).toEqual([
      "Lubrication for a bicycle chain",
      "Which grease suits a bike chain?",
    ]);
    expect(textsOf(grouped.other)).toEqual(["Can I pay by invoice?"]);
    // Named by analysed terms, the most asked and specific first: "car" and "upkeep" twice.
    expect(cars?.label).toBe("car");
    expect(cars?.terms[0]).toBe("upkeep");
    expect(cars?.terms).toEqual(expect.arrayContaining(["automobile", "maintenance"]));
    // Lexically these questions share no term: no topic holds two of them.
    const lexical = clusterQuestions(questions, { weight });
    const lexicalCars = lexical.topics.filter(
      (topic) => topic.questions.filter((question) => CAR.includes(question.text)).length > 1,
    );
    expect(lexicalCars).toEqual([]);
  });

  it("embeds each distinct question once, in batches no larger than the embedder takes", async () => {
    const embedder = { ...createFakeEmbedder(), maxBatchSize: 2 };
    const calls: string[][] = [];
    const recording = {
      ...embedder,
      embed: (texts: string[]) => {
        calls.push(texts);
        return embedder.embed(texts);
      },
    };
    await groupTopics(countQuestions(QUESTIONS), weight, { embedder: recording, batchSize: 64 });
    expect(calls.map((batch) => batch.length)).toEqual([2, 2, 2]);
    expect(calls.flat()).toHaveLength(6);
    expect(new Set(calls.flat()).size).toBe(6);
  });

  it("embeds only the most asked questions beyond the limit, the rest in other questions", async () => {
    const embedder = createFakeEmbedder();
    const questions = countQuestions(QUESTIONS);
    const grouped = await groupTopics(questions, weight, { embedder, maxQuestions: 3 });
    expect(embedder.calls.flat()).toHaveLength(3);
    // The car question asked twice comes first; the rest by their words, alphabetically.
    expect(embedder.calls.flat()).toEqual([
      "How often does a car need upkeep?",
      "Automobile maintenance schedule",
      "Can I pay by invoice?",
    ]);
    expect(grouped.topics.map((topic) => [topic.label, topic.count])).toEqual([["car", 3]]);
    expect(grouped.other).toHaveLength(4);
  });

  it("keeps questions apart below the similarity threshold", async () => {
    const grouped = await groupTopics(countQuestions(QUESTIONS), weight, {
      embedder: createFakeEmbedder(),
      similarity: 0.999,
    });
    expect(grouped.method).toBe("embeddings");
    expect(grouped.topics).toEqual([]);
    expect(grouped.other).toHaveLength(6);
  });

  it("gives the same topics whatever the order of the questions", async () => {
    const embedder = createFakeEmbedder();
    const forward = await groupTopics(countQuestions(QUESTIONS), weight, { embedder });
    const backward = await groupTopics(countQuestions([...QUESTIONS].reverse()), weight, {
      embedder,
    });
    const summary = (topics: typeof forward.topics) =>
      topics.map((topic) => [
        topic.label,
        topic.count,
        topic.questions.map((question) => questionKey(question.text)).sort(),
      ]);
    expect(summary(backward.topics)).toEqual(summary(forward.topics));
  });

  it("falls back to lexical topics, and says why, when the embedder throws", async () => {
    const questions = countQuestions([...QUESTIONS, "How often does an engine need oil?"]);
    const failures: unknown[] = [];
    const failing = {
      ...createFakeEmbedder(),
      embed: async () => {
        throw new Error("embedding endpoint unavailable");
      },
    };
    const grouped = await groupTopics(questions, weight, {
      embedder: failing,
      onEmbeddingError: (error) => failures.push(error),
    });
    expect(grouped.method).toBe("lexical");
    expect(failures.map((error) => (error as Error).message)).toEqual([
      "embedding endpoint unavailable",
    ]);
    expect(grouped.topics).toEqual(clusterQuestions(questions, { weight }).topics);
    // Lexical topics: the questions sharing "need" and "often", the automobile ones apart.
    expect(grouped.topics.map((topic) => [topic.label, topic.count])).toEqual([
      ["need", 3],
      ["chain", 2],
    ]);
    expect(textsOf(grouped.other)).toContain("Automobile maintenance schedule");
  });

  it("falls back when the embedder returns too few vectors", async () => {
    const fake = createFakeEmbedder();
    const short = { ...fake, embed: async (texts: string[]) => fake.embed(texts.slice(1)) };
    const failures: unknown[] = [];
    const grouped = await groupTopics(countQuestions(QUESTIONS), weight, {
      embedder: short,
      onEmbeddingError: (error) => failures.push(error),
    });
    expect(grouped.method).toBe("lexical");
    expect(failures).toHaveLength(1);
  });

  it("stays lexical without an embedder", async () => {
    for (const embedder of [undefined, noneEmbedder]) {
      const grouped = await groupTopics(countQuestions(QUESTIONS), weight, { embedder });
      expect(grouped.method).toBe("lexical");
    }
  });

  it("lets the book's idf name a topic", () => {
    const questions = countQuestions(["car upkeep", "automobile upkeep"]);
    const vectors = [
      [1, 0],
      [1, 0],
    ];
    const plain = clusterByEmbeddings(questions, vectors, { similarity: 0.5 });
    expect(plain.topics[0]?.label).toBe("upkeep");
    const weighted = clusterByEmbeddings(questions, vectors, {
      similarity: 0.5,
      weight: (term) => (term === "upkeep" ? 0.1 : 3),
    });
    expect(weighted.topics[0]?.label).toBe("automobile");
  });
});
