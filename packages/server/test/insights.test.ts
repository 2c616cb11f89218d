import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Retriever } from "@lectern/engine/search/retriever";
import { indexOf } from "@lectern/engine/search/test-builders";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInsights } from "../src/cli/commands/insights.ts";
import { type Config, loadConfig } from "../src/config/config.ts";
import { adminPage } from "../src/http/admin-page.ts";
import { composeApp } from "../src/http/compose.ts";
import { loadInsights } from "../src/insights/load.ts";
import type { InsightsReport } from "../src/insights/report.ts";
import { type Lectern, openLectern } from "../src/lectern.ts";
import { QuestionLogStore } from "../src/store/question-log-store.ts";
import { SAMPLE_DOCS } from "./cli.ts";
import { createFakeEmbedder } from "./doubles/fake-embedder.ts";
import { askChat, expectError, postJson } from "./http-fixture.ts";

/**
 * The authors' side on the sample book: questions asked over HTTP land in the question log
 * (redacted), and the insights built from it find topics, vocabulary gaps, thumbs-down answers,
 * pages cited and never cited, and answers gone stale after a page changed and was re-ingested.
 */

const TOKEN = "insights-test-admin-token";
const bearer = { authorization: `Bearer ${TOKEN}` };

let docsDir: string;
let dataDir: string;
let lectern: Lectern;

function configFor(env: Record<string, string> = {}): Config {
  return loadConfig({
    env: {
      LOG_LEVEL: "silent",
      RATE_LIMIT_ENABLED: "false",
      INSIGHTS_FLUSH_MS: "10",
      LECTERN_ADMIN_TOKEN: TOKEN,
      ...env,
    },
    overrides: { dataDir, docsDir, synonyms: { mailbox: "topic" } },
  });
}

function appFor(env: Record<string, string> = {}) {
  return composeApp(lectern, configFor(env), {
    logger: pino({ level: "silent" }),
    siteAndFeedback: true,
  });
}

let served: ReturnType<typeof appFor>;

async function insights(): Promise<InsightsReport> {
  const response = await served.app.request("/admin?format=json&since=1d", { headers: bearer });
  expect(response.status).toBe(200);
  return (await response.json()) as InsightsReport;
}

beforeAll(async () => {
  docsDir = await mkdtemp(path.join(tmpdir(), "lectern-insights-docs-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-insights-data-"));
  await cp(SAMPLE_DOCS, docsDir, { recursive: true });
  lectern = await openLectern(configFor());
  const report = await lectern.ingest(docsDir);
  if (report.failures.length > 0) throw new Error("the sample book failed to ingest");
  served = appFor();
}, 120_000);

afterAll(async () => {
  await served?.close();
  await lectern?.close();
  await rm(docsDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe("the question log", () => {
  it("keeps each answered question redacted, with what its answer stood on", async () => {
    const answer = await askChat(served.app, { query: "How do I write a URDF file?" });
    await askChat(served.app, {
      query: "How do I write a URDF file? Reply to jane.doe@example.com or +1 (555) 123-4567",
    });
    await askChat(served.app, { query: "Hello!" });
    await askChat(served.app, {
      query: "What does this mean?",
      selected_text: "A launch file starts several nodes. My key is sk-proj-abcdefghijklmnop1234",
    });
    const store = new QuestionLogStore(lectern.db, "default");
    await expect.poll(async () => (await store.since(new Date(0))).length).toBe(3);
    const [logged, personal, selection] = await store.since(new Date(0));
    expect(logged?.question).toBe("How do I write a URDF file?");
    expect(logged?.messageId).toBe(answer.message_id);
    expect(logged?.mode).toBe(answer.metadata.mode);
    expect(logged?.lowConfidence).toBe(answer.metadata.low_confidence);
    const scores = answer.sources.map((source) =>
      "similarity_score" in source ? source.similarity_score : 0,
    );
    expect(logged?.topScore).toBe(Math.max(...scores));
    // Each passage the answer cites, with the content hash it had, as the index holds it now;
    // the sources it found but does not cite are not what it stood on.
    const citedSources = answer.sources.filter(
      (source) => source.source_type === "book" && source.cited !== false,
    );
    expect(citedSources.length).toBeGreaterThan(0);
    expect(citedSources.length).toBeLessThan(answer.sources.length);
    expect(logged?.cited.map((cited) => cited.url)).toEqual(
      citedSources.map((source) => pathOf(source.source_url)),
    );
    for (const cited of logged?.cited ?? []) {
      expect(indexOf(lectern).chunkById(cited.chunkId)?.contentHash).toBe(cited.contentHash);
    }
    // The reader's contact details never reach the log, not even as words the book lacks.
    expect(personal?.question).toBe("How do I write a URDF file? Reply to [email] or [phone]");
    expect(personal?.unknownWords).not.toEqual(expect.arrayContaining(["jane"]));
    // Greetings are not questions; a selection is not kept unless configured.
    expect(selection?.question).toBe("What does this mean?");
    expect(selection?.selectedText).toBeNull();
    // Whole pieces of the contact details: a random id may hold "555" by chance.
    expect(JSON.stringify(await store.since(new Date(0)))).not.toMatch(
      /jane|\(555\)|123-4567|sk-proj/,
    );
  });

  it("keeps the selection, redacted, when INSIGHTS_KEEP_SELECTED_TEXT is set", async () => {
    const keeping = appFor({ INSIGHTS_KEEP_SELECTED_TEXT: "true" });
    await askChat(keeping.app, {
      query: "Explain this selection",
      selected_text: "Nodes publish on topics. Mail ops@robots.example for access.",
    });
    await keeping.close();
    const rows = await new QuestionLogStore(lectern.db, "default").since(new Date(0));
    expect(rows.at(-1)?.selectedText).toBe("Nodes publish on topics. Mail [email] for access.");
  });

  it("is not written with INSIGHTS=off, and the admin page is then absent", async () => {
    const off = appFor({ INSIGHTS: "off" });
    expect(off.questionLogStore).toBeUndefined();
    const before = (await new QuestionLogStore(lectern.db, "default").since(new Date(0))).length;
    await askChat(off.app, { query: "What is a topic?" });
    await off.close();
    expect((await new QuestionLogStore(lectern.db, "default").since(new Date(0))).length).toBe(
      before,
    );
    await expectError(await off.app.request("/admin", { headers: bearer }), 404, "NOT_FOUND");
  });
});

describe("GET /admin", () => {
  it("answers 401 with a Basic challenge without the token, and 404 when no token is set", async () => {
    const missing = await served.app.request("/admin");
    await expectError(missing, 401, "UNAUTHORIZED");
    expect(missing.headers.get("www-authenticate")).toMatch(/^Basic realm="Lectern admin"/);
    const wrong = await served.app.request("/admin", {
      headers: { authorization: "Bearer not-the-admin-token" },
    });
    await expectError(wrong, 401, "UNAUTHORIZED");
    // The right token, but not as `Bearer <token>` (nor as a Basic password).
    const bare = await served.app.request("/admin", { headers: { authorization: TOKEN } });
    await expectError(bare, 401, "UNAUTHORIZED");
    const wrongBasic = await served.app.request("/admin", {
      headers: { authorization: `Basic ${Buffer.from("author:guess").toString("base64")}` },
    });
    await expectError(wrongBasic, 401, "UNAUTHORIZED");
    const withoutToken = composeApp(lectern, configFor({ LECTERN_ADMIN_TOKEN: "" }), {
      logger: pino({ level: "silent" }),
    });
    const absent = await withoutToken.app.request("/admin", { headers: bearer });
    const body = await expectError(absent, 404, "NOT_FOUND");
    expect(body.message).toMatch(/LECTERN_ADMIN_TOKEN/);
    await withoutToken.close();
  });

  it("serves the page for the bearer token and for Basic credentials with it as password", async () => {
    const page = await served.app.request("/admin", { headers: bearer });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).not.toMatch(/unsafe-inline/);
    // Its own inline style only: no script at all, and none of the book pages' hashes.
    expect(policy).toMatch(/script-src 'self'; style-src 'self' 'sha256-[\w+/=]+';/);
    const html = await page.text();
    expect(html).toContain('<svg role="img"');
    expect(html).toContain("Vocabulary gaps");
    const basic = await served.app.request("/admin?since=30d", {
      headers: { authorization: `Basic ${Buffer.from(`author:${TOKEN}`).toString("base64")}` },
    });
    expect(basic.status).toBe(200);
  });

  it("refuses a period it cannot read", async () => {
    const response = await served.app.request("/admin?since=last-week", { headers: bearer });
    const body = await expectError(response, 422, "VALIDATION_ERROR");
    expect(body.message).toMatch(/30m, 12h, 7d or 2w/);
  });
});

describe("insights on the sample book", () => {
  it("finds a word the book lacks, where the question's other words point, and proposes a synonym", async () => {
    await askChat(served.app, { query: "How does a droid keep its balance?" });
    await askChat(served.app, { query: "Why does my droid fall over when walking?" });
    const report = await insights();
    const gap = report.vocabularyGaps.find((entry) => entry.word === "droid");
    expect(gap?.count).toBe(2);
    expect(gap?.pages.map((page) => page.url)).toContain("/docs/humanoids/center-of-mass");
    expect(gap?.proposal).toEqual({ kind: "synonym", phrase: "humanoid" });
    expect(report.synonymsProposal).toMatch(
      /^droid: humanoid {2}# asked 2 times; points to \/docs\/humanoids/m,
    );
  });

  it("applies the configured synonyms: 'mailbox' is searched as 'topic' and is no gap", async () => {
    const question = "Which mailbox do nodes write sensor data to?";
    const plain = new Retriever(indexOf(lectern), { topK: 5, maxChunksPerPage: 1 }).searchLexical(
      question,
    );
    expect(plain.unknownWords).toEqual(["mailbox"]);
    expect(plain.results.map((result) => result.chunk.url)).not.toContain("/docs/ros2/topics");
    const answer = await askChat(served.app, { query: question });
    expect(answer.sources.map((source) => pathOf(source.source_url))).toContain(
      "/docs/ros2/topics",
    );
    const report = await insights();
    expect(report.vocabularyGaps.map((entry) => entry.word)).not.toContain("mailbox");
  });

  it("lists thumbs-down answers with their comments, and unanswered questions", async () => {
    const session = crypto.randomUUID();
    const answer = await askChat(served.app, {
      query: "How do I calibrate a camera?",
      session_id: session,
    });
    const vote = await postJson(served.app, "/feedback", {
      session_id: session,
      message_id: answer.message_id,
      rating: "down",
      comment: "It never says which checkerboard to print",
    });
    expect(vote.status).toBe(201);
    await askChat(served.app, { query: "Can I pay for the course by invoice?" });
    await askChat(served.app, { query: "can I pay for the course by invoice" });
    const report = await insights();
    expect(report.thumbsDown[0]).toMatchObject({
      question: "How do I calibrate a camera?",
      comment: "It never says which checkerboard to print",
    });
    expect(report.totals.thumbsDown).toBe(1);
    expect(report.unanswered[0]).toMatchObject({
      text: "Can I pay for the course by invoice?",
      count: 2,
      kind: "no_results",
    });
    expect(report.perDay.at(-1)?.unanswered).toBeGreaterThanOrEqual(2);
    // Nothing in the book matches the question's other words either: a glossary entry, not a synonym.
    const invoice = report.vocabularyGaps.find((gap) => gap.word === "invoice");
    expect(invoice).toMatchObject({ count: 2, pages: [], proposal: { kind: "glossary" } });
    expect(report.synonymsProposal).toMatch(
      /^# invoice: asked 2 times; nothing in the book matches/m,
    );
    const asked = report.totals.answered + report.totals.lowConfidence + report.totals.unanswered;
    expect(asked).toBe(report.totals.questions);
  });

  it("counts pages cited, and lists the pages never cited", async () => {
    const report = await insights();
    const cited = report.pages.mostCited.map((page) => page.url);
    expect(cited).toContain("/docs/description/urdf");
    const never = report.pages.neverCited.map((page) => page.url);
    expect(never).not.toContain("/docs/description/urdf");
    const pages = await lectern.store.pages();
    expect(cited.length + never.length).toBe(pages.length);
  });

  it("flags an answer as stale once a page it cited changed and was ingested again", async () => {
    const question = "What is inside a URDF joint element?";
    const answer = await askChat(served.app, { query: question });
    expect((await insights()).staleAnswers.map((answer) => answer.question)).not.toContain(
      question,
    );
    // The page the answer cites first is the one that changes.
    const cited = answer.sources.find(
      (source) => source.source_type === "book" && source.cited !== false,
    );
    if (cited?.source_type !== "book") throw new Error("The answer cites no page.");
    const page = path.join(docsDir, cited.file_path);
    const text = await readFile(page, "utf8");
    // Every section changes, so whichever passage the answer cited has a new content hash.
    await writeFile(page, text.replace(/^(#{1,3} .+)$/gm, "$1\n\nRevised for the new release."));
    const reingested = await lectern.ingest(docsDir);
    expect(reingested.changed).toBe(true);
    const stale = (await insights()).staleAnswers.find((answer) => answer.question === question);
    expect(stale?.pages).toEqual([
      { title: cited.title, url: pathOf(cited.source_url).replace(/#.*$/, ""), change: "changed" },
    ]);
  });

  it("groups the questions into topics", async () => {
    await askChat(served.app, { query: "What is a topic in ROS 2?" });
    await askChat(served.app, { query: "How many subscribers can a topic have?" });
    const report = await insights();
    const topic = report.topics.find(
      (entry) => entry.label === "topic" || entry.label === "topics",
    );
    expect(topic?.questions.map((entry) => entry.text)).toEqual(
      expect.arrayContaining([
        "What is a topic in ROS 2?",
        "How many subscribers can a topic have?",
      ]),
    );
    // The sample book is served without an embedder: its topics are lexical, and say so.
    expect(report.topicsMethod).toBe("lexical");
    expect(formatInsights(report, configFor())).toContain(
      "Top questions by topic (grouped by shared terms)",
    );
    expect(adminPage(report, { title: "Insights", since: "1d" })).toContain(
      "Grouped by the words the questions share.",
    );
  });

  it("groups questions by their embeddings when the book has an embedder, lexically when it fails", async () => {
    const paraphrases = ["How often does a car need upkeep?", "Automobile maintenance schedule"];
    for (const query of paraphrases) await askChat(served.app, { query });
    await insights(); // the question log is flushed
    const period = { since: new Date(Date.now() - 86_400_000), until: new Date() };
    const embedder = createFakeEmbedder();
    const byMeaning = await loadInsights({ ...lectern, embedder }, period);
    expect(byMeaning.topicsMethod).toBe("embeddings");
    expect(embedder.calls.flat()).toEqual(expect.arrayContaining(paraphrases));
    const together = byMeaning.topics.find((topic) =>
      paraphrases.every((text) => topic.questions.some((question) => question.text === text)),
    );
    expect(together).toBeDefined();
    expect(formatInsights(byMeaning, configFor())).toContain(
      "Top questions by topic (grouped by embeddings)",
    );
    expect(adminPage(byMeaning, { title: "Insights", since: "1d" })).toContain(
      "Grouped by the questions' embeddings",
    );

    const warnings: unknown[] = [];
    const failing = {
      ...embedder,
      embed: async () => {
        throw new Error("embedding endpoint unavailable");
      },
    };
    const lexical = await loadInsights({ ...lectern, embedder: failing }, period, {
      warn: (error) => warnings.push(error),
    });
    expect(lexical.topicsMethod).toBe("lexical");
    expect(warnings).toHaveLength(1);
    expect(
      lexical.topics.some((topic) => topic.label === "topic" || topic.label === "topics"),
    ).toBe(true);
    expect(
      lexical.topics.some((topic) =>
        paraphrases.every((text) => topic.questions.some((question) => question.text === text)),
      ),
    ).toBe(false);
  });

  it("proposes no synonym for the words of a question the book does not cover", async () => {
    const question = "How do I send pizza and pasta to a friend?";
    const refused = await askChat(served.app, { query: question });
    expect(refused.metadata.mode).toBe("no_results");
    const report = await insights();
    const pizza = report.vocabularyGaps.find((gap) => gap.word === "pizza");
    expect(pizza?.questions).toContain(question);
    expect(pizza?.proposal).toEqual({ kind: "glossary" });
    expect(report.synonymsProposal).not.toMatch(/^pizza:/m);
  });
});

/** A source URL as the question log keeps it: the book's path (responses carry the origin too). */
function pathOf(url: string | null | undefined): string {
  return (url ?? "").replace(/^https?:\/\/[^/]+/, "");
}
