import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/** The documented GitHub Actions workflow: the copy in the docs and the example file agree and run real commands. */

const DOC = fileURLToPath(new URL("../../../docs/docs-pr-diff.md", import.meta.url));
const WORKFLOW = fileURLToPath(
  new URL("../../../examples/github-actions/docs-pr-answer-diff.yml", import.meta.url),
);

interface Workflow {
  on: { pull_request: unknown };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: { name?: string; run?: string; uses?: string }[] }>;
}

describe("the docs pull request workflow", () => {
  it("is the same in docs/docs-pr-diff.md as in examples/", async () => {
    const doc = await readFile(DOC, "utf8");
    // Four backticks: the workflow's own script holds a three-backtick fence.
    const block = /````yaml\n([\s\S]*?)````/.exec(doc)?.[1];
    expect(block).toBe(await readFile(WORKFLOW, "utf8"));
  });

  it("saves both versions' answers, compares them and comments on the pull request", async () => {
    const workflow = parse(await readFile(WORKFLOW, "utf8")) as Workflow;
    expect(workflow.on.pull_request).toBeDefined();
    expect(workflow.permissions["pull-requests"]).toBe("write");
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const commands = steps.flatMap((step) => (step.run ? step.run.split("\n") : []));
    const lectern = commands.filter((line) => line.includes("lectern "));
    expect(lectern.filter((line) => / ingest --docs /.test(line))).toHaveLength(2);
    expect(
      lectern.filter((line) => / eval --questions .* --save (before|after)\.json/.test(line)),
    ).toHaveLength(2);
    expect(
      lectern.some((line) =>
        / eval --compare before\.json after\.json$/.test(line.split(">")[0]?.trim() ?? ""),
      ),
    ).toBe(true);
    expect(steps.some((step) => step.uses?.startsWith("actions/github-script@"))).toBe(true);
  });
});
