import { createInterface } from "node:readline/promises";
import type { Config } from "../../config/config.ts";
import type { Exchange } from "../../llm/prompts.ts";
import { pipelineOf, SAMPLE_DOCS, withLectern } from "../open-book.ts";
import { askTurn, printAnswer } from "./ask.ts";
import { runIngest } from "./ingest.ts";

/** `lectern repl [--docs <dir>]`: ingests (the sample book by default), then asks in a loop. */
export async function replCommand(config: Config): Promise<number> {
  const docsDir = config.docsDir ?? SAMPLE_DOCS;
  return withLectern(config, async (lectern) => {
    process.stdout.write(`Ingesting ${docsDir}\n`);
    await runIngest(lectern, docsDir, false);
    const input = createInterface({ input: process.stdin, terminal: false });
    process.stdout.write(
      '\nAsk the book a question (empty line or Ctrl-D to quit). Example: "How do I publish on a topic?"\n? ',
    );
    // Iterating the lines (rather than prompting for each) also works when questions are piped in.
    const pipeline = pipelineOf(lectern);
    const history: Exchange[] = [];
    for await (const line of input) {
      const question = line.trim();
      if (!question) break;
      const outcome = await askTurn(pipeline, question, { history: history.slice(-3) });
      history.push({ query: question, answer: outcome.answer ?? outcome.fallbackMessage ?? "" });
      printAnswer(outcome);
      process.stdout.write("\n? ");
    }
    input.close();
    process.stdout.write("\n");
    return 0;
  });
}
