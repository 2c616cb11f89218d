import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, SAMPLE_DOCS } from "../../test/cli.ts";
import type { AnswerRun, RunComparison } from "../eval/answer-runs.ts";

/**
 * The answer diff of a docs change, on two index versions of the sample book: a copy of its docs
 * ingested and its answers saved (`eval --save`), then pages changed in the copy (a page unpublished,
 * one added, one deleted, one sentence rewritten), ingested again, saved again, and compared.
 */

const QUESTIONS = [
  { id: "topics", question: "How do I publish messages on a topic?" },
  { id: "urdf", question: "What is URDF?" },
  { id: "swarm", question: "How does a swarm find food?" },
  { id: "ballast", question: "How does a ballast tank let an underwater robot dive?" },
  { id: "zmp", question: "What is the zero moment point?" },
].map((row) => ({ ...row, expected_pages: [] }));

const URDF_BEFORE =
  "The **Unified Robot Description Format (URDF)** is the XML dialect ROS uses to write this down.";
const URDF_AFTER =
  "The **Unified Robot Description Format (URDF)** is an XML file format, describing the robot as links and joints, that every ROS tool reads.";

const UNDERWATER_PAGE = `---
title: Underwater Robots
sidebar_position: 90
---

# Underwater Robots

An underwater robot dives by flooding its ballast tank with sea water, which makes it heavier than the water it displaces; it surfaces again by blowing the ballast tank empty with compressed air. Thrusters trim its depth between those two states.
`;

let dir: string;
let docs: string;
const dataDir = () => path.join(dir, "index");

async function edit(file: string, change: (text: string) => string) {
  const full = path.join(docs, file);
  const text = await readFile(full, "utf8");
  const changed = change(text);
  expect(changed, file).not.toBe(text);
  await writeFile(full, changed);
}

async function lectern(args: string[]) {
  const result = await runCli([...args, "--data-dir", dataDir()]);
  expect(result.stderr, args.join(" ")).not.toMatch(/error/i);
  expect(result.code, args.join(" ")).toBe(0);
  return result;
}

let before: AnswerRun;
let after: AnswerRun;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lectern-eval-compare-"));
  docs = path.join(dir, "docs");
  await cp(SAMPLE_DOCS, docs, { recursive: true });
  await writeFile(
    path.join(dir, "q.jsonl"),
    `${QUESTIONS.map((row) => JSON.stringify(row)).join("\n")}\n`,
  );
  // The swarm chapter is published in the first version of the book.
  await edit("swarm-robotics.md", (text) => text.replace("draft: true", "draft: false"));
  await lectern(["ingest", "--docs", docs]);
  const saved = await lectern([
    "eval",
    "--questions",
    path.join(dir, "q.jsonl"),
    "--save",
    path.join(dir, "before.json"),
  ]);
  expect(saved.stdout).toMatch(/hit@1/);
  before = JSON.parse(await readFile(path.join(dir, "before.json"), "utf8")) as AnswerRun;

  // The docs change of a pull request.
  await edit("swarm-robotics.md", (text) => text.replace("draft: false", "draft: true"));
  await writeFile(path.join(docs, "underwater.md"), UNDERWATER_PAGE);
  await rm(path.join(docs, "07-humanoids", "02-zmp-and-inverted-pendulum.md"));
  await edit("03-robot-description/01-urdf.md", (text) => text.replace(URDF_BEFORE, URDF_AFTER));
  await lectern(["ingest", "--docs", docs]);
  await lectern([
    "eval",
    "--questions",
    path.join(dir, "q.jsonl"),
    "--save",
    path.join(dir, "after.json"),
    "--json",
  ]);
  after = JSON.parse(await readFile(path.join(dir, "after.json"), "utf8")) as AnswerRun;
}, 240_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("lectern eval --save and --compare", () => {
  it("saves each question's answer and cited pages with the index version", () => {
    expect(before.format).toBe("lectern-eval-run");
    expect(before.book.title).toBe("Robotics Primer");
    expect(after.book.index_version).toBeGreaterThan(before.book.index_version);
    expect(before.questions.map((answer) => answer.id)).toEqual(QUESTIONS.map((row) => row.id));
    const swarm = before.questions.find((answer) => answer.id === "swarm");
    expect(swarm?.answered).toBe(true);
    expect(swarm?.cited_pages[0]).toBe("swarm-robotics.md");
    expect(swarm?.cited_urls[0]).toMatch(/^\/docs\/swarm-robotics/);
    expect(before.questions.find((answer) => answer.id === "ballast")?.answered).toBe(false);
  });

  it("reports what the docs change did to each answer", async () => {
    const result = await lectern([
      "eval",
      "--compare",
      path.join(dir, "before.json"),
      path.join(dir, "after.json"),
      "--json",
    ]);
    const comparison = JSON.parse(result.stdout) as RunComparison;
    const kinds = Object.fromEntries(comparison.changes.map((change) => [change.id, change.kind]));
    expect(kinds).toEqual({
      swarm: "became_unanswerable",
      ballast: "became_answerable",
      zmp: "cited_page_changed",
      urdf: "answer_changed",
    });
    expect(comparison.compared).toBe(5);
    expect(comparison.unchanged).toBe(1);
    const ballast = comparison.changes.find((change) => change.id === "ballast");
    expect(ballast?.after.cited_pages[0]).toBe("underwater.md");
    const zmp = comparison.changes.find((change) => change.id === "zmp");
    expect(zmp?.before.cited_pages[0]).toBe("07-humanoids/02-zmp-and-inverted-pendulum.md");
    expect(zmp?.after.cited_pages[0]).not.toBe("07-humanoids/02-zmp-and-inverted-pendulum.md");
    const urdf = comparison.changes.find((change) => change.id === "urdf");
    expect(urdf?.before.answer).toContain("the XML dialect ROS uses");
    expect(urdf?.after.answer).toContain("every ROS tool reads");
  });

  it("reads as text: a summary line, then each change under its heading", async () => {
    const { stdout } = await lectern([
      "eval",
      "--compare",
      path.join(dir, "before.json"),
      path.join(dir, "after.json"),
    ]);
    expect(stdout).toContain("Compared 5 questions: before.json → after.json");
    expect(stdout).toContain(
      "1 became unanswerable, 1 became answerable, 1 cite another page, 1 answers changed, 1 unchanged",
    );
    expect(stdout).toMatch(
      /Became unanswerable \(1\):\n {2}swarm {2}How does a swarm find food\?\n {6}was answered from swarm-robotics\.md/,
    );
    expect(stdout).toMatch(
      /Became answerable \(1\):\n {2}ballast .*\n {6}now answered from underwater\.md/,
    );
    expect(stdout).toMatch(
      /Cite another page \(1\):\n {2}zmp .*\n {6}07-humanoids\/02-zmp-and-inverted-pendulum\.md → \S+/,
    );
    expect(stdout).toMatch(
      /Answer changed \(1\):\n {2}urdf .*\n.*\n {6}- .*XML dialect.*\n {6}\+ .*every ROS tool reads/,
    );
    expect(stdout).not.toContain("topics  ");
  });

  it("refuses a file that is not a saved run, and a missing second run, with stable errors", async () => {
    await writeFile(path.join(dir, "not-a-run.json"), JSON.stringify({ questions: [] }));
    const invalid = await runCli([
      "eval",
      "--compare",
      path.join(dir, "not-a-run.json"),
      path.join(dir, "after.json"),
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(
      /^error \[EVAL_RUN_INVALID\]: .*not-a-run\.json is not a run saved by lectern eval --save at format/,
    );
    expect(invalid.stderr).not.toMatch(/\bat .+\.ts:\d+/);
    const missing = await runCli(["eval", "--compare", path.join(dir, "before.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "error: Usage: lectern eval --compare <before.json> <after.json>\n",
    );
    const unreadable = await runCli([
      "eval",
      "--compare",
      path.join(dir, "before.json"),
      path.join(dir, "no-such.json"),
    ]);
    expect(unreadable.stderr).toMatch(
      /^error \[EVAL_RUN_INVALID\]: Cannot read .*no-such\.json: ENOENT/,
    );
  });
});
