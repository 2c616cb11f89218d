import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UsageError } from "./flags.ts";

/** The sample book of the source repository (examples/robotics-primer), beside packages/. */
const SAMPLE_DOCS = fileURLToPath(
  new URL("../../../../examples/robotics-primer/docs", import.meta.url),
);

/**
 * The docs `lectern start` and `lectern repl` use without `--docs`: the sample book, which only a
 * checkout of the repository has; an installed package asks for `--docs`.
 */
export function sampleDocs(): string {
  if (!existsSync(SAMPLE_DOCS)) {
    throw new UsageError(
      "Missing --docs <dir> (or LECTERN_DOCS_DIR): the sample book comes with the source repository only.",
    );
  }
  return SAMPLE_DOCS;
}
