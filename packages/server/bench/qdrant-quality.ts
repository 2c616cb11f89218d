import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { noneEmbedder } from "@lectern/engine/search/embedder";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import { evaluate } from "../src/eval/evaluate.ts";
import { loadQuestions } from "../src/eval/questions.ts";
import { openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import { SAMPLE_DOCS, SAMPLE_QUESTIONS } from "../test/cli.ts";
import { createFakeEmbedder } from "../test/doubles/fake-embedder.ts";
import { startQdrantStandIn } from "../test/doubles/qdrant-stand-in.ts";

/**
 * Retrieval quality of the sample book's questions (questions.jsonl and questions-fresh.jsonl)
 * through the `/chat` pipeline on four backends: BM25 alone, pgvector (in-process RRF of BM25
 * and dense), and Qdrant (dense + sparse BM25 fused by the server; the local stand-in scores as
 * Qdrant does), with the BM25 calibration from the in-process index or, with
 * LEXICAL_BACKEND=qdrant, from Qdrant's sparse scores and the term-statistics table. The embedder is the deterministic test one (a bag of hashed words with a few
 * synonym groups), not a real model: the rows compare the two fusion paths, not embedding
 * quality. No latency is reported: the stand-in is not Qdrant.
 *
 *   npx tsx --conditions=lectern-source packages/server/bench/qdrant-quality.ts
 */

const questions = [
  ...(await loadQuestions(SAMPLE_QUESTIONS)),
  ...(await loadQuestions(SAMPLE_QUESTIONS.replace("questions.jsonl", "questions-fresh.jsonl"))),
];
const standIn = await startQdrantStandIn();
const workDir = await mkdtemp(path.join(tmpdir(), "lectern-qdrant-quality-"));
const backends = [
  { name: "BM25 only", env: {}, dense: false },
  { name: "pgvector (RRF in process)", env: {}, dense: true },
  {
    name: "Qdrant stand-in (prefetch + RRF on the server)",
    env: { VECTOR_BACKEND: "qdrant", QDRANT_URL: standIn.url },
    dense: true,
  },
  {
    name: "Qdrant stand-in, LEXICAL_BACKEND=qdrant (no BM25 index in process)",
    env: { VECTOR_BACKEND: "qdrant", QDRANT_URL: standIn.url, LEXICAL_BACKEND: "qdrant" },
    dense: true,
  },
];
const rows: string[] = [];
try {
  for (const [position, backend] of backends.entries()) {
    const config = loadConfig({
      env: { LOG_LEVEL: "silent", ...backend.env },
      overrides: { dataDir: path.join(workDir, String(position)) },
    });
    const lectern = await openLectern(config, {
      embedder: backend.dense ? createFakeEmbedder(64) : noneEmbedder,
    });
    try {
      await lectern.ingest(SAMPLE_DOCS);
      const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
      const metrics = await evaluate(pipeline, questions, 5);
      rows.push(
        `| ${backend.name} | ${metrics.questions} | ${metrics.hitAt1.toFixed(3)} | ${metrics.hitAtK.toFixed(3)} | ${metrics.mrr.toFixed(3)} | ${metrics.noAnswerRecall.toFixed(3)} | ${metrics.falseRejections} |`,
      );
    } finally {
      await lectern.close();
    }
  }
} finally {
  await standIn.close();
  await rm(workDir, { recursive: true, force: true });
}
console.log(
  "| backend | questions | hit@1 | hit@5 | MRR | off-topic rejected | false rejections |",
);
console.log("|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
