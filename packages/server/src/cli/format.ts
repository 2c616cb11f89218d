import type { IngestReport } from "../ingest/ingest.ts";
import type { RetrievalResult } from "../search/retriever.ts";

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

export function formatSources(retrieval: RetrievalResult): string {
  return retrieval.results
    .map((result, index) => {
      const chunk = result.chunk;
      const section = chunk.section === chunk.title ? "" : ` › ${chunk.section}`;
      return `[${index + 1}] ${chunk.title}${section} (${result.similarityScore.toFixed(2)})\n    ${chunk.url}`;
    })
    .join("\n");
}
