import type { Citation } from "@lectern/protocol";
import type { EvalMetrics } from "../eval/evaluate.ts";
import type { IngestReport } from "../ingest/ingest.ts";

export function formatIngestSummary(report: IngestReport): string {
  const lines = [
    `Files: ${report.added.length} added, ${report.updated.length} updated, ${report.removed.length} removed, ${report.unchanged} unchanged` +
      (report.skippedDrafts.length ? `, ${report.skippedDrafts.length} drafts skipped` : "") +
      (report.failures.length ? `, ${report.failures.length} failed` : "") +
      (report.warnings.length
        ? `, ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}`
        : ""),
    ...report.warnings.map((warning) => `⚠ ${warning.message}`),
    `Chunks: +${report.chunksAdded} −${report.chunksRemoved}; index holds ${report.totalDocuments} pages, ${report.totalChunks} chunks`,
    `Done in ${report.seconds.toFixed(2)} s`,
  ];
  return lines.join("\n");
}

export function formatSources(sources: Citation[]): string {
  return sources
    .map((source) => {
      if (source.source_type === "selected_text")
        return `[${source.citation_number}] the selected text`;
      const section = source.section === source.title ? "" : ` › ${source.section}`;
      return `[${source.citation_number}] ${source.title}${section} (${source.similarity_score.toFixed(2)})\n    ${source.source_url}`;
    })
    .join("\n");
}

/** The `lectern eval` report: each miss, then the headline numbers. */
export function formatEvalReport(metrics: EvalMetrics, split: string): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const lines: string[] = [];
  for (const result of metrics.results) {
    const wrong =
      result.expectedPages.length === 0
        ? !result.predictedNoResults
        : result.firstHit === undefined || result.firstHit > metrics.k;
    const missingPhrase = result.containsPhrase === false;
    if (!wrong && !missingPhrase) continue;
    const got = result.predictedNoResults
      ? "no_results"
      : result.rankedPages.slice(0, 3).join(", ");
    lines.push(
      `  ${wrong ? "miss" : "phrase missing"} ${result.id} (support ${result.support.toFixed(2)}) ${result.question}`,
      `       expected ${result.expectedPages.join(", ") || "no_results"}; got ${got}`,
    );
  }
  lines.push(
    `Questions: ${metrics.questions} (${metrics.answerable} answerable, ${metrics.offTopic} off-topic), split ${split}`,
    `hit@1 ${percent(metrics.hitAt1)}  hit@${metrics.k} ${percent(metrics.hitAtK)} (a refusal counts as a miss)  MRR ${metrics.mrr.toFixed(3)}`,
    `off-topic rejected ${percent(metrics.noAnswerRecall)}  no-answer precision ${percent(metrics.noAnswerPrecision)}  answerable questions rejected: ${metrics.falseRejections}`,
    `low_confidence flagged ${metrics.lowConfidenceFlagged}, of which wrong ${metrics.lowConfidenceWrong}`,
  );
  if (metrics.phraseRows > 0)
    lines.push(
      `answers containing an expected phrase: ${percent(metrics.phraseShare)} of ${metrics.phraseRows}`,
    );
  lines.push(
    `retrieval latency p50 ${metrics.latencyP50Ms.toFixed(2)} ms  p95 ${metrics.latencyP95Ms.toFixed(2)} ms`,
  );
  return lines.join("\n");
}
