/**
 * The local reranker: a transformers.js (ONNX Runtime) cross-encoder read from a directory on disk,
 * such as an fp32 export of cross-encoder/ms-marco-MiniLM-L-6-v2. As for the local embedder,
 * nothing is ever fetched from a model hub (see local-model.ts).
 *
 * Each (question, passage) pair is tokenized as one sequence (`[CLS] question [SEP] passage [SEP]`
 * for BERT-like models), cut to the model's maximum length and scored by
 * `AutoModelForSequenceClassification`. A one-label model's logit is the score; for a two-label
 * model (not relevant, relevant) the score is logit₁ − logit₀, the log-odds of "relevant", which
 * orders passages exactly as the softmax probability would.
 */
import type { PreTrainedTokenizer, Tensor } from "@huggingface/transformers";
import { createError } from "@lectern/engine/errors";
import type { Reranker } from "@lectern/engine/search/reranker";
import { LOCAL_LOAD_OPTIONS, openLocalModel, probeLocalModel } from "./local-model.ts";

export interface LocalRerankerOptions {
  /** Directory holding config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx. */
  modelDir: string;
  /** (question, passage) pairs per model call. Default 32, so 20 candidates take one call. */
  batchSize?: number;
}

export interface LocalReranker extends Reranker {
  /** The longest (question, passage) sequence the model reads, in tokens; longer ones are cut. */
  readonly maxLength: number;
  dispose(): Promise<void>;
}

const DEFAULT_BATCH_SIZE = 32;
/** Used when neither the tokenizer nor the model config states a limit (BERT's own). */
const FALLBACK_MAX_LENGTH = 512;

/** Token ids of one tokenized pair, before padding. */
interface EncodedPair {
  inputIds: number[];
  attentionMask: number[];
  /** Absent for tokenizers without segment ids (RoBERTa-like models). */
  tokenTypeIds: number[] | undefined;
}

export async function createLocalReranker(options: LocalRerankerOptions): Promise<LocalReranker> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const kind = { label: "reranker model", architecture: "a cross-encoder" };
  if (typeof options.modelDir !== "string" || options.modelDir.trim() === "") {
    throw createError("CONFIG_INVALID", "The reranker model directory is not set.");
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw createError(
      "CONFIG_INVALID",
      `The reranker batch size must be a positive integer, got ${batchSize}.`,
    );
  }

  const {
    modelDir,
    config,
    modelId,
    model: loaded,
  } = await openLocalModel(options.modelDir, kind, async (transformers, directory) => ({
    transformers,
    tokenizer: await transformers.AutoTokenizer.from_pretrained(directory, {
      local_files_only: true,
    }),
    model: await transformers.AutoModelForSequenceClassification.from_pretrained(
      directory,
      LOCAL_LOAD_OPTIONS,
    ),
  }));
  const { transformers, tokenizer, model } = loaded;

  const maxLength = maxLengthOf(tokenizer, config);
  const padId = tokenizer.pad_token_id ?? 0;

  const encode = (query: string, passages: string[]): EncodedPair[] => {
    const encoded = tokenizer(
      passages.map(() => query),
      { text_pair: passages, return_tensor: false },
    );
    return passages.map((_, row) =>
      truncated(
        {
          inputIds: encoded.input_ids[row] ?? [],
          attentionMask: encoded.attention_mask[row] ?? [],
          tokenTypeIds: encoded.token_type_ids?.[row],
        },
        maxLength,
      ),
    );
  };

  const score = async (pairs: EncodedPair[]): Promise<number[]> => {
    const width = Math.max(...pairs.map((pair) => pair.inputIds.length));
    const feeds: Record<string, Tensor> = {
      input_ids: int64Matrix(
        pairs.map((pair) => pair.inputIds),
        width,
        padId,
        transformers.Tensor,
      ),
      attention_mask: int64Matrix(
        pairs.map((pair) => pair.attentionMask),
        width,
        0,
        transformers.Tensor,
      ),
    };
    if (pairs.every((pair) => pair.tokenTypeIds !== undefined)) {
      feeds.token_type_ids = int64Matrix(
        pairs.map((pair) => pair.tokenTypeIds ?? []),
        width,
        0,
        transformers.Tensor,
      );
    }
    const output: { logits?: Tensor } = await model(feeds);
    return relevanceScores(output.logits, pairs.length);
  };

  const rerank = async (
    query: string,
    passages: string[],
    rerankOptions?: { signal?: AbortSignal },
  ): Promise<number[]> => {
    const signal = rerankOptions?.signal;
    signal?.throwIfAborted();
    if (passages.length === 0) return [];
    const pairs = encode(query, passages);
    // Pairs of similar length share a model call, so short passages are not padded to long ones.
    const order = pairs.map((_, index) => index);
    order.sort((a, b) => (pairs[a]?.inputIds.length ?? 0) - (pairs[b]?.inputIds.length ?? 0));
    const scores = new Array<number>(passages.length).fill(0);
    for (let start = 0; start < order.length; start += batchSize) {
      signal?.throwIfAborted();
      const batch = order.slice(start, start + batchSize);
      const batchScores = await score(batch.map((index) => pairs[index] as EncodedPair));
      for (const [position, index] of batch.entries()) scores[index] = batchScores[position] ?? 0;
    }
    return scores;
  };

  // One probe pair proves the tokenizer and the graph work together and that the model is a
  // cross-encoder (one or two logits per pair), before the first real question.
  await probeLocalModel(
    modelDir,
    kind,
    () => rerank("reranker probe", ["reranker probe passage"]),
    () => model.dispose(),
  );

  return {
    modelId,
    maxLength,
    rerank,
    async dispose() {
      await model.dispose();
    },
  };
}

/**
 * Cuts a pair longer than `maxLength` from the end of the passage, keeping the closing special
 * token (`[SEP]`, `</s>`) that cross-encoders were trained to see. The question comes first, so it
 * survives whole unless it alone is longer than the model reads.
 */
function truncated(pair: EncodedPair, maxLength: number): EncodedPair {
  if (pair.inputIds.length <= maxLength) return pair;
  const cut = (values: number[]): number[] => [
    ...values.slice(0, maxLength - 1),
    ...values.slice(-1),
  ];
  return {
    inputIds: cut(pair.inputIds),
    attentionMask: cut(pair.attentionMask),
    tokenTypeIds: pair.tokenTypeIds === undefined ? undefined : cut(pair.tokenTypeIds),
  };
}

function int64Matrix(
  rows: number[][],
  width: number,
  padValue: number,
  TensorClass: typeof Tensor,
): Tensor {
  const values = new BigInt64Array(rows.length * width).fill(BigInt(padValue));
  for (const [row, ids] of rows.entries()) {
    for (const [column, id] of ids.entries()) values[row * width + column] = BigInt(id);
  }
  return new TensorClass("int64", values, [rows.length, width]);
}

function relevanceScores(logits: Tensor | undefined, rows: number): number[] {
  if (logits === undefined) {
    throw new Error("the model has no `logits` output; it is not a sequence-classification model");
  }
  const [outputRows, labels] = logits.dims;
  if (logits.dims.length !== 2 || outputRows !== rows || (labels !== 1 && labels !== 2)) {
    throw new Error(
      `expected logits of shape [${rows}, 1] or [${rows}, 2] (a cross-encoder), got ` +
        `[${logits.dims.join(", ")}]`,
    );
  }
  const data = logits.data;
  const scores: number[] = [];
  for (let row = 0; row < rows; row++) {
    scores.push(
      labels === 1 ? Number(data[row]) : Number(data[row * 2 + 1]) - Number(data[row * 2]),
    );
  }
  return scores;
}

/** The tokenizer's limit, capped by the model's position embeddings when both are stated. */
function maxLengthOf(tokenizer: PreTrainedTokenizer, config: Record<string, unknown>): number {
  const limits = [tokenizer.model_max_length, config.max_position_embeddings].filter(
    (limit): limit is number => typeof limit === "number" && Number.isInteger(limit) && limit > 2,
  );
  return limits.length > 0 ? Math.min(...limits) : FALLBACK_MAX_LENGTH;
}
