import { analyzeQuery } from "@lectern/engine/search/analyzer";
import type { Embedder } from "@lectern/engine/search/embedder";
import { type AskedQuestion, clusterQuestions, questionKey, type Topic } from "./topics.ts";

/**
 * Readers' questions grouped into topics by meaning, when an embedder is configured: questions
 * that share no word ("How do I stop the robot?", "What halts the motors?") still meet. Greedy and
 * deterministic: the questions, most asked first (ties in alphabetical order), each join the topic
 * whose centroid is most similar (cosine ≥ `similarity`) or start a new one; a topic needs two
 * distinct questions, the rest are "Other questions". Topics are named by their most informative
 * analysed terms, as the lexical topics are. Without an embedder, or when embedding fails, the
 * questions are clustered lexically (topics.ts) and the report says so.
 */

export type TopicsMethod = "embeddings" | "lexical";

export interface TopicsOptions {
  /** The configured embedder; absent or `none`, topics are lexical. */
  embedder?: Embedder | undefined;
  /** Cosine similarity at which a question joins a topic (insights.topicSimilarity). */
  similarity?: number;
  /** Texts per embedding call; the embedder's own limit wins when smaller. */
  batchSize?: number;
  /** The most asked distinct questions embedded; the rest are "Other questions". */
  maxQuestions?: number;
  /** Told why embedding failed before the lexical topics are used instead. */
  onEmbeddingError?: (error: unknown) => void;
}

export const DEFAULT_TOPIC_SIMILARITY = 0.6;
/**
 * Each question is compared with every topic so far, so the work grows with the square of the
 * distinct questions (and each is one embedding per report): a week's long tail asked once
 * stays out of the topics rather than slowing the report.
 */
export const MAX_EMBEDDED_QUESTIONS = 1_000;

export interface GroupedTopics {
  topics: Topic[];
  other: AskedQuestion[];
  method: TopicsMethod;
}

/** Topics by embeddings when an embedder is configured and answers, otherwise lexical. */
export async function groupTopics(
  questions: readonly AskedQuestion[],
  weight: (term: string) => number | undefined,
  options: TopicsOptions = {},
): Promise<GroupedTopics> {
  const embedder = options.embedder;
  if (embedder && embedder.dimensions > 0 && questions.length > 0) {
    try {
      const ranked = [...questions].sort(
        (left, right) =>
          right.count - left.count || questionKey(left.text).localeCompare(questionKey(right.text)),
      );
      const embedded = ranked.slice(0, options.maxQuestions ?? MAX_EMBEDDED_QUESTIONS);
      const vectors = await embedQuestions(embedded, embedder, options.batchSize);
      const { topics, other } = clusterByEmbeddings(embedded, vectors, {
        weight,
        similarity: options.similarity ?? DEFAULT_TOPIC_SIMILARITY,
      });
      return { topics, other: [...other, ...ranked.slice(embedded.length)], method: "embeddings" };
    } catch (error) {
      options.onEmbeddingError?.(error);
    }
  }
  return { ...clusterQuestions(questions, { weight }), method: "lexical" };
}

/**
 * One vector per question, in order. The questions are distinct already (countQuestions), so each
 * text is embedded once per report; calls hold at most the batch size.
 */
async function embedQuestions(
  questions: readonly AskedQuestion[],
  embedder: Embedder,
  batchSize = 64,
): Promise<number[][]> {
  const size = Math.max(1, Math.min(batchSize, embedder.maxBatchSize ?? batchSize));
  const texts = questions.map((question) => question.text);
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += size) {
    const batch = texts.slice(start, start + size);
    const embedded = await embedder.embed(batch);
    if (embedded.length !== batch.length) {
      throw new Error(
        `The embedder returned ${embedded.length} vectors for ${batch.length} questions.`,
      );
    }
    for (const vector of embedded) {
      if (vector.length === 0 || !vector.every(Number.isFinite)) {
        throw new Error("The embedder returned an empty or invalid vector.");
      }
      vectors.push(vector);
    }
  }
  return vectors;
}

/** Groups questions whose vectors are close; `vectors[i]` belongs to `questions[i]`. */
export function clusterByEmbeddings(
  questions: readonly AskedQuestion[],
  vectors: readonly number[][],
  options: {
    similarity: number;
    weight?: (term: string) => number | undefined;
    maxTopics?: number;
  },
): { topics: Topic[]; other: AskedQuestion[] } {
  const entries = questions
    .map((question, position) => ({
      question,
      key: questionKey(question.text),
      vector: unit(vectors[position] ?? []),
    }))
    .sort(
      (left, right) =>
        right.question.count - left.question.count || left.key.localeCompare(right.key),
    );
  const groups: { sum: Float64Array; centroid: Float64Array; members: AskedQuestion[] }[] = [];
  for (const entry of entries) {
    let best: { group: (typeof groups)[number]; similarity: number } | undefined;
    for (const group of groups) {
      const similarity = dot(entry.vector, group.centroid);
      if (similarity >= options.similarity && (!best || similarity > best.similarity)) {
        best = { group, similarity };
      }
    }
    if (best) {
      best.group.members.push(entry.question);
      const sum = best.group.sum;
      for (let index = 0; index < sum.length; index++) {
        sum[index] = (sum[index] as number) + (entry.vector[index] ?? 0);
      }
      best.group.centroid = unit(sum);
    } else {
      groups.push({
        sum: Float64Array.from(entry.vector),
        centroid: entry.vector,
        members: [entry.question],
      });
    }
  }
  const weightOf = (term: string) => options.weight?.(term) ?? 1;
  const topics = groups
    .filter((group) => group.members.length >= 2)
    .map((group) => labelledTopic(group.members, weightOf))
    .sort((left, right) => right.count - left.count || left.label.localeCompare(right.label));
  const maxTopics = options.maxTopics ?? 20;
  const kept = topics.slice(0, maxTopics);
  const other = [
    ...groups.filter((group) => group.members.length < 2).flatMap((group) => group.members),
    ...topics.slice(maxTopics).flatMap((topic) => topic.questions),
  ].sort((left, right) => right.count - left.count);
  return { topics: kept, other };
}

/**
 * A topic named by its most informative terms: each term scores the times it was asked in the
 * topic times how specific it is in the book, the best names the topic and the next four follow.
 */
function labelledTopic(members: AskedQuestion[], weightOf: (term: string) => number): Topic {
  const asked = new Map<string, number>();
  const spellings = new Map<string, Map<string, number>>();
  for (const member of members) {
    const { words, spelled } = analyzeQuery(member.text);
    for (const term of new Set(words)) {
      asked.set(term, (asked.get(term) ?? 0) + member.count);
      const written = (spelled.get(term) ?? term).toLowerCase();
      const forms = spellings.get(term) ?? new Map<string, number>();
      forms.set(written, (forms.get(written) ?? 0) + member.count);
      spellings.set(term, forms);
    }
  }
  const asWritten = (term: string) =>
    [...(spellings.get(term) ?? new Map([[term, 1]])).entries()].sort(
      (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
    )[0]?.[0] ?? term;
  const ranked = [...asked.entries()]
    .map(([term, count]) => ({ term, score: count * weightOf(term) }))
    // Ties go to the term first in alphabetical order, so names never depend on input order.
    .sort((left, right) => right.score - left.score || left.term.localeCompare(right.term))
    .map((entry) => asWritten(entry.term));
  const questions = [...members].sort((left, right) => right.count - left.count);
  return {
    label: ranked[0] ?? questions[0]?.text ?? "",
    terms: ranked.slice(1, 5),
    count: questions.reduce((total, question) => total + question.count, 0),
    questions,
  };
}

function dot(left: Float64Array, right: Float64Array): number {
  const length = Math.min(left.length, right.length);
  let total = 0;
  for (let index = 0; index < length; index++) {
    total += (left[index] as number) * (right[index] as number);
  }
  return total;
}

function unit(vector: ArrayLike<number>): Float64Array {
  const result = Float64Array.from(vector);
  const norm = Math.sqrt(dot(result, result));
  if (norm > 0)
    for (let index = 0; index < result.length; index++)
      result[index] = (result[index] as number) / norm;
  return result;
}
