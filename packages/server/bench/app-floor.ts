/**
 * Lectern's HTTP app with every answer worked out before it listens (`npm run bench -- --only
 * cpu`): the same routes, middleware, validation, metrics, response and socket as `lectern serve`
 * with history and the question log off, but `/chat` takes its answer from a table made by the
 * real chat pipeline over the book in `BENCH_DATA_DIR` for each question of `BENCH_QUESTIONS`
 * (one JSON object with a `question` a line). What it costs a request is what serving an answer
 * costs without working it out: the floor under `/chat`. Prints "answering at URL" as `lectern
 * serve` does. Lectern's modules are the compiled ones: `npm run build` first.
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import type { ChatPipeline } from "@lectern/engine/pipeline/chat-pipeline";
import type { ChatOutcome } from "@lectern/engine/pipeline/types";
import {
  composeApp,
  createChatPipeline,
  createLogger,
  loadConfig,
  openLectern,
} from "./compiled-modules.ts";

const questions = readFileSync(process.env.BENCH_QUESTIONS ?? "", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { question: string }).question);
const config = loadConfig({
  env: { ...process.env, HISTORY: "off", INSIGHTS: "off" },
  overrides: { dataDir: process.env.BENCH_DATA_DIR ?? "", port: 0, host: "127.0.0.1" },
});
const logger = createLogger(config);
const lectern = await openLectern(config, { workload: "serve" });
const { pipeline } = createChatPipeline(lectern, logger);
const answers = new Map<string, ChatOutcome>();
for (const question of questions) {
  const outcome = await pipeline.run({
    requestId: "bench",
    sessionId: "bench",
    query: question,
    selectedText: null,
    filters: undefined,
    sourceUrl: null,
    topK: undefined,
  });
  answers.set(question, outcome);
}
// Each answer as the pipeline gave it, with the time it took then; any other question is answered.
const answered = Object.create(pipeline) as ChatPipeline;
answered.run = async (input, options) => answers.get(input.query) ?? pipeline.run(input, options);
const { app } = composeApp(lectern, config, {
  logger,
  siteAndFeedback: true,
  overrides: { pipeline: answered },
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`answering at http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () =>
  server.close(() => {
    void lectern.close().then(() => process.exit(0));
  }),
);
