/**
 * Writes a tiny, complete feature-extraction model directory that transformers.js loads from disk:
 * a BERT-style `config.json`, a lower-casing WordPiece `tokenizer.json` + `tokenizer_config.json`
 * over a few dozen words, and `onnx/model.onnx`, a hand-encoded ONNX graph whose
 * `last_hidden_state` is a lookup in a fixed embedding table (token i → a deterministic vector).
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
  const ids = Object.fromEntries(vocabulary.map((token, id) => [token, id]));
  const omit = new Set(options.omit ?? []);

  const files: Record<string, string | Uint8Array> = {
    "config.json": json({
      ...(options.nameOrPath === undefined ? {} : { _name_or_path: options.nameOrPath }),
      architectures: ["BertModel"],
      model_type: "bert",
      hidden_size: HIDDEN_SIZE,
      num_hidden_layers: 1,
      num_attention_heads: 1,
      intermediate_size: HIDDEN_SIZE,
      max_position_embeddings: 512,
      type_vocab_size: 2,
      vocab_size: vocabulary.length,
      pad_token_id: 0,
    }),
    "tokenizer.json": json(tokenizerJson(vocabulary, ids)),
    "tokenizer_config.json": json({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      clean_up_tokenization_spaces: true,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      mask_token: "[MASK]",
    }),
    "onnx/model.onnx": onnxModel(embeddingTable(vocabulary.length, HIDDEN_SIZE), HIDDEN_SIZE),
  };

  for (const [name, content] of Object.entries(files)) {
    if (omit.has(name)) continue;
    const target = path.join(directory, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return { dimensions: HIDDEN_SIZE, vocabulary };
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
