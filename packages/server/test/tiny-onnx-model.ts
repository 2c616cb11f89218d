// Over 300 lines on purpose: two small ONNX graphs written out operator by operator.
/**
 * Writes tiny, complete model directories that transformers.js loads from disk: a BERT-style
 * `config.json`, a lower-casing WordPiece `tokenizer.json` + `tokenizer_config.json` over a few
 * dozen words, and `onnx/model.onnx`, a hand-encoded ONNX graph.
 *
 * - `writeTinyModel`: a feature-extraction model whose `last_hidden_state` is a lookup in a fixed
 *   embedding table (token i → a deterministic vector).
 * - `writeTinyCrossEncoder`: a sequence-classification model whose relevance logit is the number of
 *   query words (segment A) that also occur in the passage (segment B).
 *
 * Nothing is downloaded; the files are generated here so tests run offline in milliseconds.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

const HIDDEN_SIZE = 16;

const SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] as const;

const WORDS = [
  "the",
  "a",
  "of",
  "and",
  "to",
  "how",
  "do",
  "i",
  "is",
  "robot",
  "arm",
  "joint",
  "motor",
  "sensor",
  "camera",
  "lidar",
  "battery",
  "charge",
  "wheel",
  "speed",
  "map",
  "navigation",
  "calibrate",
  "install",
  "configure",
  "package",
  "python",
  "error",
  "log",
  "network",
  "quick",
  "brown",
  "fox",
  "lazy",
  "dog",
  "jumps",
  "over",
  "red",
  "green",
  "blue",
] as const;

export interface TinyModel {
  dimensions: number;
  /** Every token the tokenizer knows, in id order (special tokens first). */
  vocabulary: string[];
}

export interface TinyModelOptions {
  /** Written as `_name_or_path` in config.json when given. */
  nameOrPath?: string;
  /** Leave out these files (relative to the directory), to test what a loader does without them. */
  omit?: string[];
}

export async function writeTinyModel(
  directory: string,
  options: TinyModelOptions = {},
): Promise<TinyModel> {
  const vocabulary = [...SPECIAL_TOKENS, ...WORDS];
  await writeModelFiles(directory, options, {
    "config.json": json({
      ...(options.nameOrPath === undefined ? {} : { _name_or_path: options.nameOrPath }),
      ...bertConfig(vocabulary.length),
      architectures: ["BertModel"],
    }),
    ...tokenizerFiles(vocabulary, 512),
    "onnx/model.onnx": onnxModel(embeddingTable(vocabulary.length, HIDDEN_SIZE), HIDDEN_SIZE),
  });
  return { dimensions: HIDDEN_SIZE, vocabulary };
}

export interface TinyCrossEncoder {
  /** Every token the tokenizer knows, in id order (special tokens first). */
  vocabulary: string[];
  /** The tokenizer's `model_max_length`: longer (query, passage) pairs must be truncated. */
  maxLength: number;
}

export interface TinyCrossEncoderOptions extends TinyModelOptions {
  /**
   * 1: one relevance logit per pair, like the ms-marco cross-encoders. 2: two logits,
   * [not relevant, relevant] = [-overlap, overlap]. Default 1.
   */
  labels?: 1 | 2;
  /** The tokenizer's `model_max_length`, in tokens. Default 512. */
  maxLength?: number;
}

/**
 * A cross-encoder whose logit for a (query, passage) pair is the number of query word tokens
 * (repeats included) that occur anywhere in the passage. Special tokens, unknown words and padding
 * never count. Its scores are exact small integers, so tests can assert an order.
 */
export async function writeTinyCrossEncoder(
  directory: string,
  options: TinyCrossEncoderOptions = {},
): Promise<TinyCrossEncoder> {
  const vocabulary = [...SPECIAL_TOKENS, ...WORDS];
  const labels = options.labels ?? 1;
  const maxLength = options.maxLength ?? 512;
  const labelNames = labels === 1 ? ["LABEL_0"] : ["not_relevant", "relevant"];
  await writeModelFiles(directory, options, {
    "config.json": json({
      ...(options.nameOrPath === undefined ? {} : { _name_or_path: options.nameOrPath }),
      ...bertConfig(vocabulary.length),
      architectures: ["BertForSequenceClassification"],
      id2label: Object.fromEntries(labelNames.map((label, index) => [String(index), label])),
      label2id: Object.fromEntries(labelNames.map((label, index) => [label, index])),
    }),
    ...tokenizerFiles(vocabulary, maxLength),
    "onnx/model.onnx": crossEncoderOnnxModel(SPECIAL_TOKENS.length - 1, labels),
  });
  return { vocabulary, maxLength };
}

function bertConfig(vocabularySize: number): Record<string, unknown> {
  return {
    model_type: "bert",
    hidden_size: HIDDEN_SIZE,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    intermediate_size: HIDDEN_SIZE,
    max_position_embeddings: 512,
    type_vocab_size: 2,
    vocab_size: vocabularySize,
    pad_token_id: 0,
  };
}

function tokenizerFiles(vocabulary: string[], maxLength: number): Record<string, string> {
  const ids = Object.fromEntries(vocabulary.map((token, id) => [token, id]));
  return {
    "tokenizer.json": json(tokenizerJson(vocabulary, ids)),
    "tokenizer_config.json": json({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: maxLength,
      clean_up_tokenization_spaces: true,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      mask_token: "[MASK]",
    }),
  };
}

async function writeModelFiles(
  directory: string,
  options: TinyModelOptions,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  const omit = new Set(options.omit ?? []);
  for (const [name, content] of Object.entries(files)) {
    if (omit.has(name)) continue;
    const target = path.join(directory, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function tokenizerJson(vocabulary: string[], ids: Record<string, number>): unknown {
  const special = (token: string) => ({ id: token, ids: [ids[token]], tokens: [token] });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: ids[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: { "[CLS]": special("[CLS]"), "[SEP]": special("[SEP]") },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocabulary.map((token, id) => [token, id])),
    },
  };
}

/** Row i is a deterministic pseudo-random vector in [-1, 1)^hidden seeded by i. */
function embeddingTable(rows: number, hidden: number): Float32Array {
  const table = new Float32Array(rows * hidden);
  for (let row = 0; row < rows; row++) {
    let state = (row + 1) * 0x9e3779b1;
    for (let column = 0; column < hidden; column++) {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      table[row * hidden + column] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
    }
  }
  return table;
}

// --- ONNX graph -------------------------------------------------------------------------------
//
// last_hidden_state = Gather(table, input_ids) * Unsqueeze(Cast(attention_mask) + 0 * Cast(token_type_ids), -1)
//
// Every declared input is consumed so the runtime keeps it; padding positions come out as zeros.

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

function onnxModel(table: Float32Array, hidden: number): Uint8Array {
  const rows = table.length / hidden;
  const batchBySequence = [{ param: "batch_size" }, { param: "sequence_length" }];
  const graph = nodeFields([
    node("Gather", ["embedding_table", "input_ids"], ["token_vectors"], [intAttribute("axis", 0)]),
    node("Cast", ["attention_mask"], ["mask_float"], [intAttribute("to", FLOAT)]),
    node("Cast", ["token_type_ids"], ["token_types_float"], [intAttribute("to", FLOAT)]),
    node("Mul", ["token_types_float", "zero"], ["token_types_ignored"]),
    node("Add", ["mask_float", "token_types_ignored"], ["mask_2d"]),
    node("Unsqueeze", ["mask_2d", "last_axis"], ["mask_3d"]),
    node("Mul", ["token_vectors", "mask_3d"], ["last_hidden_state"]),
  ]);
  const graphFields = [
    ...graph,
    bytesField(2, utf8("tiny_embedding_graph")),
    bytesField(5, floatTensor("embedding_table", [rows, hidden], table)),
    bytesField(5, floatTensor("zero", [], new Float32Array([0]))),
    bytesField(5, int64Tensor("last_axis", [1], [-1])),
    bytesField(11, valueInfo("input_ids", INT64, batchBySequence)),
    bytesField(11, valueInfo("attention_mask", INT64, batchBySequence)),
    bytesField(11, valueInfo("token_type_ids", INT64, batchBySequence)),
    bytesField(12, valueInfo("last_hidden_state", FLOAT, [...batchBySequence, { value: hidden }])),
  ];
  return concat([
    varintField(1, 8), // ir_version
    bytesField(2, utf8("lectern-tests")), // producer_name
    bytesField(7, concat(graphFields)), // graph
    bytesField(8, concat([bytesField(1, utf8("")), varintField(2, 13)])), // opset_import
  ]);
}

// The cross-encoder's logits, from the same three inputs:
//
// word      = Cast(input_ids > last_special_id) * Cast(attention_mask)       [batch, seq]
// query     = word * (1 - Cast(token_type_ids)),  passage = word * Cast(token_type_ids)
// found     = ReduceMax(Cast(input_ids[:, :, None] == input_ids[:, None, :]) * passage[:, None, :], axis 2)
// relevance = ReduceSum(found * query, axis 1, keepdims)                      [batch, 1]
// logits    = relevance, or Concat(-relevance, relevance) for two labels

function crossEncoderOnnxModel(lastSpecialId: number, labels: 1 | 2): Uint8Array {
  const batchBySequence = [{ param: "batch_size" }, { param: "sequence_length" }];
  const nodes = [
    node("Greater", ["input_ids", "last_special_id"], ["is_word"]),
    node("Cast", ["is_word"], ["word_float"], [intAttribute("to", FLOAT)]),
    node("Cast", ["attention_mask"], ["mask_float"], [intAttribute("to", FLOAT)]),
    node("Mul", ["word_float", "mask_float"], ["live_words"]),
    node("Cast", ["token_type_ids"], ["in_passage"], [intAttribute("to", FLOAT)]),
    node("Sub", ["one", "in_passage"], ["in_query"]),
    node("Mul", ["live_words", "in_query"], ["query_words"]),
    node("Mul", ["live_words", "in_passage"], ["passage_words"]),
    node("Unsqueeze", ["input_ids", "axis_2"], ["ids_column"]),
    node("Unsqueeze", ["input_ids", "axis_1"], ["ids_row"]),
    node("Equal", ["ids_column", "ids_row"], ["same_token"]),
    node("Cast", ["same_token"], ["same_token_float"], [intAttribute("to", FLOAT)]),
    node("Unsqueeze", ["passage_words", "axis_1"], ["passage_row"]),
    node("Mul", ["same_token_float", "passage_row"], ["matches"]),
    node(
      "ReduceMax",
      ["matches"],
      ["found_in_passage"],
      [intsAttribute("axes", [2]), intAttribute("keepdims", 0)],
    ),
    node("Mul", ["found_in_passage", "query_words"], ["query_hits"]),
    node(
      "ReduceSum",
      ["query_hits", "axis_1"],
      [labels === 1 ? "logits" : "relevance"],
      [intAttribute("keepdims", 1)],
    ),
    ...(labels === 1
      ? []
      : [
          node("Neg", ["relevance"], ["irrelevance"]),
          node("Concat", ["irrelevance", "relevance"], ["logits"], [intAttribute("axis", 1)]),
        ]),
  ];
  const graphFields = [
    ...nodeFields(nodes),
    bytesField(2, utf8("tiny_cross_encoder_graph")),
    bytesField(5, int64Tensor("last_special_id", [], [lastSpecialId])),
    bytesField(5, floatTensor("one", [], new Float32Array([1]))),
    bytesField(5, int64Tensor("axis_1", [1], [1])),
    bytesField(5, int64Tensor("axis_2", [1], [2])),
    bytesField(11, valueInfo("input_ids", INT64, batchBySequence)),
    bytesField(11, valueInfo("attention_mask", INT64, batchBySequence)),
    bytesField(11, valueInfo("token_type_ids", INT64, batchBySequence)),
    bytesField(12, valueInfo("logits", FLOAT, [{ param: "batch_size" }, { value: labels }])),
  ];
  return concat([
    varintField(1, 8), // ir_version
    bytesField(2, utf8("lectern-tests")), // producer_name
    bytesField(7, concat(graphFields)), // graph
    bytesField(8, concat([bytesField(1, utf8("")), varintField(2, 13)])), // opset_import
  ]);
}

function nodeFields(nodes: Uint8Array[]): Uint8Array[] {
  return nodes.map((encoded) => bytesField(1, encoded));
}

function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: Uint8Array[] = [],
): Uint8Array {
  return concat([
    ...inputs.map((name) => bytesField(1, utf8(name))),
    ...outputs.map((name) => bytesField(2, utf8(name))),
    bytesField(3, utf8(`${opType}_${outputs[0] ?? ""}`)),
    bytesField(4, utf8(opType)),
    ...attributes.map((attribute) => bytesField(5, attribute)),
  ]);
}

function intAttribute(name: string, value: number): Uint8Array {
  return concat([bytesField(1, utf8(name)), varintField(3, value), varintField(20, ATTRIBUTE_INT)]);
}

function intsAttribute(name: string, values: number[]): Uint8Array {
  return concat([
    bytesField(1, utf8(name)),
    ...values.map((value) => varintField(8, value)),
    varintField(20, ATTRIBUTE_INTS),
  ]);
}

function floatTensor(name: string, dims: number[], values: Float32Array): Uint8Array {
  const raw = new Uint8Array(values.byteLength);
  const view = new DataView(raw.buffer);
  for (const [index, value] of values.entries()) view.setFloat32(index * 4, value, true);
  return concat([
    ...dims.map((dim) => varintField(1, dim)),
    varintField(2, FLOAT),
    bytesField(8, utf8(name)),
    bytesField(9, raw),
  ]);
}

function int64Tensor(name: string, dims: number[], values: number[]): Uint8Array {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  for (const [index, value] of values.entries()) view.setBigInt64(index * 8, BigInt(value), true);
  return concat([
    ...dims.map((dim) => varintField(1, dim)),
    varintField(2, INT64),
    bytesField(8, utf8(name)),
    bytesField(9, raw),
  ]);
}

type Dimension = { param: string } | { value: number };

function valueInfo(name: string, elementType: number, shape: Dimension[]): Uint8Array {
  const dims = shape.map((dim) =>
    bytesField(1, "param" in dim ? bytesField(2, utf8(dim.param)) : varintField(1, dim.value)),
  );
  const tensorType = concat([varintField(1, elementType), bytesField(2, concat(dims))]);
  return concat([bytesField(1, utf8(name)), bytesField(2, bytesField(1, tensorType))]);
}

// --- protobuf wire format ---------------------------------------------------------------------

function varint(value: number | bigint): Uint8Array {
  // Negative int64 values are encoded as their 64-bit two's complement (ten bytes).
  let remaining = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(remaining & 0x7fn);
    remaining >>= 7n;
    if (remaining > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (remaining > 0n);
  return Uint8Array.from(bytes);
}

function varintField(field: number, value: number): Uint8Array {
  return concat([varint(field << 3), varint(value)]);
}

function bytesField(field: number, payload: Uint8Array): Uint8Array {
  return concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
