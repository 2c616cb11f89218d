import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import type { Config } from "../../config/config.ts";
import { createChatService } from "../../pipeline/chat-service.ts";
import { MemoryHistoryStore } from "../../store/memory-history-store.ts";
import { createSafeLogger } from "../../util/safe-log.ts";
import { pipelineOf, withLectern } from "../open-book.ts";
import { sampleDocs } from "../sample-book.ts";
import { printAnswer } from "./ask.ts";
import { runIngest } from "./run-ingest.ts";

/** `lectern repl [--docs <dir>]`: ingests (the sample book by default), then asks in a loop. */
export async function replCommand(config: Config): Promise<number> {
  const docsDir = config.docsDir ?? sampleDocs();
  return withLectern(
    config,
    async (lectern) => {
      process.stdout.write(`Ingesting ${docsDir}\n`);
      await runIngest(lectern, docsDir, { json: false, strict: false });
      const input = createInterface({ input: process.stdin, terminal: false });
      process.stdout.write(
        '\nAsk the book a question (empty line or Ctrl-D to quit). Example: "How do I publish on a topic?"\n? ',
      );
      // The conversation is kept as the API keeps one (in memory here), through the chat service.
      const chat = createChatService({
        pipeline: pipelineOf(lectern),
        history: new MemoryHistoryStore(),
        config: lectern.config,
        logger: createSafeLogger("warn"),
      });
      const sessionId = randomUUID();
      // Iterating the lines (rather than prompting for each) also works when questions are piped in.
      for await (const line of input) {
        const question = line.trim();
        if (!question) break;
        const { input: turn, outcome } = await chat.ask({
          requestId: randomUUID(),
          sessionId,
          query: question,
          selectedText: null,
          filters: undefined,
          sourceUrl: null,
          topK: undefined,
        });
        await chat.saveExchange(turn, {
          answer: outcome.answer,
          fallback_message: outcome.fallbackMessage,
          sources: outcome.sources,
          confidence: outcome.confidence,
          metadata: {
            query_time_ms: outcome.timings.total ?? 0,
            retrieval_count: outcome.retrievalCount,
            mode: outcome.mode,
            low_confidence: outcome.lowConfidence,
            request_id: turn.requestId,
            route: outcome.route,
          },
        });
        printAnswer(outcome);
        process.stdout.write("\n? ");
      }
      input.close();
      process.stdout.write("\n");
      return 0;
    },
    { workload: "session" },
  );
}
