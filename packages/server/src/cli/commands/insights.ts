import type { Config } from "../../config/config.ts";
import { loadInsights } from "../../insights/load.ts";
import { type InsightsReport, parseDuration } from "../../insights/report.ts";
import { createSafeLogger } from "../../util/safe-log.ts";
import type { Flags } from "../flags.ts";
import { requireDataDir, withLectern } from "../open-book.ts";

/** `lectern insights [--since 7d] [--json]`: what readers asked, from the server's question log. */
export async function insightsCommand(config: Config, flags: Flags): Promise<number> {
  const period = parseDuration(flags.since ?? "7d");
  requireDataDir(config);
  return withLectern(config, async (lectern) => {
    const until = new Date();
    const logger = createSafeLogger("warn");
    const report = await loadInsights(
      lectern,
      { since: new Date(until.getTime() - period), until },
      {
        warn: (error) =>
          logger.warn(
            { err: error },
            "Embedding the questions failed: topics are grouped lexically",
          ),
      },
    );
    process.stdout.write(
      flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatInsights(report, config),
    );
    return 0;
  });
}

export function formatInsights(report: InsightsReport, config: Pick<Config, "insights">): string {
  const lines: string[] = [];
  const { totals } = report;
  const section = (title: string, items: string[], empty: string) => {
    lines.push("", title);
    lines.push(...(items.length > 0 ? items.map((item) => `  ${item}`) : [`  ${empty}`]));
  };
  lines.push(
    `Insights${report.title ? ` · ${report.title}` : ""}: ${report.period.since.slice(0, 10)} to ${report.period.until.slice(0, 10)} (UTC)`,
  );
  if (config.insights.mode === "off") {
    lines.push("The question log is off (INSIGHTS=off): only questions logged before appear.");
  }
  lines.push(
    `${totals.questions} questions: ${totals.answered} answered, ${totals.lowConfidence} low confidence, ${totals.unanswered} unanswered; ${totals.thumbsUp} thumbs up, ${totals.thumbsDown} down`,
  );
  section(
    `Top questions by topic (grouped by ${report.topicsMethod === "embeddings" ? "embeddings" : "shared terms"})`,
    report.topics.flatMap((topic) => [
      `${topic.label} (${topic.count})${topic.terms.length > 0 ? `, with ${topic.terms.join(", ")}` : ""}`,
      ...topic.questions
        .slice(0, 3)
        .map(
          (question) => `  - ${question.text}${question.count > 1 ? ` ×${question.count}` : ""}`,
        ),
    ]),
    "No topic shared by two questions.",
  );
  section(
    "Unanswered and low-confidence questions",
    report.unanswered.map(
      (question) =>
        `${question.text} [${question.kind === "no_results" ? "unanswered" : "low confidence"}] ×${question.count}, last ${question.lastAsked.slice(0, 10)}`,
    ),
    "None.",
  );
  section(
    "Thumbs-down answers",
    report.thumbsDown.map(
      (answer) =>
        `${answer.question} (${answer.askedAt.slice(0, 10)})${answer.comment ? `: "${answer.comment}"` : ""}`,
    ),
    "None.",
  );
  section(
    "Pages most cited",
    report.pages.mostCited.map((page) => `${page.count}  ${page.title} ${page.url}`),
    "None yet.",
  );
  section(
    "Pages never cited",
    report.pages.neverCited.map((page) => `${page.title} ${page.url}`),
    "None: every page was cited.",
  );
  section(
    "Vocabulary gaps (words readers use that the book never does)",
    report.vocabularyGaps.map(
      (gap) =>
        `${gap.word} ×${gap.count}${gap.pages.length > 0 ? ` → ${gap.pages.map((page) => page.url).join(", ")}` : ""}; proposed: ${gap.proposal.kind === "synonym" ? `synonym "${gap.proposal.phrase}"` : "a glossary entry"}`,
    ),
    "None.",
  );
  section(
    "Stale answers (cited passages changed since)",
    report.staleAnswers.map(
      (answer) =>
        `${answer.question} (${answer.askedAt.slice(0, 10)}): ${answer.pages.map((page) => `${page.url} ${page.change}`).join(", ")}`,
    ),
    "None.",
  );
  for (const [title, items] of sliceSections(report)) section(title, items, "None.");
  if (report.synonymsProposal) {
    lines.push("", "Proposed lectern.synonyms.yml entries:", report.synonymsProposal.trimEnd());
  }
  return `${lines.join("\n")}\n`;
}

/** On a book with several versions or locales: each one's unanswered questions and gaps. */
function sliceSections(report: InsightsReport): [string, string[]][] {
  return (report.slices ?? []).map((slice) => {
    const name = [
      slice.version === null ? undefined : `version ${slice.version}`,
      slice.locale === null ? undefined : `locale ${slice.locale}`,
    ]
      .filter(Boolean)
      .join(", ");
    return [
      `In ${name || "no version or locale"}: ${slice.questions} questions; unanswered, low confidence and vocabulary gaps`,
      [
        ...slice.unanswered.map(
          (question) =>
            `${question.text} [${question.kind === "no_results" ? "unanswered" : "low confidence"}] ×${question.count}`,
        ),
        ...slice.vocabularyGaps.map((gap) => `gap: ${gap.word} ×${gap.count}`),
      ],
    ];
  });
}
