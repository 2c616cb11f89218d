import { createHash } from "node:crypto";
import { escapeHtml } from "../ingest/render-html.ts";
import type { InsightsReport, PageRef } from "../insights/report.ts";

/**
 * GET /admin as a page: the insights report for people who would rather look than read. Charts
 * are inline SVG drawn here (no chart library); the one style sheet is inline and allowed by its
 * hash in the Content-Security-Policy; there is no script. Lists wrap instead of scrolling, so the
 * page fits a phone's width.
 */

const COLORS = { answered: "#2e7d32", lowConfidence: "#8f5600", unanswered: "#c62828" } as const;

export const ADMIN_STYLE = `
:root { color-scheme: light; --text: #1c1e21; --muted: #525860; --bg: #fff; --panel: #f3f4f6; --link: #1f5fbf; --line: #d8dadf; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: var(--bg); overflow-wrap: anywhere; }
header { padding: 1rem 1.2rem 0.6rem; border-bottom: 1px solid var(--line); }
header > div { max-width: 61.6rem; margin: 0 auto; }
header h1 { margin: 0; font-size: 1.5rem; line-height: 1.25; }
header p { margin: 0.2rem 0 0; color: var(--muted); }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0; margin: 0.6rem 0 0; }
nav a { display: inline-block; padding: 0.35rem 0.8rem; border: 1px solid var(--line); border-radius: 999px; color: var(--link); text-decoration: none; min-height: 2.2rem; }
nav a[aria-current="page"] { background: var(--link); border-color: var(--link); color: #fff; }
main { padding: 1rem 1.2rem 3rem; max-width: 64rem; margin: 0 auto; }
a { color: var(--link); }
section { margin: 1.6rem 0; }
h2 { font-size: 1.2rem; margin: 0 0 0.6rem; }
h3 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(8.5rem, 1fr)); gap: 0.6rem; list-style: none; padding: 0; margin: 0; }
.cards li { background: var(--panel); border-radius: 8px; padding: 0.6rem 0.8rem; }
.cards strong { display: block; font-size: 1.6rem; line-height: 1.2; }
.cards span { color: var(--muted); font-size: 0.9rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 1rem; }
figure { margin: 0; background: var(--panel); border-radius: 8px; padding: 0.8rem; min-width: 0; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { font-size: 0.9rem; color: var(--muted); margin-top: 0.4rem; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; list-style: none; padding: 0; margin: 0.4rem 0 0; font-size: 0.9rem; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.35rem; vertical-align: -0.05rem; }
.answered { background: ${COLORS.answered}; } .low { background: ${COLORS.lowConfidence}; } .unanswered { background: ${COLORS.unanswered}; }
ul.items, ol.items { padding-left: 1.2rem; margin: 0; }
.items li { margin: 0.35rem 0; }
.meta { color: var(--muted); font-size: 0.9rem; }
.badge { display: inline-block; font-size: 0.8rem; padding: 0 0.45rem; border-radius: 4px; background: var(--panel); border: 1px solid var(--line); margin-left: 0.3rem; }
.topics { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 18rem), 1fr)); gap: 0.8rem; list-style: none; padding: 0; margin: 0; }
.topics > li { border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.8rem; }
blockquote { margin: 0.2rem 0 0; padding-left: 0.7rem; border-left: 3px solid var(--line); color: var(--muted); }
pre { background: var(--panel); padding: 0.8rem; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.empty { color: var(--muted); }
`;

/** The CSP hash source of the page's inline style. */
export const ADMIN_STYLE_SOURCE = `'sha256-${createHash("sha256").update(ADMIN_STYLE).digest("base64")}'`;

export const PERIODS = ["1d", "7d", "30d", "90d"] as const;

export function adminPage(
  report: InsightsReport,
  options: { title: string; since: string },
): string {
  const { totals } = report;
  const share = (part: number) =>
    totals.questions === 0 ? "" : ` (${Math.round((100 * part) / totals.questions)}&nbsp;%)`;
  const periods = PERIODS.map(
    (period) =>
      `<li><a href="/admin?since=${period}"${period === options.since ? ' aria-current="page"' : ""}>${period === "1d" ? "Last day" : `Last ${period.replace("d", " days")}`}</a></li>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Insights · ${escapeHtml(options.title)}</title>
<style>${ADMIN_STYLE}</style>
</head>
<body>
<header><div>
<h1>Insights · ${escapeHtml(options.title)}</h1>
<p>What readers asked from ${day(report.period.since)} to ${day(report.period.until)} (UTC).</p>
<nav aria-label="Period"><ul>${periods}</ul></nav>
</div></header>
<main>
<section aria-labelledby="summary">
<h2 id="summary">Summary</h2>
<ul class="cards">
<li><strong>${totals.questions}</strong><span>questions</span></li>
<li><strong>${totals.answered}</strong><span>answered${share(totals.answered)}</span></li>
<li><strong>${totals.lowConfidence}</strong><span>low confidence${share(totals.lowConfidence)}</span></li>
<li><strong>${totals.unanswered}</strong><span>unanswered${share(totals.unanswered)}</span></li>
<li><strong>${totals.thumbsUp} / ${totals.thumbsDown}</strong><span>thumbs up / down</span></li>
</ul>
</section>
<section aria-labelledby="charts">
<h2 id="charts">Questions over time</h2>
<div class="charts">
<figure>${perDayChart(report.perDay)}<figcaption>Questions per day.</figcaption>${legend()}</figure>
<figure>${shareChart(totals)}<figcaption>Answered, low confidence and unanswered, of all questions.</figcaption>${legend()}</figure>
</div>
</section>
<section aria-labelledby="topics">
<h2 id="topics">Top questions by topic</h2>
<p class="meta">${report.topicsMethod === "embeddings" ? "Grouped by the questions' embeddings (similar meaning)." : "Grouped by the words the questions share."}</p>
${topicsList(report)}
</section>
<section aria-labelledby="unanswered">
<h2 id="unanswered">Unanswered and low-confidence questions</h2>
${list(
  report.unanswered.map(
    (question) =>
      `${escapeHtml(question.text)} <span class="badge">${question.kind === "no_results" ? "unanswered" : "low confidence"}</span> <span class="meta">${times(question.count)}, last ${day(question.lastAsked)}</span>`,
  ),
  "Every question found an answer.",
)}
</section>
<section aria-labelledby="thumbs-down">
<h2 id="thumbs-down">Thumbs-down answers</h2>
${list(
  report.thumbsDown.map(
    (answer) =>
      `${escapeHtml(answer.question)} <span class="meta">${day(answer.askedAt)}${answer.pages.length > 0 ? ` · cited ${pageLinks(answer.pages)}` : ""}</span>${answer.comment ? `<blockquote>${escapeHtml(answer.comment)}</blockquote>` : ""}`,
  ),
  "No answer was rated down.",
)}
</section>
<section aria-labelledby="pages">
<h2 id="pages">Pages</h2>
<h3>Most cited</h3>
${list(
  report.pages.mostCited.map(
    (page) => `${pageLink(page)} <span class="meta">${times(page.count, "answer")}</span>`,
  ),
  "No answer cited a page yet.",
  "ol",
)}
<h3>Never cited</h3>
${list(
  report.pages.neverCited.map((page) => pageLink(page)),
  "Every page was cited at least once.",
)}
</section>
<section aria-labelledby="gaps">
<h2 id="gaps">Vocabulary gaps</h2>
<p class="meta">Words readers use that the book never does, and where their other words point.</p>
${list(
  report.vocabularyGaps.map(
    (gap) =>
      `<strong>${escapeHtml(gap.word)}</strong> <span class="meta">${times(gap.count)}</span>${gap.pages.length > 0 ? ` → ${pageLinks(gap.pages)}` : ""}<br><span class="meta">${gap.proposal.kind === "synonym" ? `Proposed synonym: ${escapeHtml(gap.word)} → ${escapeHtml(gap.proposal.phrase)}` : "Proposed: a glossary entry"} · e.g. “${escapeHtml(gap.questions[0] ?? "")}”</span>`,
  ),
  "Readers use the book's own words.",
)}
${report.synonymsProposal ? `<h3>Proposed lectern.synonyms.yml entries</h3>\n<pre><code>${escapeHtml(report.synonymsProposal)}</code></pre>` : ""}
</section>
<section aria-labelledby="stale">
<h2 id="stale">Stale answers</h2>
<p class="meta">Answers whose cited passages changed since they were given.</p>
${list(
  report.staleAnswers.map(
    (answer) =>
      `${escapeHtml(answer.question)} <span class="meta">${day(answer.askedAt)} · ${answer.pages.map((page) => `${pageLink(page)} ${page.change}`).join(", ")}</span>`,
  ),
  "No cited passage changed since its answer.",
)}
</section>
</main>
</body>
</html>`;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

function times(count: number, noun = "time"): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function list(items: string[], empty: string, tag: "ul" | "ol" = "ul"): string {
  if (items.length === 0) return `<p class="empty">${escapeHtml(empty)}</p>`;
  return `<${tag} class="items">${items.map((item) => `<li>${item}</li>`).join("")}</${tag}>`;
}

function pageLink(page: PageRef): string {
  return page.url.startsWith("/") && !page.url.startsWith("//")
    ? `<a href="${escapeHtml(page.url)}">${escapeHtml(page.title)}</a>`
    : escapeHtml(page.title);
}

function pageLinks(pages: PageRef[]): string {
  return pages.map(pageLink).join(", ");
}

function topicsList(report: InsightsReport): string {
  if (report.topics.length === 0 && report.otherQuestions.length === 0) {
    return '<p class="empty">No questions in this period.</p>';
  }
  const topics = report.topics.map(
    (topic) =>
      `<li><h3>${escapeHtml(topic.label)} <span class="meta">${times(topic.count, "question")}</span></h3>${topic.terms.length > 0 ? `<p class="meta">with ${escapeHtml(topic.terms.join(", "))}</p>` : ""}${list(
        topic.questions
          .slice(0, 5)
          .map(
            (question) =>
              `${escapeHtml(question.text)}${question.count > 1 ? ` <span class="meta">×${question.count}</span>` : ""}`,
          ),
        "",
      )}</li>`,
  );
  const other =
    report.otherQuestions.length > 0
      ? `<li><h3>Other questions</h3>${list(
          report.otherQuestions
            .slice(0, 5)
            .map(
              (question) =>
                `${escapeHtml(question.text)}${question.count > 1 ? ` <span class="meta">×${question.count}</span>` : ""}`,
            ),
          "",
        )}</li>`
      : "";
  return `<ul class="topics">${topics.join("")}${other}</ul>`;
}

function legend(): string {
  return `<ul class="legend"><li><span class="swatch answered"></span>answered</li><li><span class="swatch low"></span>low confidence</li><li><span class="swatch unanswered"></span>unanswered</li></ul>`;
}

/** Stacked bars, one per day: answered at the bottom, then low confidence, then unanswered. */
export function perDayChart(perDay: InsightsReport["perDay"]): string {
  const width = 600;
  const height = 220;
  const left = 40;
  const bottom = 28;
  const top = 10;
  const plotHeight = height - bottom - top;
  const totals = perDay.map((entry) => entry.answered + entry.lowConfidence + entry.unanswered);
  const maximum = Math.max(1, ...totals);
  const step = niceStep(maximum);
  const scaleTop = Math.ceil(maximum / step) * step;
  const slot = (width - left - 4) / Math.max(1, perDay.length);
  const barWidth = Math.max(1, slot * 0.72);
  const y = (value: number) => top + plotHeight - (value / scaleTop) * plotHeight;
  const grid: string[] = [];
  for (let value = 0; value <= scaleTop; value += step) {
    grid.push(
      `<line x1="${left}" x2="${width}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#c9ccd1" stroke-width="1"/>`,
      `<text x="${left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" font-size="14" fill="#525860">${value}</text>`,
    );
  }
  const bars = perDay.map((entry, index) => {
    const x = left + index * slot + (slot - barWidth) / 2;
    let base = 0;
    const segments: string[] = [];
    for (const [key, color] of [
      ["answered", COLORS.answered],
      ["lowConfidence", COLORS.lowConfidence],
      ["unanswered", COLORS.unanswered],
    ] as const) {
      const value = entry[key];
      if (value === 0) continue;
      segments.push(
        `<rect x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + value)).toFixed(1)}" fill="${color}"/>`,
      );
      base += value;
    }
    return segments.join("");
  });
  // A date under the first and last bar, and a few between when they fit.
  const labelEvery = Math.max(1, Math.ceil(perDay.length / 6));
  const labels = perDay
    .map((entry, index) =>
      index % labelEvery === 0 || index === perDay.length - 1
        ? `<text x="${(left + index * slot + slot / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle" font-size="14" fill="#525860">${entry.day.slice(5)}</text>`
        : "",
    )
    .join("");
  const total = totals.reduce((sum, value) => sum + value, 0);
  const label = `Questions per day: ${total} over ${perDay.length} day${perDay.length === 1 ? "" : "s"}, at most ${maximum === 1 && total === 0 ? 0 : maximum} in a day`;
  return `<svg role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${grid.join("")}${bars.join("")}${labels}</svg>`;
}

/** One bar across: the shares of answered, low-confidence and unanswered questions. */
export function shareChart(totals: InsightsReport["totals"]): string {
  const width = 600;
  const height = 70;
  const parts = [
    ["answered", totals.answered, COLORS.answered],
    ["low confidence", totals.lowConfidence, COLORS.lowConfidence],
    ["unanswered", totals.unanswered, COLORS.unanswered],
  ] as const;
  const total = totals.questions;
  let x = 0;
  const rects = parts.map(([, value, color]) => {
    if (total === 0 || value === 0) return "";
    const widthOf = (value / total) * width;
    const rect = `<rect x="${x.toFixed(1)}" y="8" width="${widthOf.toFixed(1)}" height="34" fill="${color}"/>`;
    const text =
      widthOf > 40
        ? `<text x="${(x + widthOf / 2).toFixed(1)}" y="30" text-anchor="middle" font-size="13" fill="#fff">${Math.round((100 * value) / total)} %</text>`
        : "";
    x += widthOf;
    return rect + text;
  });
  const empty =
    total === 0 ? `<rect x="0" y="8" width="${width}" height="34" fill="#e4e6ea"/>` : "";
  const label =
    total === 0
      ? "No questions in this period"
      : parts.map(([name, value]) => `${name} ${value} of ${total}`).join(", ");
  return `<svg role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${empty}${rects.join("")}</svg>`;
}

/** A step for the value axis: 1, 2 or 5 times a power of ten, giving at most five lines. */
function niceStep(maximum: number): number {
  const rough = maximum / 4;
  const power = 10 ** Math.floor(Math.log10(Math.max(1, rough)));
  for (const factor of [1, 2, 5, 10])
    if (factor * power >= rough) return Math.max(1, factor * power);
  return power * 10;
}
