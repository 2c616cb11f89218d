import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AutoTokenizer } from "@huggingface/transformers";
import { percentile } from "../src/eval/evaluate.ts";
import { createLocalReranker } from "../src/llm/local-reranker.ts";
import { writeTinyCrossEncoder } from "../test/tiny-onnx-model.ts";
import { createRandom, TextGenerator } from "./corpus.ts";

/**
 * Reranking latency: one question against `candidates` passages of about `passageTokens` tokens
 * (counted by the model's own tokenizer), the work the retriever adds per question when a reranker
 * is configured. By default the model is the tiny generated cross-encoder of the tests, which
 * measures Lectern's own cost (tokenizing, batching, ONNX Runtime calls) but not a real network's;
 * `--rerank-model <dir>` measures a real transformers.js export instead.
 */

export interface RerankBenchOptions {
  /** A real cross-encoder directory; the tiny generated model when absent. */
  modelDir?: string;
  candidates?: number;
  passageTokens?: number;
  runs?: number;
  batchSizes?: number[];
}

export interface RerankBenchRow {
  batchSize: number;
  modelCalls: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
}

export interface RerankBenchResult {
  model: string;
  candidates: number;
  /** Mean (question, passage) sequence length in tokens, special tokens included. */
  meanPairTokens: number;
  runs: number;
  /** Tokenizing the pairs alone (part of every row's time): the cost before any model runs. */
  tokenizeP50Ms: number;
  tokenizeP95Ms: number;
  rows: RerankBenchRow[];
}

const QUESTIONS = [
  "how do i calibrate the robot arm joint",
  "how to configure the lidar sensor and the camera",
  "charge the battery of the robot",
  "install the python package for navigation",
  "error in the network log of the motor",
];

export async function benchRerank(options: RerankBenchOptions = {}): Promise<RerankBenchResult> {
  const candidates = options.candidates ?? 20;
  const passageTokens = options.passageTokens ?? 350;
  const runs = options.runs ?? 200;
  const batchSizes = options.batchSizes ?? [32, 4];

  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-rerank-"));
  try {
    const modelDir = options.modelDir ?? path.join(workDir, "tiny-cross-encoder");
    if (options.modelDir === undefined) await writeTinyCrossEncoder(modelDir);
    const tokenizer = await AutoTokenizer.from_pretrained(path.resolve(modelDir), {
      local_files_only: true,
    });
    const countTokens = (text: string) =>
      tokenizer.encode(text, { add_special_tokens: false }).length;

    // Generated prose with the question's words mixed in, so scores differ between passages.
    const generator = new TextGenerator(createRandom(7));
    const random = createRandom(11);
    const questionWords = QUESTIONS.join(" ").split(" ");
    const passages = Array.from({ length: candidates }, () => {
      const words: string[] = [];
      while (words.length < passageTokens * 2) {
        words.push(
          ...generator.sentence().split(" "),
          questionWords[Math.floor(random() * questionWords.length)] ?? "robot",
        );
      }
      return trimToTokens(words, passageTokens, countTokens);
    });
    const pairTokens = QUESTIONS.flatMap((question) =>
      passages.map(
        (passage) =>
          tokenizer.encode(question, { text_pair: passage, add_special_tokens: true }).length,
      ),
    );

    const tokenizeLatencies: number[] = [];
    for (let run = 0; run < runs + 10; run++) {
      const question = QUESTIONS[run % QUESTIONS.length] ?? "";
      const started = performance.now();
      tokenizer(
        passages.map(() => question),
        { text_pair: passages, return_tensor: false },
      );
      if (run >= 10) tokenizeLatencies.push(performance.now() - started); // after a warm-up
    }
    tokenizeLatencies.sort((a, b) => a - b);

    const rows: RerankBenchRow[] = [];
    let modelId = "";
    for (const batchSize of batchSizes) {
      const reranker = await createLocalReranker({ modelDir, batchSize });
      modelId = reranker.modelId;
      try {
        for (let run = 0; run < 10; run++) {
          await reranker.rerank(QUESTIONS[run % QUESTIONS.length] ?? "", passages); // warm-up
        }
        const latencies: number[] = [];
        for (let run = 0; run < runs; run++) {
          const started = performance.now();
          await reranker.rerank(QUESTIONS[run % QUESTIONS.length] ?? "", passages);
          latencies.push(performance.now() - started);
        }
        latencies.sort((a, b) => a - b);
        rows.push({
          batchSize,
          modelCalls: Math.ceil(candidates / batchSize),
          p50Ms: percentile(latencies, 0.5),
          p95Ms: percentile(latencies, 0.95),
          meanMs: latencies.reduce((sum, value) => sum + value, 0) / latencies.length,
        });
      } finally {
        await reranker.dispose();
      }
    }
    return {
      model: options.modelDir === undefined ? "tiny generated cross-encoder (tests)" : modelId,
      candidates,
      meanPairTokens: pairTokens.reduce((sum, value) => sum + value, 0) / pairTokens.length,
      runs,
      tokenizeP50Ms: percentile(tokenizeLatencies, 0.5),
      tokenizeP95Ms: percentile(tokenizeLatencies, 0.95),
      rows,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The longest prefix of `words` that is at most `tokens` tokens long (binary search). */
function trimToTokens(
  words: string[],
  tokens: number,
  countTokens: (text: string) => number,
): string {
  let fits = 0;
  let tooLong = words.length + 1;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (countTokens(words.slice(0, middle).join(" ")) <= tokens) fits = middle;
    else tooLong = middle;
  }
  return words.slice(0, fits).join(" ");
}
