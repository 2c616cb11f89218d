import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, runCli } from "../../test/cli.ts";

/** The CLI as a user meets it: one clear line per problem, never a stack trace. */

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-cli-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function expectCleanFailure(result: CliResult, code: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(code);
  expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack frames
  expect(result.stderr).not.toContain("node_modules");
}

/** A data directory of its own for each test, so no test sees another's index. */
function dataDirNamed(name: string): string {
  return path.join(workDir, name);
}

async function docsWith(name: string, files: Record<string, string | Uint8Array>): Promise<string> {
  const root = path.join(workDir, name);
  for (const [relative, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), content);
  }
  await mkdir(root, { recursive: true });
  return root;
}

const goodPage =
  "---\ntitle: Servo tuning\n---\n\n## Gains\n\nRaise the proportional gain until the servo oscillates, then halve it.\n";

describe("lectern CLI", () => {
  it("prints usage and exits 2 for an unknown command or option", async () => {
    const unknownCommand = await runCli(["fly"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain('Unknown command "fly"');
    const unknownOption = await runCli(["ask", "x", "--colour"]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/--colour/);
  });

  it("reports a wrong command line as such before choosing among several books", async () => {
    // Two books under ./.lectern: a command that reads one would ask which.
    const project = path.join(workDir, "two-books");
    for (const book of ["garden-docs", "kitchen-docs"]) {
      await mkdir(path.join(project, ".lectern", book, "db"), { recursive: true });
    }
    const mistakes: [string[], string][] = [
      [["fly"], 'Unknown command "fly"'],
      [["ask"], "Missing the question"],
      [["ask", "x", "--top-k", "0"], "--top-k must be an integer"],
      [["ask", "x", "--top-k"], "argument missing"],
      [["eval"], "Missing --questions"],
      [["eval", "--compare", "before.json"], "Usage: lectern eval --compare"],
      [["llms-txt"], "Missing --out"],
      [
        ["serve", "docs"],
        'Unexpected argument "docs" after "lectern serve". To read a docs folder: --docs docs.',
      ],
    ];
    const results = await Promise.all(mistakes.map(([args]) => runCli(args, { cwd: project })));
    for (const [index, result] of results.entries()) {
      const [args, message] = mistakes[index] ?? [[], ""];
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(message);
      expect(result.stderr, args.join(" ")).not.toContain("several books");
    }
    const insights = await runCli(["insights", "--since", "a week"], { cwd: project });
    expect(insights.stderr).toMatch(/^error \[VALIDATION_ERROR\]: Invalid period "a week"/);
    // A right command line still asks which book.
    const ask = await runCli(["ask", "x"], { cwd: project });
    expect(ask.code).toBe(2);
    expect(ask.stderr).toContain("several books (garden-docs, kitchen-docs)");
  });

  it("reports a missing docs directory in one line", async () => {
    const result = await runCli([
      "ingest",
      "--docs",
      path.join(workDir, "nope"),
      "--data-dir",
      dataDirNamed("d1"),
    ]);
    expectCleanFailure(
      result,
      /^error \[DOCS_DIR_NOT_FOUND\]: Docs directory not found: .*nope\n$/,
    );
  });

  it("reports an empty docs directory", async () => {
    const empty = await docsWith("empty", { "notes.txt": "not markdown" });
    const result = await runCli(["ingest", "--docs", empty, "--data-dir", dataDirNamed("d2")]);
    expectCleanFailure(result, /^error \[DOCS_DIR_EMPTY\]: No \.md or \.mdx files in /);
  });

  it("asks to ingest first when nothing has been ingested", async () => {
    const result = await runCli(["ask", "what is torque?", "--data-dir", dataDirNamed("d3")]);
    expectCleanFailure(result, /error \[INDEX_EMPTY\].*lectern ingest --docs/);
  });

  it("skips bad files with their path (and line), ingests the rest, and exits 0 unless --strict", async () => {
    const docs = await docsWith("mixed", {
      "good.md": goodPage,
      "binary.md": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]),
      "bad-yaml.md": "---\ntitle: Broken\ntags: [unclosed\n---\n\nBody.\n",
      "bad.mdx": "---\ntitle: Bad\n---\n\nText {unclosed expression\n",
    });
    await symlink(path.join(docs, "missing-target.md"), path.join(docs, "dangling.md"));
    const dataDir = dataDirNamed("d4");
    const result = await runCli(["ingest", "--docs", docs, "--data-dir", dataDir]);
    // One bad page does not fail a build that ingests the book; the report still names it.
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/binary\.md: not a text file/);
    expect(result.stderr).toMatch(/--strict makes this an error/);
    expect(result.stderr).toMatch(/bad-yaml\.md:\d+: invalid frontmatter YAML/);
    expect(result.stderr).toMatch(/dangling\.md: cannot read file \(ENOENT\)/);
    expect(result.stderr).toContain("3 file(s) could not be ingested");
    // MDX that does not parse is indexed as CommonMark, with a warning.
    expect(result.stdout).toContain(
      "Files: 2 added, 0 updated, 0 removed, 0 unchanged, 3 failed, 1 warning",
    );
    expect(result.stdout).toMatch(/⚠ bad\.mdx:5: cannot parse MDX/);

    const strict = await runCli(["ingest", "--docs", docs, "--data-dir", dataDir, "--strict"]);
    expectCleanFailure(strict, /binary\.md: not a text file/);
    expect(strict.stderr).toContain("3 file(s) could not be ingested");

    const ask = await runCli([
      "ask",
      "how do I tune the servo gains?",
      "--data-dir",
      dataDir,
      "--json",
    ]);
    expect(ask.code).toBe(0);
    const body = JSON.parse(ask.stdout) as { sources: { file_path: string; source_url: string }[] };
    expect(body.sources[0]?.file_path).toBe("good.md");
    expect(body.sources[0]?.source_url).toBe("/docs/good#gains");
  });

  it("ingests a page with NUL bytes without them, and says so in the summary", async () => {
    const docs = await docsWith("nul-bytes", {
      "flywheel.md": "# Flywheel\n\nA flywheel stores\u0000 rotational energy.\n",
    });
    const dataDir = dataDirNamed("nul");
    const result = await runCli(["ingest", "--docs", docs, "--data-dir", dataDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "Files: 1 added, 0 updated, 0 removed, 0 unchanged, 1 warning\n",
    );
    expect(result.stdout).toContain(
      "⚠ flywheel.md:3: dropped 1 NUL byte (not text); the rest of the page is indexed",
    );
    const ask = await runCli([
      "ask",
      "what stores rotational energy?",
      "--data-dir",
      dataDir,
      "--json",
    ]);
    const body = JSON.parse(ask.stdout) as { answer: string; sources: { file_path: string }[] };
    expect(body.sources[0]?.file_path).toBe("flywheel.md");
    expect(body.answer).toContain("stores rotational energy");
  });

  it("leaves the previous index intact when a later ingest fails", async () => {
    const docs = await docsWith("stable", { "good.md": goodPage });
    const dataDir = dataDirNamed("d5");
    expect((await runCli(["ingest", "--docs", docs, "--data-dir", dataDir])).code).toBe(0);
    await writeFile(
      path.join(docs, "good.md"),
      "---\ntitle: [broken\n---\nNew text about flywheels.\n",
    );
    const failed = await runCli(["ingest", "--docs", docs, "--data-dir", dataDir, "--strict"]);
    expectCleanFailure(failed, /good\.md:\d+: invalid frontmatter YAML/);
    const ask = await runCli(["ask", "proportional gain servo", "--data-dir", dataDir, "--json"]);
    const body = JSON.parse(ask.stdout) as { answer: string; sources: { file_path: string }[] };
    expect(body.sources[0]?.file_path).toBe("good.md");
    expect(body.answer).toContain("proportional gain");
  });

  it("reports a corrupted data directory without a stack trace", async () => {
    const dataDir = dataDirNamed("d6");
    await mkdir(path.join(dataDir, "db", "global"), { recursive: true });
    await writeFile(path.join(dataDir, "db", "PG_VERSION"), "17\n");
    await writeFile(
      path.join(dataDir, "db", "global", "pg_control"),
      "garbage that is not a control file",
    );
    const result = await runCli(["ask", "anything", "--data-dir", dataDir]);
    expectCleanFailure(
      result,
      /^error \[DATA_DIR_CORRUPT\]: Cannot open the database in .*d6\/db.*Move the directory away/,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("refuses to ingest while another ingest of the book runs, before opening the database", async () => {
    const docs = await docsWith("busy", { "good.md": goodPage });
    const dataDir = dataDirNamed("d8");
    await mkdir(dataDir, { recursive: true });
    // This test's own process stands for the other ingest: it is alive.
    await writeFile(
      path.join(dataDir, "ingest-default.lock"),
      JSON.stringify({ pid: process.pid, since: "2026-01-01T00:00:00Z" }),
    );
    const result = await runCli(["ingest", "--docs", docs, "--data-dir", dataDir]);
    expectCleanFailure(
      result,
      new RegExp(
        `^error \\[INGEST_LOCKED\\]: Another ingest of "default" is running .*\\(pid ${process.pid},`,
      ),
    );
    expect(existsSync(path.join(dataDir, "db"))).toBe(false);
  });

  it("reports a damaged table file with the data directory guidance, not an internal error", async () => {
    const docs = await docsWith("damaged", { "good.md": goodPage });
    const dataDir = dataDirNamed("d7");
    expect((await runCli(["ingest", "--docs", docs, "--data-dir", dataDir])).code).toBe(0);
    const db = new PGlite(path.join(dataDir, "db"));
    const file = (await db.query<{ file: string }>("SELECT pg_relation_filepath('chunks') AS file"))
      .rows[0]?.file;
    await db.close();
    // The table's file overwritten on disk (a bad disk, a copy cut short).
    await writeFile(path.join(dataDir, "db", file ?? "missing"), Buffer.alloc(16_384, 7));
    // Without the book's files beside it, `ask` reads the database.
    await rm(path.join(dataDir, "index"), { recursive: true });
    const result = await runCli(["ask", "servo gains", "--data-dir", dataDir]);
    expectCleanFailure(
      result,
      /^error \[DATA_DIR_CORRUPT\]: The book's database is damaged \(invalid page in block 0 .*\)\. Move the data directory away/,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("rejects a malformed questions file naming the line", async () => {
    const file = path.join(workDir, "questions.jsonl");
    await writeFile(
      file,
      '{"id":"q1","question":"ok?","expected_pages":[]}\n{"id":"q2","question":\n',
    );
    const result = await runCli(["eval", "--questions", file, "--data-dir", dataDirNamed("d7")]);
    expectCleanFailure(
      result,
      /error \[QUESTIONS_FILE_INVALID\]: .*questions\.jsonl:2: not valid JSON/,
    );
    await writeFile(file, '{"id":"q1","question":"ok?","expected_pages":"a.md"}\n');
    const wrongType = await runCli(["eval", "--questions", file, "--data-dir", dataDirNamed("d7")]);
    expectCleanFailure(wrongType, /questions\.jsonl:1: expected_pages: /);
  });

  it("rejects an invalid configuration naming the variable", async () => {
    const result = await runCli(["ask", "x", "--data-dir", dataDirNamed("d8")], {
      env: { LECTERN_TOP_K: "many" },
    });
    expectCleanFailure(
      result,
      /error \[CONFIG_INVALID\]: Environment variable LECTERN_TOP_K must be an integer/,
    );
  });
});
