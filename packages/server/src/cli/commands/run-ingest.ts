import path from "node:path";
import type { DocSource } from "../../ingest/doc-source.ts";
import type { VersionedDocs } from "../../ingest/versioned-site.ts";
import type { Lectern } from "../../lectern.ts";
import { formatIngestSummary } from "../format.ts";
import { createProgressBar } from "../progress.ts";

/**
 * Ingests with a progress bar and prints the report. 1 when the embedding failed; a page that
 * could not be ingested is reported and keeps its previous version while the others are indexed,
 * which gives 0 unless `strict` (for CI, where a broken page should fail the check). `replace`
 * lets another docs folder replace the book this index holds.
 */
export async function runIngest(
  lectern: Lectern,
  docs: string | DocSource | VersionedDocs,
  {
    json,
    strict,
    replace = false,
    extra = {},
  }: {
    json: boolean;
    strict: boolean;
    replace?: boolean;
    /** More fields for the `--json` report (the crawl's). */
    extra?: Record<string, unknown>;
  },
): Promise<number> {
  const progress = createProgressBar();
  const report = await lectern
    .ingest(docs, (event) => progress.update(event), { replace })
    .finally(() => progress.finish());
  const book = {
    title: (await lectern.title()) ?? null,
    dataDir: path.resolve(lectern.config.dataDir),
    ...(lectern.served.versions.length > 0
      ? {
          versions: lectern.served.versions.map(({ name, label, latest }) => ({
            name,
            label,
            latest,
          })),
        }
      : {}),
    ...(lectern.served.locales.length > 0
      ? {
          locales: lectern.served.locales.map(({ name, default: isDefault }) => ({
            name,
            default: isDefault,
          })),
        }
      : {}),
  };
  if (json) {
    const { addedChunks: _added, removedChunkIds: _removed, ...summary } = report;
    process.stdout.write(`${JSON.stringify({ ...summary, ...extra, book }, null, 2)}\n`);
  } else {
    for (const failure of report.failures) process.stderr.write(`✗ ${failure.message}\n`);
    process.stdout.write(`${formatIngestSummary(report)}\n`);
    process.stdout.write(`Book: ${book.title ?? "(untitled)"}, index in ${book.dataDir}\n`);
    if (book.versions) {
      const names = book.versions.map((version) =>
        version.latest ? `${version.label} (latest)` : version.label,
      );
      process.stdout.write(`Versions: ${names.join(", ")}\n`);
    }
    if (book.locales) {
      const names = book.locales.map((locale) =>
        locale.default ? `${locale.name} (default)` : locale.name,
      );
      process.stdout.write(`Locales: ${names.join(", ")}\n`);
    }
  }
  const embeddings = report.embeddings;
  if (embeddings && !json) {
    process.stdout.write(
      `Embeddings: ${embeddings.embedded} chunks embedded in ${embeddings.seconds.toFixed(2)} s with ${lectern.embedder.provider}:${lectern.embedder.modelId}\n`,
    );
  }
  if (embeddings?.failed) {
    process.stderr.write(
      `Embedding stopped (${embeddings.failed}); ${embeddings.pending} chunk(s) still need embeddings. Run the same command again to continue where it stopped.\n`,
    );
    return 1;
  }
  if (report.failures.length > 0) {
    process.stderr.write(
      `${report.failures.length} file(s) could not be ingested; their previous versions (if any) were kept${strict ? "." : ", and the other pages are indexed (--strict makes this an error)."}\n`,
    );
    return strict ? 1 : 0;
  }
  return 0;
}
